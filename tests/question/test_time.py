from dataclasses import FrozenInstanceError
from datetime import date

import pytest

from clinqa.question.time import TimeIntent, parse_time_intent

TODAY = date(2026, 11, 29)

# (question, year_min, year_max, recency, phrase), all worked out by hand for TODAY.
CASES = [
    # lower bounds
    ("What do guidelines since 2021 say about heart failure?", 2021, None, False, "since 2021"),
    ("Summarise COPD recommendations from 2021.", 2021, None, False, "from 2021"),
    ("Which statin trials were published after 2020?", 2021, None, False, "after 2020"),
    ("Show me sepsis guidance from 2022 onwards", 2022, None, False, "from 2022 onwards"),
    ("Any DOAC reversal studies 2021 or later?", 2021, None, False, "2021 or later"),
    ("Are there guidelines newer than 2020 on CKD?", 2021, None, False, "newer than 2020"),
    ("What has been recommended for bronchiolitis as of 2024?", 2024, None, False, "as of 2024"),
    # upper bounds
    ("What did stroke guidance say before 2019?", None, 2018, False, "before 2019"),
    ("What was recommended for AF up to 2019?", None, 2019, False, "up to 2019"),
    ("Hypertension targets in guidance prior to 2017", None, 2016, False, "prior to 2017"),
    ("Were pre-2019 guidelines stricter on aspirin?", None, 2018, False, "pre-2019"),
    ("Asthma guidance until 2018 on LABA monotherapy", None, 2018, False, "until 2018"),
    # one year
    ("What did the 2023 note say about anticoagulation?", 2023, 2023, False, "the 2023 note"),
    ("What changed in 2023 for gestational diabetes screening?", 2023, 2023, False, "in 2023"),
    ("What does the 2019 ESC guideline say about rate control?", 2019, 2019, False, "the 2019 ESC guideline"),
    ("Summarise the NICE 2019 update on hypertension", 2019, 2019, False, "2019 update"),
    ("What was documented during March 2024 about her INR?", 2024, 2024, False, "during March 2024"),
    ("What did the cardiology letter say last year?", 2025, 2025, False, "last year"),
    ("Which vaccines were recommended this year?", 2026, 2026, False, "this year"),
    # ranges
    ("Which AF guidance was published between 2019 and 2021?", 2019, 2021, False, "between 2019 and 2021"),
    ("Heart failure trials from 2015 to 2020", 2015, 2020, False, "from 2015 to 2020"),
    ("Compare the 2015-2020 sepsis bundles", 2015, 2020, False, "2015-2020"),
    ("Diabetes guidance 2015–2020 on metformin", 2015, 2020, False, "2015–2020"),
    # rolling periods
    ("How has asthma treatment changed over the last five years?", 2021, None, False, "over the last five years"),
    ("What is new in AF management in the past decade?", 2016, None, False, "in the past decade"),
    ("Any new anticoagulants in the last 3 years?", 2023, None, False, "in the last 3 years"),
    ("What did the notes record over the past 18 months?", 2025, None, False, "over the past 18 months"),
    ("Lipid guidance within the last couple of years", 2024, None, False, "within the last couple of years"),
    ("What have COPD trials shown over the past two decades?", 2006, None, False, "over the past two decades"),
    ("Any changes in the past year to sepsis fluids?", 2025, None, False, "in the past year"),
    # recency
    ("What is the latest recommendation for sepsis fluids?", None, None, True, "latest"),
    ("What is the current first-line therapy for hypertension?", None, None, True, "current"),
    ("What is currently recommended for bronchiolitis?", None, None, True, "currently recommended"),
    ("Give me the most recent guidance on DKA", None, None, True, "most recent"),
    ("Is this advice on asthma inhalers up-to-date?", None, None, True, "up-to-date"),
    ("How is AF anticoagulation managed now?", None, None, True, "now"),
    ("What is the latest guideline since 2020 on heart failure?", 2020, None, True, "latest; since 2020"),
    # what the patient takes now, and the last of a value (issue 50's notes set: "pt still on metformin?")
    ("pt still on metformin?", None, None, True, "still on"),
    ("is she still taking metformin", None, None, True, "is she still taking"),
    ("what antiplatelet is he on", None, None, True, "is he on"),
    ("last Cr?", None, None, True, "last"),
    ("last lamotrigine level", None, None, True, "last"),
    ("IV antibiotics as a last resort?", None, None, False, ""),
    ("Any admissions in the last 3 months?", 2026, None, False, "in the last 3 months"),
    # several expressions
    ("Trials published after 2018 and before 2022", 2019, 2021, False, "after 2018; before 2022"),
    ("Compare the 2019 and 2021 guidelines", 2019, 2021, False, "the 2019; 2021 guidelines"),
    ("Guidance since 2022, not before 2019", 2022, None, False, "since 2022"),
    # not years / no time intent
    ("Dose of heparin 5000 units before surgery?", None, None, False, ""),
    ("Give up to 2000 mg daily in divided doses?", None, None, False, ""),
    ("A trial in 2000 patients showed benefit", None, None, False, ""),
    ("What is the CHA2DS2-VASc threshold for anticoagulation?", None, None, False, ""),
    ("Vitamin D 2000 units daily for deficiency", None, None, False, ""),
    ("Is the 2028 guideline out?", None, None, False, ""),
    ("What does the guideline say about metformin in CKD?", None, None, False, ""),
    ("", None, None, False, ""),
]


