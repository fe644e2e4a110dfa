"""Answer stage: the refusal gate, extractive answers and the Answer/Citation types.

The names below are loaded on first use (PEP 562 module ``__getattr__``), so that importing a
light submodule such as :mod:`clinqa.answer.types` (the command line's renderer does) does not
import the extractive answerer and, through it, retrieval, the stores and NumPy.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from clinqa.answer.extractive import extract_answer
    from clinqa.answer.types import Answer, Citation
    from clinqa.chunking.units import units_of
    from clinqa.decision.threshold import GateDecision, RefusalGate, gate_signal

#: public name -> the module that defines it (quotable units are chunking's)
_HOMES = {"extract_answer": "clinqa.answer.extractive", "units_of": "clinqa.chunking.units",
          "GateDecision": "clinqa.decision.threshold", "RefusalGate": "clinqa.decision.threshold",
          "gate_signal": "clinqa.decision.threshold", "Answer": "clinqa.answer.types",
          "Citation": "clinqa.answer.types"}


def __getattr__(name: str) -> Any:
    """The public name ``name`` from its submodule; raises ``AttributeError`` for any other name."""
    home = _HOMES.get(name)
    if home is None:
        raise AttributeError(f"module 'clinqa.answer' has no attribute {name!r}")
    return getattr(importlib.import_module(home), name)


__all__ = ["Answer", "Citation", "GateDecision", "RefusalGate", "extract_answer", "gate_signal", "units_of"]
