"""Loaders on the real public files in ../shared/data (MedQuAD, PubMedQA, BEIR, guidelines)."""

from __future__ import annotations

import shutil
from itertools import islice
from pathlib import Path

import pytest

from clinqa.documents.loaders import Skipped, detect_format, iter_documents, load_file
from clinqa.documents.model import Document
from clinqa.errors import LoadError


def paths_of(doc: Document) -> list[tuple[str, ...]]:
    return [p for p, _ in doc.walk()]


# ---------------------------------------------------------------- MedQuAD XML


def test_medquad_cancergov(shared_dir: Path) -> None:
    path = shared_dir / "raw/medquad/1_CancerGov_QA/0000001_1.xml"
    assert detect_format(path) == "medquad"
    [doc] = load_file(path)
    assert doc.doc_id == "medquad:CancerGov_0000001_1"
    assert doc.title == "Adult Acute Lymphoblastic Leukemia"
    assert doc.source == "medquad:CancerGov"
    assert doc.url == "https://www.cancer.gov/types/leukemia/patient/adult-all-treatment-pdq"
    assert doc.format == "medquad" and doc.path == str(path)
    assert len(doc.sections) == 7
    assert doc.sections[0].title == "What is (are) Adult Acute Lymphoblastic Leukemia? (information)"
    assert doc.sections[4].title == "Who is at risk for Adult Acute Lymphoblastic Leukemia? (susceptibility)"
    symptoms = doc.sections[1]
    assert symptoms.title == "What are the symptoms of Adult Acute Lymphoblastic Leukemia? (symptoms)"
    # the inline "    - item    - item" bullets became list blocks, the prose around them paragraphs
    kinds = [b.kind for b in symptoms.blocks]
    assert kinds[0] == "paragraph" and kinds[-1] == "paragraph"
    assert "- Weakness or feeling tired." in [b.text for b in symptoms.blocks]
    assert symptoms.blocks[-1].text.startswith("These and other signs and symptoms")
    assert "Disorders" in doc.topics


def test_medquad_ghr_topics_from_synonyms(shared_dir: Path) -> None:
    [doc] = load_file(shared_dir / "raw/medquad/3_GHR_QA/0000001.xml")
    assert doc.title == "Aarskog-Scott syndrome"
    assert [s.title for s in doc.sections] == [
        "What is (are) Aarskog-Scott syndrome? (information)",
        "How many people are affected by Aarskog-Scott syndrome? (frequency)",
        "What are the genetic changes related to Aarskog-Scott syndrome? (genetic changes)",
        "Is Aarskog-Scott syndrome inherited? (inheritance)",
        "What are the treatments for Aarskog-Scott syndrome? (treatment)",
    ]
    assert doc.topics[:4] == ["Aarskog syndrome", "AAS", "Facio-digito-genital dysplasia", "Faciogenital dysplasia"]


def test_medquad_variant_layouts(shared_dir: Path) -> None:
    # NINDS lower-case <doc>/<qaPairs>/<pair> layout
    [ninds] = load_file(shared_dir / "raw/medquad/6_NINDS_QA/0000007.xml")
    assert ninds.doc_id == "medquad:NINDS_0000007"
    assert ninds.title == "Holmes-Adie"
    assert len(ninds.sections) == 4
    assert ninds.sections[0].title == "what is holmes-adie syndrome? (information)"
    # CDC <DiseaseFile fid> layout; "Who is at risk for X? ?" is cleaned
    [cdc] = load_file(shared_dir / "raw/medquad/9_CDC_QA/0000397.xml")
    assert cdc.title == "Parasites - Taeniasis"
    assert len(cdc.sections) == 5
    assert cdc.sections[1].title == "Who is at risk for Parasites - Taeniasis? (susceptibility)"
    assert len(cdc.sections[1].blocks) >= 3  # blank-line separated paragraphs kept


def test_medquad_empty_answers(shared_dir: Path, tmp_path: Path) -> None:
    adam = shared_dir / "raw/medquad/10_MPlus_ADAM_QA/0000001.xml"
    with pytest.raises(LoadError, match="no answered question-answer pairs") as err:
        load_file(adam)
    assert str(adam) in str(err.value)
    # in a walk this is a benign skip, not a failure
    shutil.copy(adam, tmp_path / "adam.xml")
    shutil.copy(shared_dir / "raw/medquad/3_GHR_QA/0000001.xml", tmp_path / "ghr.xml")
    out = list(iter_documents([tmp_path]))
    assert [type(o) for o in out] == [Skipped, Document]
    assert "no answered question-answer pairs" in out[0].reason


