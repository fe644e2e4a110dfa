"""The three sentence splitters of :mod:`clinqa.text.sentences`."""

from __future__ import annotations

from clinqa.text import split_answer, split_sentences, split_source_sentences


def test_document_sentences_keep_abbreviations_and_decimals() -> None:
    text = "Use a macrolide, e.g. azithromycin. Dr. Smith gives 0.9 mg/kg daily. Review at 48 h."
    assert split_sentences(text) == ["Use a macrolide, e.g. azithromycin.", "Dr. Smith gives 0.9 mg/kg daily.",
                                     "Review at 48 h."]
    assert split_sentences("  ") == []


def test_generated_sentences_keep_their_markers() -> None:
    text = "Give 0.9 mg/kg [1]. Dr. Smith, e.g. on the ward, stops it [2]. [3] Then review."
    # "Dr." and "e.g." do not end sentences; "[3]" opening a sentence belongs to the one before
    assert split_answer(text) == ["Give 0.9 mg/kg [1].", "Dr. Smith, e.g. on the ward, stops it [2]. [3]",
                                  "Then review."]
    assert split_answer("- First line.\n2. Second [1]") == ["First line.", "Second [1]"]  # bullets dropped


def test_cited_text_is_cut_at_clause_ends_lines_and_inline_items() -> None:
    assert split_source_sentences("Give 5 mg; stop it.\nNext - Item two") == ["Give 5 mg;", "stop it.", "Next",
                                                                             "Item two"]
    assert split_source_sentences("0.9 mg/kg daily") == ["0.9 mg/kg daily"]
