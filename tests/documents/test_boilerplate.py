"""Corpus boilerplate (clinqa.documents.boilerplate): the openings compared, the 20% / at-least-5
threshold counted by hand, patient notes never screened, a section's only text kept, and what a
later run learns from the record."""

from __future__ import annotations

from clinqa.documents.boilerplate import ALL, Boilerplate, opening, screened, threshold
from clinqa.documents.model import Block, Document, Section

AD = "OpenMedicine Calculator: `calculate_{}` -- available via MCP for automated {} scoring."


def _word(i: int) -> str:
    """A different word for each ``i`` (no digits: a word with one is masked as a name)."""
    return "drug" + chr(97 + i % 26) + chr(97 + i // 26)


def doc(i: int, *lines: str, source: str = "soc", patient: str | None = None) -> Document:
    """A document with a content paragraph and then ``lines`` as one quote block each."""
    blocks = [Block(text=f"{_word(i)} is given once daily and its dose is adjusted.")]
    blocks += [Block(text=line, kind="quote") for line in lines]
    return Document(doc_id=f"d{i}", source=source, patient_id=patient, format="notes" if patient else "markdown",
                    sections=[Section(title="S", blocks=blocks)])


def test_opening_masks_names_numbers_lists_and_dashes() -> None:
    assert opening(AD.format("rcri", "RCRI")) == opening("OpenMedicine Calculator: calculate_sofa — available "
                                                         "via MCP for automated SOFA scoring of organs.")
    assert opening(AD.format("rcri", "RCRI")) == "openmedicine calculator <name> available via mcp for automated"
    assert opening("OpenMedicine Calculators: `calculate_wells_pe` and `calculate_wells_dvt` -- available") == \
        "openmedicine calculator <name> available"
    assert opening("- Diabetes mellitus") is None  # under 4 words: never boilerplate


def test_threshold_is_20_percent_and_at_least_5() -> None:
    assert [threshold(n) for n in (1, 5, 24, 25, 26, 43, 100)] == [5, 5, 5, 5, 6, 9, 20]


def test_line_in_5_of_25_documents_is_boilerplate_and_counted() -> None:
    docs = [doc(i, AD.format(f"c{i}", f"X{i}") if i < 5 else "") for i in range(25)]
    bp = Boilerplate()
    out = list(screened(docs, bp))
    assert [k.group for k in bp.kinds.values()] == ["soc"] and bp.kinds[("soc", opening(AD))].documents == 5
    assert [g["lines"] for g in bp.summary()] == [5] and bp.summary()[0]["documents"] == 5
    assert all("OpenMedicine" not in d.text() for d in out)
    assert all(f"{_word(i)} is given" in d.text() for i, d in enumerate(out))  # the content stays
    assert "OpenMedicine" in docs[0].text()  # the loaded document itself is not changed


def test_line_in_5_of_26_documents_is_not() -> None:  # 20% of 26 is 5.2: 6 needed
    docs = [doc(i, AD.format(f"c{i}", "X") if i < 5 else "") for i in range(26)]
    bp = Boilerplate()
    out = list(screened(docs, bp))
    assert not bp.kinds and not bp.summary()
    assert sum("OpenMedicine" in d.text() for d in out) == 5


def test_line_in_4_of_4_documents_is_not() -> None:  # 100%, but fewer than 5
    bp = Boilerplate()
    list(screened([doc(i, AD.format(i, i)) for i in range(4)], bp))
    assert not bp.kinds


def test_patient_notes_are_never_screened() -> None:
    notes = [doc(i, "Copied forward: patient stable on apixaban 5 mg twice daily.", patient="P1")
             for i in range(10)]
    bp = Boilerplate()
    out = list(screened(notes, bp))
    assert not bp.kinds and all("Copied forward" in d.text() for d in out)
    # a line learned from reference documents is still never taken out of a note
    bp.learn([doc(i, AD.format(i, i)) for i in range(5)])
    note = doc(99, AD.format("x", "y"), patient="P1")
    assert bp.strip(note) is note


def test_whole_run_group_catches_a_collection_of_many_sources() -> None:
    """Ten documents of ten sources (the demo's societies), the advert in six: 6 >= max(5, 2) of the run."""
    docs = [doc(i, AD.format(i, i) if i < 6 else "", source=f"society {i}") for i in range(10)]
    bp = Boilerplate()
    out = list(screened(docs, bp))
    assert [(k.group, k.documents) for k in bp.kinds.values()] == [(ALL, 6)]
    assert bp.summary() == [{"group": ALL, "kinds": 1, "lines": 6, "documents": 6,
                             "examples": ["OpenMedicine Calculator: `calculate_0` -- available via MCP for "
                                          "automated 0 scoring."]}]
    assert not any("OpenMedicine" in d.text() for d in out)


def test_a_section_whose_only_text_is_boilerplate_keeps_it() -> None:
    docs = [doc(i, AD.format(i, i)) for i in range(5)]
    docs.append(Document(doc_id="only", source="soc", format="markdown",
                         sections=[Section(title="Calc", blocks=[Block(text=AD.format("z", "Z"))])]))
    bp = Boilerplate()
    out = {d.doc_id: d for d in screened(docs, bp)}
    assert "OpenMedicine" in out["only"].text() and "OpenMedicine" not in out["d0"].text()
    assert bp.summary()[0]["lines"] == 5


def test_tables_and_code_are_not_candidates() -> None:
    docs = [Document(doc_id=f"t{i}", source="soc", sections=[Section(blocks=[
        Block(text=f"{_word(i)} of the table document here.", kind="paragraph"),
        Block(text="| Parameter | One Point | Two Points |\n|---|---|---|\n| a | b | c |", kind="table")])])
        for i in range(6)]
    bp = Boilerplate()
    out = list(screened(docs, bp))
    assert not bp.kinds and all("Parameter" in d.text() for d in out)


def test_a_later_run_applies_what_was_learned() -> None:
    bp = Boilerplate()
    list(screened([doc(i, AD.format(i, i)) for i in range(5)], bp))
    again = Boilerplate.from_json(bp.to_json())  # as <data dir>/boilerplate.json keeps it
    [one] = list(screened([doc(7, AD.format("seven", "Seven"))], again))  # one file: too few to learn from
    assert "OpenMedicine" not in one.text() and again.summary()[0]["lines"] == 1