# ---------------------------------------------------------------- PubMedQA JSON


@pytest.fixture(scope="module")
def pubmedqa_docs(shared_dir: Path) -> dict[str, Document]:
    path = shared_dir / "raw/pubmedqa/ori_pqal.json"
    assert detect_format(path) == "pubmedqa"
    return {d.doc_id: d for d in load_file(path)}


def test_pubmedqa_record_with_question(pubmedqa_docs: dict[str, Document]) -> None:
    assert len(pubmedqa_docs) == 1000
    doc = pubmedqa_docs["pubmed:10808977"]
    assert doc.title == "Can tailored interventions increase mammography use among HMO women?"
    assert doc.year == 2000
    assert doc.source == "pubmed"
    assert doc.url == "https://pubmed.ncbi.nlm.nih.gov/10808977/"
    assert [s.title for s in doc.sections] == [
        "BACKGROUND",
        "DESIGN",
        "PARTICIPANTS",
        "INTERVENTION",
        "MAIN OUTCOME",
        "RESULTS",
        "CONCLUSIONS",
    ]
    assert doc.sections[1].blocks[0].text == "Three-year randomized field trial."
    assert "Mammography" in doc.topics and "Telephone" in doc.topics
    assert doc.abstract.startswith("Telephone counseling and tailored print communications")
    assert "CONCLUSIONS" not in doc.abstract and "telephone counseling seemed" not in doc.abstract


def test_pubmedqa_record_without_question(pubmedqa_docs: dict[str, Document]) -> None:
    doc = pubmedqa_docs["pubmed:21645374"]  # a held-out record: no QUESTION, no LONG_ANSWER
    assert doc.title == "PubMed 21645374"
    assert doc.year == 2011
    assert [s.title for s in doc.sections] == ["BACKGROUND", "RESULTS"]
    assert doc.topics == ["Alismataceae", "Apoptosis", "Cell Differentiation", "Mitochondria", "Plant Leaves"]


# ---------------------------------------------------------------- BEIR corpus.jsonl


def test_beir_pubmedqa_corpus_markdown_sections(shared_dir: Path) -> None:
    path = shared_dir / "pubmedqa/corpus.jsonl"
    assert detect_format(path) == "beir"
    docs = load_file(path)
    assert len(docs) == 1000
    doc = next(d for d in docs if d.doc_id == "21645374")
    assert doc.format == "beir" and doc.source == "pubmedqa"
    assert paths_of(doc) == [("Background",), ("Results",)]
    assert doc.sections[0].blocks[0].text.startswith("Programmed cell death (PCD)")
    assert doc.year == 2011
    assert doc.topics[:2] == ["Alismataceae", "Apoptosis"]


def test_beir_liveqa_metadata(shared_dir: Path, tmp_path: Path) -> None:
    src = shared_dir / "liveqa-medquad/corpus.jsonl"
    part = tmp_path / "corpus.jsonl"
    with src.open("rb") as fh:
        part.write_bytes(b"".join(islice(fh, 300)))
    docs = load_file(part)
    assert len(docs) == 300
    doc = docs[0]
    assert doc.doc_id == "CancerGov_0000001_1_Sec1"
    assert doc.title == "Adult Acute Lymphoblastic Leukemia (information)"
    assert doc.source == "CancerGov"
    assert doc.url == "https://www.cancer.gov/types/leukemia/patient/adult-all-treatment-pdq"
    assert doc.topics == ["Adult Acute Lymphoblastic Leukemia"]
    assert doc.sections[0].blocks[0].text == "Key Points"
    assert doc.sections[0].blocks[1].kind == "list"


# ---------------------------------------------------------------- guidelines: Markdown + registry.json

GUIDE = "acc_aha_perioperative_2014"


@pytest.fixture(scope="module")
def guideline_walk(shared_dir: Path) -> list[Document | LoadError | Skipped]:
    return list(iter_documents([shared_dir / "raw/guidelines"]))


def test_guidelines_walk(guideline_walk: list[Document | LoadError | Skipped]) -> None:
    docs = [o for o in guideline_walk if isinstance(o, Document)]
    errors = [o for o in guideline_walk if isinstance(o, LoadError)]
    skipped = sorted(Path(o.path).name for o in guideline_walk if isinstance(o, Skipped))
    assert errors == []
    assert len(docs) == 43  # one document per registry entry, not one per file
    assert len({d.doc_id for d in docs}) == 43
    assert skipped == ["LICENSE", "README.md", "registry.json"]


