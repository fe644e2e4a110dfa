"""``python -m clinqa ARGS``: the ``clinqa`` command."""

from clinqa.cli import main

main()