@pytest.mark.parametrize(("question", "year_min", "year_max", "recency", "phrase"), CASES)
def test_parse_time_intent(
    question: str, year_min: int | None, year_max: int | None, recency: bool, phrase: str
) -> None:
    got = parse_time_intent(question, TODAY)
    assert got == TimeIntent(year_min=year_min, year_max=year_max, recency=recency, phrase=phrase)


def test_bare_phrases() -> None:
    assert parse_time_intent("before 2019", TODAY) == TimeIntent(None, 2018, False, "before 2019")
    assert parse_time_intent("in the past decade", TODAY) == TimeIntent(2016, None, False, "in the past decade")
    assert parse_time_intent("last year", TODAY) == TimeIntent(2025, 2025, False, "last year")
    assert parse_time_intent("LATEST", TODAY) == TimeIntent(None, None, True, "LATEST")


def test_year_validity_depends_on_today() -> None:
    assert parse_time_intent("the 2027 guideline", TODAY).year_min == 2027  # today.year + 1 is allowed
    assert parse_time_intent("the 2027 guideline", date(2020, 1, 1)).is_empty()
    assert parse_time_intent("guidelines since 1899", TODAY).is_empty()
    assert parse_time_intent("guidelines since ٢٠٢١", TODAY).is_empty()  # ASCII digits only
    assert parse_time_intent("over the last five years", date(2020, 6, 1)).year_min == 2015


ODD_INPUTS = ["   ", "2021", "((since [2021", "x" * 10_000 + " since 2021", "\x00\n\t", "é 🫀 since ٢٠٢١", "9999-0000"]


@pytest.mark.parametrize("text", ODD_INPUTS)
def test_never_raises(text: str) -> None:
    assert isinstance(parse_time_intent(text, TODAY), TimeIntent)


def test_describe() -> None:
    since = parse_time_intent("since 2021", TODAY)
    assert since.describe(TODAY) == "years 2021-2026 (from 'since 2021')"
    assert since.describe() == "years 2021 onwards (from 'since 2021')"
    assert parse_time_intent("in 2023", TODAY).describe() == "year 2023 (from 'in 2023')"
    assert parse_time_intent("before 2019", TODAY).describe() == "years up to 2018 (from 'before 2019')"
    between = parse_time_intent("between 2015 and 2020", TODAY)
    assert between.describe() == "years 2015-2020 (from 'between 2015 and 2020')"
    assert parse_time_intent("latest", TODAY).describe() == "most recent first (from 'latest')"
    assert parse_time_intent("latest guideline since 2020", TODAY).describe(TODAY) == (
        "years 2020-2026, most recent first (from 'latest; since 2020')"
    )
    assert TimeIntent().describe() == ""


def test_empty_dict_and_frozen() -> None:
    empty = parse_time_intent("What is the dose of amoxicillin?", TODAY, reference=True)
    assert empty == TimeIntent()
    assert empty.is_empty()
    assert not TimeIntent(recency=True).is_empty()
    assert not TimeIntent(year_max=2018).is_empty()
    assert parse_time_intent("since 2021", TODAY).to_dict() == {
        "year_min": 2021,
        "year_max": None,
        "recency": False,
        "phrase": "since 2021",
    }
    with pytest.raises(FrozenInstanceError):
        empty.year_min = 2020  # type: ignore[misc]


