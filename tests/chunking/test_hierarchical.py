"""Hierarchical chunking on hand-built documents with known boundaries."""

from __future__ import annotations

from clinqa.chunking import HierarchicalChunker, chunk_id
from clinqa.chunking.sentences import split_sentences
from clinqa.documents.model import Block, Document, Section
from clinqa.embedding.shipped import minilm_folder
from clinqa.embedding.tokens import HFTokenCounter
from tiny_data import WordsPlusSpecial


def sentence(i: int) -> str:
    # 8 words each
    return f"S{i} alpha beta gamma delta epsilon zeta end."


def make_doc() -> Document:
    short = [Block(text=f"P{i} one two three four") for i in range(1, 5)]  # 5 words each
    long_para = Block(text=" ".join(sentence(i) for i in range(1, 7)))  # 6 sentences, 48 words
    return Document(
        doc_id="d1",
        title="Doc",
        year=2020,
        source="test",
        topics=["t1"],
        abstract="An abstract.",
        sections=[
            Section(title="Short", blocks=short),
            Section(title="Long", blocks=[long_para], children=[Section(title="Child", blocks=[Block(text="C1 x y")])]),
        ],
    )


def test_exact_chunks_merge_and_windows() -> None:
    # header "Doc > Short" = 3 words; max 30 tokens -> body budget 30-2-3 = 25; target 20 -> 15
    ch = HierarchicalChunker(WordsPlusSpecial(), max_tokens=30, target_tokens=20, overlap_sentences=2)
    chunks = ch.chunk(make_doc())
    sec = [c for c in chunks if c.hierarchy_level == "section"]
    bodies = [(c.section_path, c.body) for c in sec]
    assert bodies[0] == (["Short"], "P1 one two three four\n\nP2 one two three four\n\nP3 one two three four")
    assert bodies[1] == (["Short"], "P4 one two three four")
    # 6 sentences of 8 words, budget 25 -> 3 per window, advancing by 3 - 2 overlap = 1
    windows = [b for p, b in bodies if p == ["Long"]]
    assert windows == [
        " ".join(sentence(i) for i in (1, 2, 3)),
        " ".join(sentence(i) for i in (2, 3, 4)),
        " ".join(sentence(i) for i in (3, 4, 5)),
        " ".join(sentence(i) for i in (4, 5, 6)),
    ]
    assert all(c.split for c in sec if c.section_path == ["Long"])
    assert not any(c.split for c in sec if c.section_path == ["Short"])
    assert bodies[-1] == (["Long", "Child"], "C1 x y")
    # every chunk fits the limit, header included
    assert all(c.n_tokens <= 30 for c in sec)


def test_ids_headers_and_metadata() -> None:
    ch = HierarchicalChunker(WordsPlusSpecial(), max_tokens=30, target_tokens=20)
    chunks = ch.chunk(make_doc())
    assert chunks[0].hierarchy_level == "document"
    assert chunks[0].chunk_id == "d1#document#0"
    assert [c.chunk_id for c in chunks[1:3]] == ["d1#short#0", "d1#short#1"]
    assert chunks[-1].chunk_id == chunk_id("d1", ["Long", "Child"], 0) == "d1#long/child#0"
    assert chunks[1].text == "Doc > Short\n\n" + chunks[1].body
    for c in chunks:
        assert (c.year, c.source, c.topics, c.title) == (2020, "test", ["t1"], "Doc")
    again = ch.chunk(make_doc())
    assert [(c.chunk_id, c.content_hash) for c in again] == [(c.chunk_id, c.content_hash) for c in chunks]


def test_never_cuts_a_paragraph_that_fits() -> None:
    doc = make_doc()
    ch = HierarchicalChunker(WordsPlusSpecial(), max_tokens=30, target_tokens=20)
    blocks = {b.text for _, s in doc.walk() for b in s.blocks}
    for c in ch.chunk(doc):
        if c.hierarchy_level == "section" and not c.split:
            assert all(part in blocks for part in c.body.split("\n\n"))


def test_overview_cap_2000_words() -> None:
    doc = Document(doc_id="big", title="Big", abstract=" ".join(f"w{i}" for i in range(3000)),
                   sections=[Section(title="S", blocks=[Block(text="x y z")])])
    ov = HierarchicalChunker(WordsPlusSpecial(), max_tokens=256).chunk(doc)[0]
    assert ov.hierarchy_level == "document"
    assert ov.n_words == 2000
    # "Sections: S" takes 2 of the 2,000 words, so the abstract stops at its 1,998th word
    assert ov.body.split()[-1] == "w1997"


