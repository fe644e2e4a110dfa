"""Block patterns of plain text: the line breaks that separate paragraphs, and the title of a reference list.

Two paragraph rules differ on purpose and keep their own names: :data:`BLANK_LINE` needs an empty line (spaces
and tabs only), :data:`PARAGRAPH_BREAK` also takes several newlines with any whitespace between.
"""

from __future__ import annotations

import re

#: a blank line: a newline, spaces or tabs only, a newline (the break between paragraphs of a loaded document,
#: and between a chunk's header and its body, :func:`clinqa.chunking.base.compose`)
BLANK_LINE = re.compile(r"\n[ \t]*\n")
#: a paragraph break: two newlines with any whitespace (more newlines included) between them
PARAGRAPH_BREAK = re.compile(r"\n\s*\n")
#: the title of a reference list, a line to itself ("References", "4. Bibliography", "Works cited"; any case):
#: kept as its own section by the PDF loader, marked level "references" by the chunker
REFERENCES_TITLE = re.compile(r"^(?:\d{1,2}\.?\s*)?(?:references|bibliography|literature cited|works cited|"
                              r"reference list)$", re.I)