def test_a_year_in_the_askers_own_history_is_not_a_filter() -> None:
    today = date(2026, 12, 1)
    t = parse_time_intent("Could second hand smoke cause AMD? I was diagnosed with early AMD in 1982 when "
                          "ventilation was poor.", today)
    assert (t.year_min, t.year_max, t.phrase) == (None, None, "")
    t = parse_time_intent("My mother had a stroke in 2019. What is the tPA dose?", today)
    assert (t.year_min, t.year_max) == (None, None)
    # the same phrase in a question about the documents still filters
    t = parse_time_intent("What was the patient's metformin dose in 2023?", today)
    assert (t.year_min, t.year_max, t.phrase) == (2023, 2023, "in 2023")
    # and "since" is not narrative even in the first person
    t = parse_time_intent("What has changed since 2021 in my guidelines?", today)
    assert t.year_min == 2021


def test_a_persons_history_is_not_a_year_filter_for_reference_questions() -> None:
    q = "She fell last year; what is the fall risk assessment for older adults?"
    assert parse_time_intent(q, TODAY, reference=True) == TimeIntent()
    assert parse_time_intent(q, TODAY) == TimeIntent(2025, 2025, False, "last year")  # her notes: a note filter
    assert parse_time_intent("My patient had an MI in 2019. Which statin dose?", TODAY, reference=True) == TimeIntent()
    # no person in the sentence: the year of the documents
    assert parse_time_intent("What did guidelines from last year recommend?", TODAY, reference=True) == TimeIntent(
        2025, 2025, False, "from last year")
    assert parse_time_intent("What changed in 2023 for sepsis?", TODAY, reference=True) == TimeIntent(
        2023, 2023, False, "in 2023")
    # the rolling "past year" is a window of documents, whoever the sentence is about
    assert parse_time_intent("Has her treatment changed in the past year?", TODAY, reference=True).year_min == 2025


@pytest.mark.parametrize("question", ["pt on MTX for RA, flu jab today - hold MTX?",
                                      "Recently started on warfarin, can she fly?",
                                      "My patient is currently on apixaban - stop before a dental extraction?"])
def test_now_in_a_patients_story_sorts_nothing_by_date(question: str) -> None:
    """A new user: "flu jab today" made a reference question "most recent first". In a sentence about a patient
    that names no evidence, "today", "now", "recently" and "currently" date the story; a patient's own notes
    (reference False) and a sentence about no one ("How is AF anticoagulation managed now?") keep the recency."""
    assert parse_time_intent(question, TODAY, reference=True) == TimeIntent()
    assert parse_time_intent(question, TODAY).recency
    assert parse_time_intent("How is AF anticoagulation managed now?", TODAY, reference=True).recency
    assert parse_time_intent("Currently recommended statin for my patient?", TODAY, reference=True).recency


@pytest.mark.parametrize(("question", "years", "dates", "phrase"), [
    ("What happened on 2022-04-18?", (2022, 2022), ("2022-04-18", "2022-04-18"), "2022-04-18"),
    ("What was done at the visit on 18 April 2022?", (2022, 2022), ("2022-04-18", "2022-04-18"), "18 April 2022"),
    ("Plan on the 3rd of Feb 2021?", (2021, 2021), ("2021-02-03", "2021-02-03"), "3rd of Feb 2021"),
    ("What was the plan on April 18, 2022?", (2022, 2022), ("2022-04-18", "2022-04-18"), "April 18, 2022"),
    ("What changed since 2022-01-01?", (2022, None), ("2022-01-01", None), "since 2022-01-01"),
    ("What happened after 2022-12-31?", (2023, None), ("2023-01-01", None), "after 2022-12-31"),
    ("What happened before 1 March 2024?", (None, 2024), (None, "2024-02-29"), "before 1 March 2024"),
    ("Notes between 2021-02-10 and 2022-04-18?", (2021, 2022), ("2021-02-10", "2022-04-18"),
     "between 2021-02-10 and 2022-04-18"),
])
def test_whole_dates_bound_the_days_and_their_years(question: str, years: tuple, dates: tuple, phrase: str) -> None:
    t = parse_time_intent(question, TODAY)
    assert (t.year_min, t.year_max) == years
    assert (t.date_min, t.date_max) == dates
    assert t.phrase == phrase and t.has_dates


