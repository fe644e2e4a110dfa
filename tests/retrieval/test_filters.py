from clinqa.retrieval.filters import Filters, to_sql


def test_sql_translation() -> None:
    assert to_sql(Filters()) == "patient_id IS NULL AND hierarchy_level NOT IN ('document')"
    assert to_sql(Filters(patient_id="o'brien", year_min=2021, year_max=2023, sources=("A",), exclude_levels=())) == (
        "patient_id = 'o''brien' AND year >= 2021 AND year <= 2023 AND lower(source) IN ('a')"
    )
