import clinqa.store.filters as store_filters
from clinqa.retrieval.filters import Filters, sql_literal, to_sql


def test_old_import_path_is_the_store_module() -> None:
    """clinqa.retrieval.filters re-exports clinqa.store.filters (same objects): old imports keep working."""
    assert (Filters, to_sql, sql_literal) == (store_filters.Filters, store_filters.to_sql, store_filters.sql_literal)


def test_sql_translation() -> None:
    assert to_sql(Filters()) == "patient_id IS NULL AND hierarchy_level NOT IN ('document')"
    assert to_sql(Filters(patient_id="o'brien", year_min=2021, year_max=2023, sources=("A",), exclude_levels=())) == (
        "patient_id = 'o''brien' AND year >= 2021 AND year <= 2023 AND lower(source) IN ('a')"
    )
