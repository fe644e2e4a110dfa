"""Answerability: are the things the question asks about in the passages that would be quoted?

The dense gate (:mod:`clinqa.decision.threshold`) measures topic: "What dose of amoxicillin is used
for community-acquired pneumonia?" sits close enough to an asthma guideline to pass it, and the
answer then quotes the asthma dose. This test looks at *what* the question asks. Its key terms
are

- **abbreviations** typed in capitals ("CAP", "PE", "AKI"), however common the word is in English
  (not in a question typed all in capitals);
- **specific words**: content words that are rare in general English (Zipf frequency below
  ``max_zipf`` in the ``wordfreq`` lists, Speer et al. 2018): drugs, conditions, procedures,
  tests, abbreviations ("amoxicillin", "pneumonia", "qsofa", "hba1c"); words with a digit
  ("sglt2", "covid-19") always count;
- **population words** (:data:`clinqa.question.terms.POPULATIONS`), however common in English: children, pregnancy,
  renal impairment, older adults ... (a dose for adults is no answer for children);
- **quantities**: a number with its unit ("500 mg", "30 ml/min"): the number must appear.

Question scaffolding ("dose", "criteria", "first-line", :data:`SCAFFOLD`, also by stem: "defines")
and the stopwords of :mod:`clinqa.evidence.coverage` are never key, nor is a short abbreviation that
neither the corpus nor the synonym table knows, typed in lower case ("abx": no evidence either way;
"PERC", typed as an abbreviation, stays key). A key word the
corpus lacks is first repaired against the corpus vocabulary
(:meth:`clinqa.retrieval.vocabulary.Vocabulary.repair`), so a
typo is not a missing topic. Whether a passage *mentions* a key term, under any of its names, is
:mod:`clinqa.evidence.mentions`; this module says which missing term is decisive.

A key term that none of the quotable passages (the top ``answer.context_chunks`` chunks)
mentions makes the question unanswerable from them when it is decisive (:func:`is_decisive`:
populations, quantities, abbreviations, words the corpus lacks, very specific words): the gate
refuses and names it; other missing terms only add a warning.
Thresholds are calibrated on the refusal dev set together with the dense gate
(``clinqa eval refusal``; docs/benchmarks.md).

The rules are data (:mod:`clinqa.evidence.rules`): :data:`DECISIVE_RULES` (which missing term refuses) and
:data:`CHECK_RULES` (what :func:`judge` applies to the passages as a whole) list them by name, in order, each with
a worked example that ``tests/decision/test_rules.py`` runs; :func:`decisive_rule` names the rule that fired
(:data:`clinqa.evidence.mentions.MENTION_RULES` says what counts as a mention).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any

from clinqa.evidence.mentions import (
    PassageMentions,
    defined_otherwise,
    prevention_masked,
    searched_forms,
    without_scope_exclusions,
)
from clinqa.evidence.rules import Example, Golden, Rule, Step, decide, which
from clinqa.question.terms import (
    NOT_ABBREVIATIONS,
    VERB_FORM,
    KeyTerm,
    TermsRead,
    alternatives,
    asked_sentence,
    default_rarity,
    in_vocabulary,
    shown_name,
)
from clinqa.retrieval.vocabulary import Vocabulary
from clinqa.text.words import CLINICAL_SUFFIX
from clinqa.text.zipf import zipf

if TYPE_CHECKING:
    from clinqa.decision.decisive_words import DecisiveModel
    from clinqa.settings import WordRarity


@dataclass
class Answerability:
    """The key terms of a question and which of them no quotable passage mentions.
    ``in_corpus`` says, per missing term, whether the corpus has it at all (vocabulary);
    ``complete_in`` is the index of the first passage that mentions every key term (None when none
    does or the question has no key term). ``focused``: the indices of the passages that mention every
    key term whose absence would be decisive (:func:`is_decisive`: the drug, condition, population,
    quantity or abbreviation asked about; or, when no passage does and the question is a story of
    several sentences, those of the sentence that asks: :func:`asked_sentence`), in passage order, or
    all but one of them when there are
    three or more (a scientific question names more than its answering sentence repeats: with no slack,
    4 of 200 BioASQ dev answers lost their exact answer); empty when the question has no such term or
    no passage qualifies. ``apart``: the decisive terms when there are two or more, every key term is
    mentioned by some passage, no passage qualifies for ``focused`` and the question asks what to give
    or aim for (:data:`TREATMENT_QUESTION`) or one of the decisive terms is a population: the passages speak
    of each, never of them together (a neighbouring topic). ``covered``: per key term (its text), the
    indices of the passages that mention it or one of its alternatives ("dominant or recessive").
    ``prevented``: the missing terms (their text) that the passages name only as something to prevent, in a
    question about treating it
    (:func:`prevention_masked`). ``background``: in a question of several sentences, the key terms
    (their text) outside the sentence that asks (:func:`asked_sentence`), populations excepted: the
    patient's story; missing, they warn instead of refusing. ``decisive_below``: the Zipf cut of
    :func:`is_decisive` (``answer.rarity.decisive_below``; None: its default). ``searched``: per missing term
    (its text), the other forms the passages were searched for (:func:`clinqa.evidence.mentions.searched_forms`:
    plurals, spellings, the synonym table's equivalents; the term's own text and match left out); a term added after the
    test (:func:`clinqa.evidence.gather.with_unknown_compounds`) has none. The missing-term notes a language
    model is given list them (:func:`clinqa.decision.key_terms.missing_notes`). ``familiar``: the one decisive missing
    term, when it is a capital abbreviation the corpus uses in several chunks and the passages name the question's
    other terms (:func:`familiar_abbreviations`): missing, it warns instead of refusing."""

    key_terms: list[KeyTerm] = field(default_factory=list)
    missing: list[KeyTerm] = field(default_factory=list)
    in_corpus: dict[str, bool] = field(default_factory=dict)
    complete_in: int | None = None
    focused: list[int] = field(default_factory=list)
    apart: list[str] = field(default_factory=list)
    covered: dict[str, list[int]] = field(default_factory=dict)
    prevented: list[str] = field(default_factory=list)
    background: list[str] = field(default_factory=list)
    decisive_below: float | None = None
    learned: dict[str, float] | None = None
    learned_threshold: float = 0.5
    answer_score: float | None = None
    searched: dict[str, list[str]] = field(default_factory=dict)
    familiar: list[str] = field(default_factory=list)

    @property
    def decisive(self) -> list[KeyTerm]:
        """The missing terms that make the question unanswerable from these passages (see
        :func:`is_decisive`); the others only warrant a warning. When the passages mention **none** of the
        question's key terms, every one of them is decisive, even the kind of thing asked for: "What
        injuries did the patient have from the fall?" is not answered from a note that never mentions an
        injury (the key-term test found only "injuries"; "fall" is common English). With ``learned`` (the
        decisive-word model's probability per missing term, :mod:`clinqa.decision.decisive_words`) a term is
        decisive when it reaches ``learned_threshold``, instead of by :func:`is_decisive`'s rules."""
        if self.learned is not None:
            out = [t for t in self.missing if self.learned.get(t.text, 0.0) >= self.learned_threshold
                   and t.text not in self.background and t.text not in self.familiar]
        else:
            out = [t for t in self.missing if is_decisive(t, self.in_corpus.get(t.text, False), self.decisive_below)
                   and t.text not in self.background and t.text not in self.familiar]
        if not out and self.missing and len(self.missing) == len(self.key_terms):
            return list(self.missing)
        return out

    @property
    def answerable(self) -> bool:
        """True when no missing key term is decisive."""
        return not self.decisive

    def decisive_names(self) -> list[str]:
        """The decisive missing terms as the user typed them (an abbreviation keeps its capitals: "QXR")."""
        return [shown_name(t) for t in self.decisive]

    def missing_names(self) -> list[str]:
        """The missing terms as the user typed them (an abbreviation keeps its capitals)."""
        return [shown_name(t) for t in self.missing]

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready dict (the ``answerability`` field of ``--json``)."""
        out = {"key_terms": [t.to_dict() for t in self.key_terms], "missing": self.missing_names(),
               "decisive": self.decisive_names(), "in_corpus": dict(self.in_corpus), "complete_in": self.complete_in}
        if self.learned is not None:
            out["decisive_probability"] = {k: round(v, 4) for k, v in self.learned.items()}
        if self.answer_score is not None:
            out["answer_model_score"] = round(self.answer_score, 4)
        return out


def judge(found: PassageMentions, profile: TermsRead, vocabulary: Vocabulary | None = None,
          rarity: WordRarity | None = None, decider: DecisiveModel | None = None) -> Answerability:
    """The key-term test's judgement of ``found`` (which of the question's key terms each passage mentions,
    :func:`clinqa.evidence.mentions.passage_mentions` of ``profile``, the question read with its key terms): which
    missing term the corpus has (``vocabulary``; None: every one), which is decisive (:func:`is_decisive` with
    ``rarity``'s cut, or the ``decider`` model), which passages to focus on, which terms are the story's
    background and which decisive terms the passages name only apart. :func:`clinqa.key_term_test.check` is
    :func:`passage_mentions` then this; gathering (:class:`clinqa.evidence.gather.KeyTermTest`) is handed it
    (``Stages.judge``). Pure function
    of its inputs."""
    terms, texts, alternatives, prevented = found.terms, found.texts, found.alternatives, found.prevented
    equivalents, missing, covers = found.equivalents, found.missing, found.covers
    n_passages = len(texts)
    in_corpus = {t.text: vocabulary is None or in_vocabulary(t, vocabulary) for t in missing}
    learned = None
    if decider is not None:
        from clinqa.decision.decisive_words import PassageWords
        from clinqa.decision.decisive_words import features as word_features

        words_in = PassageWords.of(texts)
        rows = [word_features(t, in_corpus[t.text], vocabulary, words_in, len(terms), len(missing)) for t in missing]
        learned = {t.text: float(p) for t, p in zip(missing, decider.prob(rows), strict=True)}
    complete = [j for j in range(n_passages) if covers(j, found.by_text)] if terms else []
    decisive: list[str] = []
    below = rarity.decisive_below if rarity is not None else None
    focal: list[str] = []
    for t in terms:  # alternatives ("colchicine or ibuprofen") are one thing asked about
        if is_decisive(t, True, below) and not alternatives.get(t.text, set()) & set(decisive):
            decisive.append(t.text)
        # which passages to focus on is read without the lexicon's judgement: a vignette's "lactate 4.5" does
        # not refuse when missing, but a passage that names it is still the closer one
        if is_decisive(replace(t, lexical=""), True, below) and not alternatives.get(t.text, set()) & set(focal):
            focal.append(t.text)
    slack = 0 if len(focal) <= 2 else 1  # see Answerability.focused
    groups = {t.text for t in terms if t.kind == "population"}

    def focus(names: list[str], slack: int) -> list[int]:
        # a population is never the term a passage may lack: the statin dose table does not answer "... for
        # a pregnant woman with high LDL" (new-user helper; the corpus says statins are contraindicated)
        return [j for j in range(n_passages) if covers(j, [t for t in names if t in groups])
                and sum(not covers(j, [t]) for t in names if t not in groups) <= slack]

    focused = focus(focal, slack) if focal else []
    asked = profile.asked_sentence
    background: list[str] = []
    if decisive and asked:
        # a vignette ("... type 2 diabetes on metformin ... What dose of apixaban should she be on?"): the
        # story's drugs, conditions and numbers are background (a population stays decisive wherever it
        # is); they only warn when missing, and the sentence that asks says what must be answered
        low = asked.lower()
        own = [t.text for t in terms if t.text in decisive and (t.kind == "population" or any(
            re.search(r"(?<![\w-])" + re.escape(f.lower()) + r"(?![\w-])", low) for f in (t.text, t.typed) if f))]
        # the sentence that asks must name something itself: "Renal colic from a 6mm stone, tamsulosin for
        # expulsive therapy? dose?" asks "dose?" of the story, whose population word ("renal") alone would
        # otherwise make the drug and the condition background
        asks_own = any(t.kind != "population" for t in terms if t.text in own)
        if own and asks_own and len(own) < len(decisive):
            background = [t for t in decisive if t not in own]
            decisive = own
            if not focused:  # no passage names every drug and condition of the story
                focused = focus(own, 0 if len(own) <= 2 else 1)
    story = [t.text for t in terms if t.text in background or (
        background and t.text not in decisive and not is_decisive(t, True, below))]
    # the one decisive term missing, an abbreviation the corpus uses often, beside named terms: it warns
    familiar = familiar_abbreviations(terms, missing, in_corpus, story, vocabulary, below, profile.asked_of)
    # each decisive term is in some passage, but no passage has them together: a neighbouring topic
    # (magnesium sulfate for asthma, prophylaxis of seizures in brain injury, for "magnesium sulfate
    # for seizure prophylaxis in preeclampsia"); only for what a clinician acts on (a dose, a regimen, a
    # treatment, a target): on BioASQ dev it refused 3 scientific questions, 2 answered right before; and
    # whatever is asked, when a decisive term is a population: "Is allopurinol safe in pregnancy?" is not
    # answered by asthma drugs that are safe in pregnancy beside allopurinol for gout (found by a new user;
    # no answer of the clinician, held-out, vignette, BioASQ, notes or refusal sets changed)
    # a familiar abbreviation the passages lack does not hide that they name the rest only apart ("20 wks pregnant
    # (COPD, CAP)": pregnancy in one passage, CAP in another)
    populations = {t.text for t in terms if t.kind == "population"}
    lacking = [t for t in missing if t.text not in familiar]
    named = [d for d in decisive if d not in familiar]
    apart = named if (len(named) >= 2 and not focused and not lacking
                      and (profile.treatment or bool(populations & set(named)))) else []
    covered = {t.text: [j for j in range(n_passages) if covers(j, [t.text])] for t in terms}
    return Answerability(terms, missing, in_corpus, complete[0] if complete else None, focused, apart, covered,
                         [t.text for t in missing if t.text in prevented], story,
                         below, learned, decider.threshold if decider is not None else 0.5,
                         searched={t.text: searched_forms(t, equivalents) for t in missing}, familiar=familiar)


#: a capital abbreviation the corpus writes in at least this many chunks is one of its own terms
#: (:func:`familiar_abbreviations`)
FAMILIAR_CHUNKS = 3


def familiar_abbreviations(terms: Sequence[KeyTerm], missing: Sequence[KeyTerm], in_corpus: dict[str, bool],
                           background: Sequence[str], vocabulary: Vocabulary | None,
                           below: float | None = None, asked_of: frozenset[str] = frozenset()) -> list[str]:
    """The text of the one decisive missing term (by :func:`is_decisive`, the story's ``background`` left out)
    when it is a capital abbreviation (rule ``capital_abbreviation``) that the corpus (``vocabulary``) writes in
    :data:`FAMILIAR_CHUNKS` chunks or more, is not what the question asks a dose, target, cut-off or criteria of
    (``asked_of``, :attr:`clinqa.question.terms.TermsRead.asked_of`: "SBP ceiling", "RR cutoff"), and the passages
    name two or more of the question's other key terms (``terms`` less ``missing``); else ``[]`` (also without a
    vocabulary). Such a term warns instead of refusing (:attr:`Answerability.decisive` leaves it out): the corpus
    uses the abbreviation as a word of its own, and passages that name the rest of the question and lack it state
    the setting or comorbidity in other words ("COPD" under "chronic lung disease" in a list of comorbidities;
    "ICU", "ED", "SBP" in a passage about the same patients). An abbreviation the corpus lacks or writes once
    ("PERC", "AHI", "TXA") still refuses, and so does one missing beside another decisive term. Chosen on the dev
    halves (docs/benchmarks.md, issue 50, eleventh pass)."""
    if vocabulary is None:
        return []
    lacking = [t for t in missing if t.text not in background and is_decisive(t, in_corpus.get(t.text, False), below)]
    if len(lacking) != 1 or sum(t not in missing for t in terms) < 2:
        return []
    t = lacking[0]
    if (t.kind != "specific" or _capital_abbreviation(DecisiveCase(t, True)) is not True
            or t.match.lower() in asked_of):
        return []
    return [t.text] if vocabulary.count(t.match.lower()) >= FAMILIAR_CHUNKS else []


#: the rules :func:`judge` applies to the question and its passages as a whole, in the order it applies them
#: (its code applies them inline; this table names, documents and tests them: tests/decision/test_rules.py).
CHECK_RULES: tuple[Step, ...] = (
    Step("scope_exclusion",
         "A sentence or list line saying the document does not cover something (SCOPE_EXCLUSION: 'not "
         "covered in this guideline') is dropped before any test: a term named only there is not answered.",
         without_scope_exclusions,
         Example("How is Kawasaki disease treated in children?",
                 ("Kawasaki disease is not covered in this guideline. Fever in children is common.",),
                 "missing", ("kawasaki",), masked=True)),
    Step("defined_otherwise",
         "A passage that defines the question's capital abbreviation as something other than the synonym "
         "table's expansions, and names none of them, does not mention it: 'CAP (Controlled Attenuation "
         "Parameter)' is not community-acquired pneumonia.",
         defined_otherwise,
         Example("What is the first-line antibiotic for CAP?",
                 ("CAP (Controlled Attenuation Parameter) measured by FibroScan was 280 dB/m. Antibiotic choice "
                  "depends on the organism.",), "missing", ("cap",), masked=True)),
    Step("prevention_frame",
         "In a question about treating something (TREATMENT_QUESTION, not PREVENTION_QUESTION), a passage that "
         "names it only as something to prevent (_PREVENTION_FRAME: 'to reduce the incidence of') does not "
         "mention it (prevention_masked); such terms are listed as prevented.",
         prevention_masked,
         Example("What is the treatment for ventilator-associated pneumonia?",
                 ("Early enteral feeding is used to reduce the incidence of ventilator-associated pneumonia.",),
                 "prevented", ("ventilator-associated", "pneumonia"), masked=True)),
    Step("alternatives",
         "Key terms the question offers as alternatives ('heterozygous or homozygous') are one thing asked "
         "about: a passage with one of them suffices (alternatives, read once with the key terms).",
         alternatives,
         Example("Were the patients heterozygous or homozygous for the mutation?",
                 ("All patients were heterozygous for the mutation.",), "missing", (), absent=("homozygous",))),
    Step("background_of_story",
         "In a question of several sentences, the decisive terms outside the sentence that asks "
         "(asked_sentence), populations excepted, are the patient's story: missing, they warn instead of "
         "refusing.",
         asked_sentence,
         Example("My mum is 82 and has atrial fibrillation and takes metformin. What dose of apixaban should "
                 "she be on?",
                 ("Apixaban 5 mg twice daily is used for atrial fibrillation; 2.5 mg twice daily if two of age 80 "
                  "or older, weight 60 kg or less.",), "background", ("atrial", "fibrillation", "metformin"))),
    Step("familiar_abbreviation",
         "The one decisive term missing, a capital abbreviation the corpus writes in FAMILIAR_CHUNKS chunks or more, "
         "when the passages name two or more of the question's other key terms, is a setting or comorbidity they "
         "state in other words ('COPD' in a list of 'chronic heart, lung, liver or renal disease'): missing, it warns "
         "instead of refusing (familiar_abbreviations). One the corpus lacks or writes once still refuses.",
         familiar_abbreviations,
         Example("Outpatient CAP in a patient with COPD - empiric antibiotics?",
                 ("Outpatients with CAP and chronic heart, lung, liver or renal disease: empiric antibiotics are "
                  "amoxicillin-clavulanate plus a macrolide.",), "familiar", ("copd",),
                 corpus=("COPD exacerbations are treated with prednisolone.", "Inhaled therapy in COPD.",
                         "Pulmonary rehabilitation for COPD.", "Outpatients with CAP and chronic lung disease."))),
    Step("treatment_apart",
         "In a question about what to give or aim for (TREATMENT_QUESTION), two or more decisive terms each "
         "mentioned by some passage but by none together are a neighbouring topic (Answerability.apart): "
         "magnesium sulfate for asthma does not answer magnesium sulfate in preeclampsia.",
         None,
         Example("What is the dose of magnesium sulfate in preeclampsia?",
                 ("Magnesium sulfate 2 g IV is given for acute severe asthma.",
                  "Preeclampsia is managed by planned delivery."), "apart", ("magnesium sulfate", "preeclampsia"))),
    Step("population_apart",
         "Whatever is asked, two or more decisive terms of which one is a population (pregnancy, children ...), "
         "each mentioned by some passage but by none together, are a neighbouring topic too (Answerability.apart): "
         "asthma drugs safe in pregnancy beside allopurinol for gout do not answer allopurinol in pregnancy.",
         None,
         Example("Is allopurinol safe in pregnancy?",
                 ("Allopurinol is started at 100 mg daily and titrated to the urate target.",
                  "Inhaled corticosteroids are considered safe during pregnancy."), "apart",
                 ("allopurinol", "pregnancy"))),
)


#: adverbs ("preferentially", "significantly", "reversibly") say how, not what: never decisive by rarity
_ADVERB = re.compile(r"(?:ally|ively|ently|antly|ously|ably|ibly|edly|ingly|arly)$")


def is_decisive(term: KeyTerm, in_corpus: bool, below: float | None = None) -> bool:
    """Does missing ``term`` make the question unanswerable? Always for a population, a quantity,
    a synonym-table phrase and a capital abbreviation; for a word the corpus lacks altogether ("The
    documents do not mention amoxicillin"); and for a word the corpus has elsewhere only when it is
    very specific (wordfreq Zipf < ``below``, ``answer.rarity.decisive_below``, 3.0 by default: a drug or
    condition, "dexamethasone") and not a verb form (by its
    ending, or a verb the corpus inflects: :attr:`KeyTerm.verb`) or an adverb ("preferentially"), or
    carries a clinical suffix (-itis, -osis, -aemia, -pathy, -ectomy ...: "meningitis", "hepatitis").
    Measured on BioASQ dev: scientific questions are full of general academic words (Zipf 3-4:
    "characteristic", "manifestations", "molecule") that the answering snippet need not repeat.
    The rules are those of :data:`DECISIVE_RULES`, tried in order; the first that decides wins."""
    return decide(DECISIVE_RULES, DecisiveCase(term, in_corpus,
                                               default_rarity().decisive_below if below is None else below))


@dataclass(frozen=True)
class DecisiveCase:
    """What a decisiveness rule looks at: the missing ``term``, whether the corpus has it (``in_corpus``) and the
    general-English Zipf cut below which a word is specific (``below``: ``answer.rarity.decisive_below``)."""

    term: KeyTerm
    in_corpus: bool
    below: float = field(default_factory=lambda: default_rarity().decisive_below)


def _always_decisive_kind(c: DecisiveCase) -> bool | None:
    return True if c.term.kind in ("population", "quantity", "phrase") else None


def _capital_abbreviation(c: DecisiveCase) -> bool | None:
    typed = c.term.typed
    return True if typed.isupper() and len(typed) >= 2 and typed not in NOT_ABBREVIATIONS else None


def _common_verb_form(c: DecisiveCase) -> bool | None:
    return False if VERB_FORM.search(c.term.match) and zipf(c.term.match) >= c.below else None


def _rare_word(c: DecisiveCase) -> bool | None:
    m = c.term.match
    return zipf(m) < c.below and not VERB_FORM.search(m) and not c.term.verb and not _ADVERB.search(m)


#: the rules of :func:`is_decisive`, in the order they are tried; the first that decides (True: decisive,
#: False: only a warning) wins, None passes to the next. The order matters: what a missing term *is*
#: (population, quantity, phrase, abbreviation, the dosed drug) decides before how it is used (the kind of
#: answer asked for, a verb form of the question's frame), and both before what the corpus says of it (not
#: in it at all) and the word's own shape (a modifier, a clinical suffix, rarity in English), which only
#: apply to a plain specific word; ``rare_word`` closes the table and always decides.
DECISIVE_RULES: tuple[Rule[DecisiveCase], ...] = (
    Rule("vignette_number",
         "A number with its unit that the patient's story gives (a weight anywhere; any number before the "
         "question's last clause break: '72 kg man, stroke 2 h ago - alteplase dose?'), or a thing the question "
         "gives a value ('RR 22', 'eGFR 48'), is the patient's story: missing, it warns. A number in a one-clause "
         "question ('Can the cough persist for 8 weeks?') is asked of and stays decisive. A number still selects "
         "the band or row of a table or heading that holds it (quantity_within_stated_bound). Only with the "
         "lexicon (answer.lexicon); issue 49.",
         lambda c: False if c.term.lexical == "context" else None,
         Golden(KeyTerm("92 kg", "quantity", "92", lexical="context"), expected=False)),
    Rule("ward_shorthand",
         "Dosing or ward shorthand (the lexicon's curated table: 'QDS', 'nocte', 'PRN', 'outpt') says how or "
         "where, not what about: missing, it warns, also typed in capitals.",
         lambda c: False if c.term.lexical == "shorthand" else None,
         Golden(KeyTerm("qds", "specific", "qds", typed="QDS", lexical="shorthand"), expected=False)),
    Rule("population_quantity_phrase",
         "A population, a quantity or a synonym-table phrase is always decisive (a dose for adults is no "
         "answer for children).",
         _always_decisive_kind,
         Golden(KeyTerm("children", "population", "children", typed="children"), expected=True)),
    Rule("capital_abbreviation",
         "An abbreviation typed in capitals (2+ letters, not in NOT_ABBREVIATIONS) is decisive: 'CAP', 'PE'.",
         _capital_abbreviation,
         Golden(KeyTerm("cap", "specific", "cap", typed="CAP"), expected=True)),
    Rule("dosed_drug",
         "The thing whose dose is asked (dosed_words) is decisive, however common the word: 'What is the "
         "magnesium sulfate dose ...'.",
         lambda c: True if c.term.dosed else None,
         Golden(KeyTerm("magnesium", "specific", "magnesium", typed="magnesium", dosed=True), expected=True)),
    Rule("answer_type_word",
         "The kind of thing asked for (answer_type_words: 'which cell organelle') is never decisive: the "
         "passage names a member ('the nucleus').",
         lambda c: False if c.term.answer_type else None,
         Golden(KeyTerm("organelle", "specific", "organelle", typed="organelle", answer_type=True),
                in_corpus=False, expected=False)),
    Rule("ordinary_word",
         "A word the lexicon knows as ordinary English with no clinical sense in WordNet ('okay', 'chase', "
         "'hold') or as a typo of a common word ('recieve') frames the question: missing, it warns.",
         lambda c: False if c.term.lexical in ("ordinary", "typo") and not c.term.modifies else None,
         Golden(KeyTerm("okay", "specific", "okay", typed="okay", lexical="ordinary"), in_corpus=False,
                expected=False)),
    Rule("question_verb",
         "A word the corpus lacks, that the question uses as a verb (spaCy's tagger, read with the question: "
         "'stented yesterday', 'steping down', 'how soon should we be scoping?') and the lexicon knows no clinical "
         "sense of, is what is done, not what it is done to: missing, it warns. A drug or condition the tagger "
         "takes for a verb keeps its kind; a word the corpus has is judged by the corpus's own use of it (a small "
         "tagger takes 'How much IV crystalloid initially?' for a verb).",
         lambda c: False if (c.term.used_as_verb and not c.in_corpus and c.term.lexical in ("", "concrete")
                             and not c.term.modifies) else None,
         Golden(KeyTerm("scoping", "specific", "scoping", typed="scoping", used_as_verb=True), in_corpus=False,
                expected=False)),
    Rule("common_verb_form",
         "A word with a verb ending (-ed, -ing) of Zipf >= 3.0 is the question's frame ('weighing', "
         "'treated'), not decisive, even where a small corpus lacks the form.",
         _common_verb_form,
         Golden(KeyTerm("weighing", "specific", "weighing", typed="weighing"), in_corpus=False, expected=False)),
    Rule("not_in_corpus",
         "A word the corpus lacks altogether is decisive ('The documents do not mention amoxicillin').",
         lambda c: None if c.in_corpus else True,
         Golden(KeyTerm("amoxicillin", "specific", "amoxicillin", typed="amoxicillin"), in_corpus=False,
                expected=True)),
    Rule("modifier_of_condition",
         "A word that qualifies a condition or procedure word in the question (KeyTerm.modifies: 'cerebral' "
         "in 'cerebral venous sinus thrombosis') says which one: decisive.",
         lambda c: True if c.term.modifies else None,
         Golden(KeyTerm("cerebral", "specific", "cerebral", typed="cerebral", modifies="thrombosis"),
                expected=True)),
    Rule("clinical_suffix",
         "A word with a Greek or Latin suffix of conditions and procedures (CLINICAL_SUFFIX: -itis, -osis, "
         "-aemia, -pathy, -ectomy ...) names what is asked about: decisive ('meningitis', Zipf 3.1).",
         lambda c: True if CLINICAL_SUFFIX.search(c.term.match) else None,
         Golden(KeyTerm("meningitis", "specific", "meningitis", typed="meningitis"), expected=True)),
    Rule("rare_word",
         "Otherwise decisive when very specific (wordfreq Zipf < 3.0: 'dexamethasone') and not a verb form "
         "(ending, or KeyTerm.verb) or an adverb ('preferentially'); measured on BioASQ dev, where general "
         "academic words (Zipf 3-4) need not be repeated by the answering snippet.",
         _rare_word,
         Golden(KeyTerm("dexamethasone", "specific", "dexamethasone", typed="dexamethasone"), expected=True)),
)


def decisive_rule(term: KeyTerm, in_corpus: bool) -> str:
    """The name of the rule of :data:`DECISIVE_RULES` that decides :func:`is_decisive` for these arguments."""
    return which(DECISIVE_RULES, DecisiveCase(term, in_corpus)) or DECISIVE_RULES[-1].name


