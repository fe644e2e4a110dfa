"""The one table of filter cases: a hand-made corpus and, for each :class:`Filters`, the chunk ids it
admits, worked out by hand. ``test_filter_translations.py`` runs every case through the three translations (SQL
on a real LanceDB table, the NumPy mask, a Qdrant filter in local mode); ``test_contract.py`` runs
them through each store's dense search, BM25 search and export.

8 chunks of 6 documents: three guidelines (one overview chunk, one paragraph without a year, sources
spelt "NICE" and "nice") and notes of three patients, one with a quote in its id (``O'Brien``).
"""

from __future__ import annotations

from clinqa.chunking.base import Chunk
from clinqa.store.filters import Filters


def chunk(cid: str, text: str, **kw) -> Chunk:
    doc = cid.split("#")[0]
    return Chunk(chunk_id=cid, doc_id=doc, text=text, body=text, doc_hash=f"h-{doc}", **kw)


CHUNKS = [
    chunk("g1#document#0", "guideline overview warfarin evidence", hierarchy_level="document", year=2014,
          source="BTS", title="G1"),
    chunk("g1#s#1", "warfarin dosing in atrial fibrillation evidence", year=2014, source="BTS", title="G1"),
    chunk("g2#s#0", "statin therapy after myocardial infarction evidence", year=2022, source="NICE", title="G2"),
    chunk("g3#p#0", "apixaban compared with warfarin in elderly evidence", hierarchy_level="paragraph",
          source="nice", title="G3"),  # no year
    chunk("nA#s#0", "patient A takes warfarin daily evidence", patient_id="A", year=2023, source="EHR",
          note_date="2023-02-01", title="note A"),
    chunk("nA#s#1", "patient A started colchicine for pericarditis evidence", patient_id="A", year=2023,
          source="EHR", note_date="2023-02-01", title="note A"),
    chunk("nB#s#0", "patient B takes warfarin twice evidence", patient_id="B", year=2021, source="EHR",
          note_date="2021-05-01", title="note B"),
    chunk("nO#s#0", "patient O'Brien started metformin evidence", patient_id="O'Brien", year=2024,
          source="EHR", note_date="2024-03-01", title="note O"),
]
ID = {c.chunk_id: i for i, c in enumerate(CHUNKS)}
GENERAL = {"g1#s#1", "g2#s#0", "g3#p#0"}  # Filters(): no patient, overview chunks left out

# (filters, the chunk ids they admit), worked out by hand from CHUNKS. Append new cases at the end:
# test_contract.py picks some by position.
FILTER_CASES: list[tuple[Filters, set[str]]] = [
    (Filters(), GENERAL),
    (Filters(exclude_levels=()), GENERAL | {"g1#document#0"}),
    (Filters(exclude_levels=("section",)), {"g1#document#0", "g3#p#0"}),
    (Filters(exclude_levels=("section", "paragraph")), {"g1#document#0"}),
    (Filters(patient_id="A"), {"nA#s#0", "nA#s#1"}),
    (Filters(patient_id="B"), {"nB#s#0"}),
    (Filters(patient_id="C"), set()),
    (Filters(year_min=2020), {"g2#s#0"}),  # g3 has no year: excluded once a bound is set
    (Filters(year_max=2014), {"g1#s#1"}),
    (Filters(year_min=2014, year_max=2014, exclude_levels=()), {"g1#document#0", "g1#s#1"}),
    (Filters(year_min=2015, year_max=2021), set()),
    (Filters(sources=("nice",)), {"g2#s#0", "g3#p#0"}),  # "NICE" and "nice": case-insensitive
    (Filters(sources=("bts", "NICE")), GENERAL),
    (Filters(sources=("who",)), set()),
    (Filters(doc_ids=("g1", "g3")), {"g1#s#1", "g3#p#0"}),
    (Filters(doc_ids=("nA",)), set()),  # a note's doc id without its patient: nothing
    (Filters(patient_id="A", year_min=2023, sources=("ehr",), doc_ids=("nA",)), {"nA#s#0", "nA#s#1"}),
    (Filters(patient_id="A", year_max=2022), set()),
    (Filters(patient_id="B", year_min=2021, year_max=2021, sources=("Ehr",)), {"nB#s#0"}),
    (Filters(sources=("nice",), year_min=2020, doc_ids=("g2", "g3")), {"g2#s#0"}),
    (Filters(sources=("nice", "bts"), exclude_levels=("paragraph",), year_max=2030),
     {"g1#document#0", "g1#s#1", "g2#s#0"}),  # excluding paragraphs keeps the overview chunk
    # since/until as the CLI sets them (--since 2014 --until 2022), and the default exclusions of Q&A
    (Filters(year_min=2014, year_max=2022), {"g1#s#1", "g2#s#0"}),
    (Filters(exclude_levels=("document", "references")), GENERAL),  # a level no chunk has changes nothing
    # patient isolation: one patient's scope never admits another patient's or general chunks
    (Filters(patient_id="O'Brien"), {"nO#s#0"}),  # a quote in the id (SQL literal escaping)
    (Filters(patient_id="o'brien"), set()),  # ids are compared exactly, case included
    (Filters(patient_id="A' OR '1'='1"), set()),  # an injection attempt is just an unknown id
    (Filters(patient_id=""), set()),
    (Filters(patient_id="A", exclude_levels=()), {"nA#s#0", "nA#s#1"}),
    (Filters(patient_id="A", doc_ids=("nA", "nB", "nO", "g1")), {"nA#s#0", "nA#s#1"}),  # others' doc ids
    (Filters(patient_id="B", doc_ids=("nA",)), set()),
    (Filters(patient_id="B", sources=("EHR",), year_min=2000), {"nB#s#0"}),
    (Filters(patient_id="O'Brien", year_max=2023), set()),
    (Filters(sources=("ehr",), exclude_levels=()), set()),  # the notes' source without a patient: nothing
    (Filters(year_min=2023), set()),  # only notes lie in 2023-2024: no patient, no notes
    # retrieval.keep_undated (issue 51): a document without a year passes any year bound, the others as before
    (Filters(year_min=2020, keep_undated=True), {"g2#s#0", "g3#p#0"}),
    (Filters(year_max=2015, keep_undated=True, exclude_levels=()), {"g1#document#0", "g1#s#1", "g3#p#0"}),
    (Filters(year_min=2015, year_max=2021, keep_undated=True), {"g3#p#0"}),
    (Filters(patient_id="A", year_min=2024, keep_undated=True), set()),  # every note has a year
    (Filters(keep_undated=True), GENERAL),  # no bound: nothing changes
]
