"""A year in the question cannot filter a corpus whose documents carry no year (PubMed snippets,
undated PDFs): the search is not limited, and the answer says so."""

from __future__ import annotations

from pathlib import Path

import pytest

from clinqa.pipeline import Pipeline
from clinqa.settings import Settings

APIXABAN = "Apixaban 5 mg twice daily is used for stroke prevention in atrial fibrillation.\n"
QUESTION = "What apixaban dose was used for stroke prevention in atrial fibrillation in 2019?"


def _store(root: Path, front_matter: str) -> Pipeline:
    corpus = root / "corpus"
    corpus.mkdir(parents=True)
    (corpus / "af.md").write_text(f"{front_matter}# Atrial fibrillation\n\n## Stroke prevention\n\n{APIXABAN}")
    (corpus / "gout.md").write_text(f"{front_matter}# Gout\n\n## Urate lowering\n\nAllopurinol lowers urate.\n")
    pipe = Pipeline(Settings(data_dir=root / "store"))
    assert pipe.ingest([corpus], progress=False).failed == []
    return pipe


@pytest.fixture(scope="module")
def undated(tmp_path_factory: pytest.TempPathFactory) -> Pipeline:
    return _store(tmp_path_factory.mktemp("undated"), "")


def test_undated_corpus_answers_with_a_warning(undated: Pipeline) -> None:
    assert not undated.reference_has_years()
    ans = undated.ask(QUESTION)
    assert not ans.refused and "5 mg twice daily" in ans.answer
    assert ans.filters.year_min is None and ans.filters.year_max is None and ans.time_filter == ""
    assert ans.warnings[0] == ("no document in the corpus carries a year, so 'in 2019' could not limit the "
                               "search to those years")
    # explicit year filters (--since/--until) are the user's own: they still apply, and the refusal says
    # that no document has a year (not "nothing is dated in 2019", as if others were)
    explicit = undated.ask(QUESTION, undated.filters(since=2019, until=2019))
    assert explicit.refused
    assert explicit.reason == "No document in the corpus carries a year, so the year range (in 2019) excludes them all."


def test_dated_corpus_is_limited_to_the_year(tmp_path: Path, undated: Pipeline) -> None:
    dated = _store(tmp_path, "---\nyear: 2015\n---\n")
    assert dated.reference_has_years()
    ans = dated.ask(QUESTION)
    assert ans.refused and (ans.filters.year_min, ans.filters.year_max) == (2019, 2019)
    assert not any("carries a year" in w for w in ans.warnings)