def test_impossible_or_slashed_dates_and_ranges_of_years_are_not_days() -> None:
    assert not parse_time_intent("What happened on 2022-13-40?", TODAY).has_dates
    assert not parse_time_intent("What happened on 04/05/2022?", TODAY).has_dates  # day-month or month-day?
    t = parse_time_intent("Dose changes in 2021-2022", TODAY)
    assert (t.year_min, t.year_max, t.has_dates) == (2021, 2022, False)
    assert parse_time_intent("What happened on 2022-04-18?", TODAY).describe(TODAY) == (
        "date 2022-04-18 (from '2022-04-18')")
    assert parse_time_intent("since 2022-01-01", TODAY).to_dict() == {
        "year_min": 2022, "year_max": None, "recency": False, "phrase": "since 2022-01-01", "date_min": "2022-01-01"}


def test_an_impossible_date_is_reported_not_silently_dropped() -> None:
    t = parse_time_intent("What happened on 2022-02-30?", TODAY)
    assert (t.has_dates, t.year_min, t.invalid) == (False, None, "2022-02-30")
    assert t.to_dict()["invalid"] == "2022-02-30"
    assert "invalid" not in parse_time_intent("What happened on 2022-02-28?", TODAY).to_dict()


def test_the_last_visit_is_the_most_recent_note() -> None:
    """Third new-user helper: "What was the blood pressure at the last visit?" quoted the oldest note first."""
    t = parse_time_intent("What was the blood pressure at the last visit?", TODAY)
    assert (t.recency, t.year_min, t.phrase) == (True, None, "last visit")
    assert parse_time_intent("What happened last year?", TODAY).recency is False


def test_what_now_is_no_recency() -> None:
    """Found by a new user: "NEWS2 of 7, what now?" was read as "most recent first"."""
    from clinqa.question.time import parse_time_intent

    today = date(2026, 12, 4)
    assert not parse_time_intent("NEWS2 of 7, what now?", today).recency
    assert not parse_time_intent("now what?", today).recency
    assert parse_time_intent("What is now recommended for AF?", today).recency


def test_a_bare_year_is_the_notes_year_only_in_a_question_to_one_patient() -> None:
    """Issue 50's notes set: "2021 renal fx" and "eGFR 2020" asked of one patient's notes mean that year's notes; asked
    of the reference documents a bare year stays unread (a guideline is named "the 2019 ESC guideline")."""
    assert parse_time_intent("2021 renal fx", TODAY, reference=False).year_min == 2021
    t = parse_time_intent("eGFR 2020", TODAY, reference=False)
    assert (t.year_min, t.year_max, t.phrase) == (2020, 2020, "2020")
    assert parse_time_intent("2021 renal fx", TODAY, reference=True).year_min is None
    # not a part of a date, not a dose, not "in 1982" in the asker's own story
    assert parse_time_intent("What happened on 2022-02-30?", TODAY, reference=False).year_min is None
    assert parse_time_intent("heparin 5000 units", TODAY, reference=False).year_min is None
    assert parse_time_intent("I was diagnosed in 1982. Cr now?", TODAY, reference=False).year_min is None


def test_a_dose_asked_of_one_patient_with_no_time_is_the_dose_in_force() -> None:
    """Issue 50's notes sets: "xarelto dose" asked of one patient's notes means the dose now; a dose asked of the
    reference documents, or about a past event ("was started", "why was it reduced"), has no time."""
    t = parse_time_intent("xarelto dose", TODAY, reference=False)
    assert (t.recency, t.phrase) == (True, "dose")
    assert not parse_time_intent("what dose was warfarin started at", TODAY, reference=False).recency
    assert not parse_time_intent("why was the apixaban dose reduced", TODAY, reference=False).recency
    for question in ("xarelto dose", "HR still <60 despite compressions - adrenaline dose?",
                     "Is a dose of 2000 mg of paracetamol safe?"):
        assert parse_time_intent(question, TODAY, reference=True) == TimeIntent()
