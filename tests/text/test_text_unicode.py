"""The one text normaliser (:func:`clinqa.text.normalize`, :mod:`clinqa.text.unicode`)."""

from __future__ import annotations

import pytest

from clinqa.text import normalize


@pytest.mark.parametrize(("raw", "expected"), [
    ("\ufb01brillation", "fibrillation"),  # ligature fi
    ("\u00b5mol/L", "\u03bcmol/L"),  # micro sign -> Greek mu
    ("\u03bcmol/L", "\u03bcmol/L"),
    ("eGFR 15\u201329", "eGFR 15-29"),  # en dash
    ("a \u2014 b \u2212 c", "a - b - c"),  # em dash, minus sign
    ("\u201cquoted\u201d and \u2018single\u2019", "\"quoted\" and 'single'"),
    ("age >= 75, eGFR <= 30", "age \u2265 75, eGFR \u2264 30"),
    ("age \u2265 75", "age \u2265 75"),
    ("BP high => start", "BP high => start"),  # an arrow, not a bound
    ("10\u2079/L and 1.73 m\u00b2 and \u00bd tablet", "10\u2079/L and 1.73 m\u00b2 and \u00bd tablet"),  # kept
    ("SpO\u2082 89%, PaCO\u2082, CHA\u2082DS\u2082-VASc", "SpO2 89%, PaCO2, CHA2DS2-VASc"),  # subscript digits
    ("40\u00a0mg", "40 mg"),  # non-breaking space
    ("cafe\u0301", "caf\u00e9"),  # NFC
    ("plain ASCII text", "plain ASCII text"),
])
def test_normalize(raw: str, expected: str) -> None:
    assert normalize(raw) == expected
    assert normalize(expected) == expected  # idempotent


def test_blank_text_includes_invisible_characters():
    from clinqa.text.unicode import is_blank

    assert is_blank("") and is_blank("   ") and is_blank("\u00a0\t") and is_blank("\u200b\u00a0") and is_blank("\ufeff")
    assert not is_blank("a") and not is_blank("\u200bCAP")