def test_guideline_is_one_document_in_registry_order(
    guideline_walk: list[Document | LoadError | Skipped], shared_dir: Path
) -> None:
    doc = next(o for o in guideline_walk if isinstance(o, Document) and o.doc_id == GUIDE)
    assert doc.title == (
        "2014 ACC/AHA Guideline on Perioperative Cardiovascular Evaluation and Management of "
        "Patients Undergoing Noncardiac Surgery"
    )
    assert doc.year == 2014
    assert doc.doi == "10.1016/j.jacc.2014.07.944"
    assert doc.url == "https://doi.org/10.1016/j.jacc.2014.07.944"
    assert doc.organization == "ACC/AHA" and doc.source == "ACC/AHA"
    assert "RCRI" in doc.topics and "perioperative beta-blocker" in doc.topics
    assert doc.format == "markdown"
    assert doc.path == str(shared_dir / "raw/guidelines/content" / GUIDE)
    # registry "sections": stepwise_cardiac_assessment, risk_assessment, perioperative_beta_blocker_management,
    # perioperative_medication_management -> each file's H1 is a top-level section, in that order
    assert [s.title for s in doc.sections] == [
        "Stepwise Approach to Perioperative Cardiac Assessment — ACC/AHA 2014",
        "Risk Assessment for Perioperative Cardiac Evaluation — ACC/AHA 2014",
        "Perioperative Beta-Blocker Management — ACC/AHA 2014",
        "Perioperative Statin, Antiplatelet, and Other Medication Management — ACC/AHA 2014",
    ]
    paths = dict(doc.walk())
    key = (
        "Perioperative Beta-Blocker Management — ACC/AHA 2014",
        "Beta-Blocker Recommendations",
        "Initiation of Beta-Blockers: When to Consider",
        "RCRI >= 3 Risk Factors (Class IIb)",
    )
    assert key in paths
    rcri = paths[key]
    assert [b.kind for b in rcri.blocks] == ["list", "list"]
    # inline markup (**bold**) is stripped, the bullet marker kept
    assert rcri.blocks[0].text.startswith("- It may be reasonable to begin perioperative beta-blocker therapy")
    assert "**" not in rcri.blocks[0].text

    table_section = paths[
        (
            "Perioperative Beta-Blocker Management — ACC/AHA 2014",
            "Timing and Dosing of Initiation",
            "Specific Beta-Blockers Referenced in the Evidence Base",
        )
    ]
    tables = [b for b in table_section.blocks if b.kind == "table"]
    assert len(tables) == 1
    rows = tables[0].text.split("\n")
    assert rows[0] == "| Beta-Blocker | Key Trials | Notes |" and rows[1] == "|---|---|---|"
    assert len(rows) == 5 and "Atenolol" in rows[4]

    algorithm = paths[
        (
            "Perioperative Beta-Blocker Management — ACC/AHA 2014",
            "Summary Decision Algorithm for Perioperative Beta-Blockers",
        )
    ]
    assert len(algorithm.blocks) == 5 and all(b.kind == "list" for b in algorithm.blocks)
    assert algorithm.blocks[0].text == (
        "1. Patient already on beta-blocker for any indication?\n"
        "   - Yes: Continue perioperatively. (Class I, Level of Evidence: B)\n"
        "   - No: Proceed to step 2."
    )


def test_guideline_single_markdown_file(shared_dir: Path) -> None:
    path = shared_dir / "raw/guidelines/content" / GUIDE / "risk_assessment.md"
    [doc] = load_file(path)
    assert doc.doc_id == f"{GUIDE}/risk_assessment"  # a file passed directly: <parent folder>/<stem>
    assert doc.title == "Risk Assessment for Perioperative Cardiac Evaluation — ACC/AHA 2014"
    assert len(doc.sections) == 1 and doc.sections[0].title == doc.title
    assert doc.source == GUIDE


def test_registry_above_the_passed_directory_is_not_used(shared_dir: Path) -> None:
    out = list(iter_documents([shared_dir / "raw/guidelines/content" / GUIDE]))
    docs = [o for o in out if isinstance(o, Document)]
    assert sorted(d.doc_id for d in docs) == [
        f"{GUIDE}/perioperative_beta_blocker_management",
        f"{GUIDE}/perioperative_medication_management",
        f"{GUIDE}/risk_assessment",
        f"{GUIDE}/stepwise_cardiac_assessment",
    ]
