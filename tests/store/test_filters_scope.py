"""Filters.scope: what a filter lets a question see, in the words of a refusal or warning."""

from clinqa.store.filters import Filters


def test_scope_names_the_patient_the_years_and_the_sources() -> None:
    assert Filters().scope() == ""
    assert Filters(exclude_levels=("document", "references")).scope() == ""  # levels narrow no topic
    assert Filters(patient_id="Q09").scope() == "patient Q09's notes"
    assert Filters(patient_id="Q09", year_min=2020).scope() == "patient Q09's notes from 2020 on"
    assert Filters(year_max=2018).scope() == "the documents up to 2018"
    assert Filters(year_min=2021, year_max=2021).scope() == "the documents of 2021"
    assert Filters(sources=("NICE", "WHO")).scope() == "the documents from NICE, WHO"
    assert Filters(doc_ids=("a", "b")).scope() == "the chosen documents"
