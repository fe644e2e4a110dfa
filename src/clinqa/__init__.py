"""clinqa: evidence-grounded question answering over a corpus you ingested.

Library entry point: :class:`clinqa.pipeline.Pipeline`; settings: :mod:`clinqa.settings`.
"""

__version__ = "0.1.0"
