"""``python -m clinqa.cli ARGS``: the ``clinqa`` command."""

from clinqa.cli import main

main()
