"""Registry sidecars (registry.json / .yaml) applied during directory walks."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from clinqa.documents.loaders import Skipped, iter_documents
from clinqa.documents.loaders._common import slug
from clinqa.documents.model import Document, source_origin
from clinqa.documents.registry import load_registry
from clinqa.errors import LoadError


def split(out: list[Document | LoadError | Skipped]) -> tuple[dict[str, Document], list[LoadError], list[Skipped]]:
    docs = {o.doc_id: o for o in out if isinstance(o, Document)}
    return docs, [o for o in out if isinstance(o, LoadError)], [o for o in out if isinstance(o, Skipped)]


def test_yaml_registry_groups_folder_and_matches_file_stem(tmp_path: Path) -> None:
    root = tmp_path / "lib"
    (root / "guides" / "sepsis_2021").mkdir(parents=True)
    (root / "registry.yaml").write_text(
        "sepsis_2021:\n"
        "  title: Surviving Sepsis Campaign 2021\n"
        "  year: 2021\n"
        "  doi: https://doi.org/10.1097/CCM.0000000000005337\n"
        "  organization: SCCM/ESICM\n"
        "  topics: [sepsis, septic shock]\n"
        "  sections: [screening, fluids]\n"
        "aki_note:\n"
        "  title: AKI quick note\n"
        "  year: '2012'\n",
        encoding="utf-8",
    )
    folder = root / "guides" / "sepsis_2021"
    (folder / "fluids.md").write_text("# Fluids\n\n## Crystalloids\n\nGive 30 mL/kg.\n", encoding="utf-8")
    (folder / "screening.md").write_text("Lead text.\n\n# Screening\n\nUse qSOFA.\n", encoding="utf-8")
    (folder / "appendix.md").write_text("## Table A\n\n| a | b |\n|---|---|\n| 1 | 2 |\n", encoding="utf-8")
    (folder / "notes.txt").write_text("Loose text file\n\nkept as its own document", encoding="utf-8")
    (root / "guides" / "aki_note.md").write_text("# Original title\n\nStage by creatinine.\n", encoding="utf-8")

    docs, errors, skipped = split(list(iter_documents([root])))
    assert errors == []
    assert [Path(s.path).name for s in skipped] == ["registry.yaml"]
    # registry ids as given; the unlisted file: <passed folder name>/<relative path>
    assert sorted(docs) == ["aki_note", "lib/guides/sepsis_2021/notes", "sepsis_2021"]

    sepsis = docs["sepsis_2021"]
    assert sepsis.title == "Surviving Sepsis Campaign 2021"
    assert sepsis.year == 2021
    assert sepsis.doi == "10.1097/CCM.0000000000005337"
    assert sepsis.url == "https://doi.org/10.1097/CCM.0000000000005337"
    assert sepsis.organization == "SCCM/ESICM" and sepsis.source == "SCCM/ESICM"
    assert sepsis.topics == ["sepsis", "septic shock"]
    assert sepsis.path == str(folder)
    # registry order first (screening, fluids), then the unlisted file; a file without H1
    # gets its humanised stem as section title and keeps its headings beneath
    assert [p for p, _ in sepsis.walk()] == [
        ("Screening",),
        ("Fluids",),
        ("Fluids", "Crystalloids"),
        ("Appendix",),
        ("Appendix", "Table A"),
    ]
    assert [b.text for b in sepsis.sections[0].blocks] == ["Lead text.", "Use qSOFA."]

    aki = docs["aki_note"]
    assert aki.title == "AKI quick note" and aki.year == 2012
    assert [p for p, _ in aki.walk()] == [("Original title",)]


def test_nearer_registry_overrides_and_list_form(tmp_path: Path) -> None:
    root = tmp_path / "root"
    sub = root / "sub"
    sub.mkdir(parents=True)
    (root / "registry.json").write_text(
        json.dumps([{"id": "doc1", "title": "Outer title", "year": 2000, "organization": "Outer"}]), encoding="utf-8"
    )
    (sub / "registry.yml").write_text("- id: doc1\n  title: Inner title\n", encoding="utf-8")
    (sub / "doc1.md").write_text("# File title\n\ntext\n", encoding="utf-8")
    (root / "doc1.md").write_text("# Root file\n\ntext\n", encoding="utf-8")
    out = list(iter_documents([root]))
    docs = [o for o in out if isinstance(o, Document)]
    assert [(d.doc_id, d.title, d.year, d.organization) for d in docs] == [
        ("doc1", "Outer title", 2000, "Outer"),
        ("doc1", "Inner title", None, ""),  # duplicate ids are the pipeline's business
    ]


def test_single_file_uses_registry_beside_it(tmp_path: Path) -> None:
    (tmp_path / "registry.json").write_text(
        json.dumps({"x1": {"title": "Registry title", "year": 1999}}), encoding="utf-8"
    )
    (tmp_path / "x1.md").write_text("# File\n\nbody", encoding="utf-8")
    [doc] = list(iter_documents([tmp_path / "x1.md"]))
    assert isinstance(doc, Document)
    assert (doc.doc_id, doc.title, doc.year) == ("x1", "Registry title", 1999)


@pytest.mark.parametrize(
    ("name", "content", "reason"),
    [
        ("registry.json", '[{"id": "a", "title": "x"},', "invalid registry JSON at line 1"),
        ("registry.yaml", "a: [unclosed\n", "invalid registry YAML"),
        ("registry.json", '"just a string"', "registry must be a list of entries or a mapping id -> entry"),
        ("registry.json", '[{"title": "no id"}]', "entry 1: missing 'id'"),
        ("registry.json", '[{"id": "a", "year": "soon"}]', "entry 1 ('a'): 'year' must be an integer year"),
        ("registry.json", '[{"id": "a", "topics": [1, {"x": 2}]}]', "entry 1 ('a'): 'topics' must be a list"),
        ("registry.json", '[{"id": "a"}, {"id": "a"}]', "entry 2: duplicate id 'a'"),
        ("registry.json", "", "empty file"),
    ],
)
def test_bad_registry_is_a_load_error_naming_it(tmp_path: Path, name: str, content: str, reason: str) -> None:
    reg = tmp_path / name
    reg.write_text(content, encoding="utf-8")
    (tmp_path / "a.md").write_text("# A\n\ntext", encoding="utf-8")
    with pytest.raises(LoadError) as err:
        load_registry(reg)
    assert str(err.value).startswith(f"{reg}: ") and reason in err.value.reason
    # a walk reports the registry error and still loads the files (without the metadata)
    out = list(iter_documents([tmp_path]))
    assert [str(o) for o in out if isinstance(o, LoadError)] == [str(err.value)]
    assert [o.doc_id for o in out if isinstance(o, Document)] == [f"{slug(tmp_path.name)}/a"]


@pytest.mark.parametrize("meta", ["citation_publisher", "DC.publisher"])
def test_html_publisher_gives_the_source_unless_a_registry_does(tmp_path: Path, meta: str) -> None:
    """Issue 51 item 7: the publisher meta was ignored; the source was the folder's name."""
    page = (f'<html><head><title>Gout</title><meta name="{meta}" content="  American College of '
            'Rheumatology "></head><body><p>Colchicine treats a gout flare.</p></body></html>')
    folder = tmp_path / "downloads"
    folder.mkdir()
    (folder / "gout.html").write_text(page, encoding="utf-8")
    (doc,) = iter_documents([folder])
    assert (doc.source, doc.organization) == ("American College of Rheumatology", "American College of Rheumatology")
    assert source_origin(doc) == "metadata"
    # a journal title still comes first
    (folder / "gout.html").write_text(page.replace("</head>", '<meta name="citation_journal_title" '
                                                   'content="Arthritis Care"></head>'), encoding="utf-8")
    (doc,) = iter_documents([folder])
    assert doc.source == "Arthritis Care"
    # a registry sidecar's organization wins
    (folder / "registry.json").write_text(json.dumps([{"id": "gout", "organization": "EULAR"}]), encoding="utf-8")
    (doc,) = split(list(iter_documents([folder])))[0].values()
    assert (doc.source, doc.organization) == ("EULAR", "EULAR")