def test_paragraph_level_adds_one_chunk_per_block() -> None:
    ch = HierarchicalChunker(WordsPlusSpecial(), max_tokens=30, target_tokens=20, paragraph_level=True)
    paras = [c for c in ch.chunk(make_doc()) if c.hierarchy_level == "paragraph"]
    assert [c.body for c in paras if c.section_path == ["Short"]] == [f"P{i} one two three four" for i in range(1, 5)]


def test_real_tokenizer_counts_and_limit() -> None:
    counter = HFTokenCounter(minilm_folder() / "tokenizer.json")
    assert counter.special_tokens == 2
    assert counter.count("beta-blocker") == 2 + 4  # [CLS] beta - block ##er [SEP]
    long_text = " ".join(
        f"Sentence number {i} says that perioperative beta blockade needs careful titration." for i in range(60)
    )
    doc = Document(doc_id="r", title="Real", sections=[Section(title="A", blocks=[Block(text=long_text)])])
    chunks = HierarchicalChunker(counter, max_tokens=256).chunk(doc)
    sec = [c for c in chunks if c.hierarchy_level == "section"]
    assert len(sec) > 1 and all(c.split for c in sec)
    for c in sec:
        assert c.n_tokens == counter.count(c.text) <= 256
    # consecutive windows share exactly two sentences
    first, second = split_sentences(sec[0].body), split_sentences(sec[1].body)
    assert first[-2:] == second[:2]


def test_lead_in_stays_with_what_it_introduces() -> None:
    # header "Doc > S" = 3 words; target 20 -> body 15; max 40 -> body 35
    lead = Block(text="Staged by the following criteria:")  # 5 words
    table = Block(text="| a | b | c | d | e | f | g | h | i | j | k | l |", kind="table")  # 13 "words"
    doc = Document(doc_id="d", title="Doc", sections=[Section(title="S", blocks=[lead, table])])
    sec = [c for c in HierarchicalChunker(WordsPlusSpecial(), max_tokens=40, target_tokens=20).chunk(doc)
           if c.hierarchy_level == "section"]
    assert [c.body for c in sec] == [lead.text + "\n\n" + table.text]
    # without the colon the two blocks exceed the target and stay apart
    doc.sections[0].blocks[0] = Block(text="Staged by the following criteria.")
    sec = [c for c in HierarchicalChunker(WordsPlusSpecial(), max_tokens=40, target_tokens=20).chunk(doc)
           if c.hierarchy_level == "section"]
    assert len(sec) == 2


def test_ids_unique_when_titles_collide() -> None:
    doc = Document(doc_id="d", title="D", sections=[Section(title="Age", children=[
        Section(title="Age >= 75 years", blocks=[Block(text="older")]),
        Section(title="Age < 75 years", blocks=[Block(text="younger")]),
        Section(title="Age < 75 years", blocks=[Block(text="same title again")]),
    ])])
    ids = [c.chunk_id for c in HierarchicalChunker(WordsPlusSpecial(), max_tokens=64).chunk(doc)][1:]
    assert ids == ["d#age/age-ge-75-years#0", "d#age/age-lt-75-years#0", "d#age/age-lt-75-years#0~2"]


def test_lead_in_keeps_its_list_run() -> None:
    # header "Doc > S" = 3 words; target 20 -> body 15; max 40 -> body 35
    men = Block(text="Men:")
    items = [Block(text=f"- rule {i} applies here", kind="list") for i in range(1, 6)]  # 5 words each
    women = Block(text="Women:")
    w_items = [Block(text=f"- other {i} applies here", kind="list") for i in range(1, 3)]
    doc = Document(doc_id="d", title="Doc", sections=[Section(title="S", blocks=[men, *items, women, *w_items])])
    sec = [c.body for c in HierarchicalChunker(WordsPlusSpecial(), max_tokens=40, target_tokens=20).chunk(doc)
           if c.hierarchy_level == "section"]
    # "Men:" (1) + 5 items (25) = 26 <= 35: the whole run stays together past the 15-word target
    assert sec[0] == "\n\n".join(b.text for b in [men, *items])
    assert sec[1] == "\n\n".join(b.text for b in [women, *w_items])
