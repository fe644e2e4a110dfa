"""Data and helpers of the service tests: a small real store of three Markdown guidelines (a registry
gives years and organisations) and notes of two patients, P1 and P2; API keys "all" (every patient),
"p1" (P1 only) and "none" (no patient)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from clinqa.pipeline import Pipeline
from clinqa.retrieval import Filters
from clinqa.settings import ApiKey, Settings

GUIDES = {
    "bronchitis.md": (
        "# Acute bronchitis\n\n## Course\n\n"
        "Acute bronchitis is an infection of the large airways that usually follows a common cold.\n\n"
        "Most patients recover fully without antibiotics. The cough may persist for 4 weeks after the infection.\n\n"
        "Sputum colour does not tell a bacterial infection from a viral one and should not guide treatment.\n\n"
        "## Treatment\n\n"
        "Antibiotics are not recommended for acute bronchitis in otherwise healthy adults.\n\n"
        "Offer a delayed antibiotic prescription only to patients at high risk of complications.\n"),
    "otitis.md": (
        "# Acute otitis media\n\n## Treatment\n\n"
        "Give amoxicillin 500 mg three times daily for 5 days to adults with acute otitis media.\n\n"
        "Penicillin-allergic patients can receive clarithromycin for 5 to 7 days.\n\n"
        "## Follow-up\n\nReview the ear if symptoms persist after 3 days of antibiotic treatment.\n"),
    "perioperative.md": (
        "# Perioperative cardiovascular care\n\n## Beta-blockers\n\n"
        "Beta-blockers should not be started on the day of surgery in beta-blocker naive patients.\n\n"
        "Patients already taking beta-blockers should continue them through surgery.\n\n"
        "## Anticoagulation\n\n"
        "Warfarin is usually stopped 5 days before elective surgery and bridging is rarely needed.\n"),
}
REGISTRY = {
    "bronchitis": {"title": "Acute bronchitis", "year": 2019, "organization": "NICE"},
    "otitis": {"title": "Acute otitis media", "year": 2016, "organization": "AAFP"},
    "perioperative": {"title": "Perioperative cardiovascular care", "year": 2014, "organization": "ACC/AHA"},
}
NOTES = [
    {"patient_id": "P1", "note_id": "N1", "date": "2023-02-01", "note_type": "progress", "author_role": "physician",
     "text": "HPI:\nPatient with new atrial fibrillation and palpitations for two weeks.\n\n"
             "MEDICATIONS:\nApixaban 5 mg twice daily was started for stroke prevention.\n\n"
             "PLAN:\nReview renal function in three months."},
    {"patient_id": "P1", "note_id": "N2", "date": "2024-05-10", "note_type": "progress", "author_role": "physician",
     "text": "HPI:\nAtrial fibrillation is rate controlled; no bleeding on apixaban.\n\n"
             "MEDICATIONS:\nApixaban 5 mg twice daily continued. Bisoprolol 2.5 mg daily.\n\n"
             "PLAN:\nContinue anticoagulation."},
    {"patient_id": "P2", "note_id": "N1", "date": "2022-09-14", "note_type": "progress", "author_role": "physician",
     "text": "HPI:\nPatient with atrial fibrillation and a mechanical mitral valve.\n\n"
             "MEDICATIONS:\nWarfarin was started with a target INR of 2.5 to 3.5 because of the mechanical valve.\n\n"
             "PLAN:\nINR clinic weekly."},
    {"patient_id": "P2", "note_id": "N2", "date": "2023-11-30", "note_type": "discharge",
     "author_role": "physician",
     "text": "HPI:\nAdmitted with a gastrointestinal bleed while on warfarin.\n\n"
             "MEDICATIONS:\nWarfarin was held for two days and restarted at a lower dose.\n\n"
             "PLAN:\nRepeat haemoglobin in one week."},
]
#: (name, secret, patients)
KEYS = {"all": ("key-all-0123456789", ["*"]), "p1": ("key-p1-0123456789", ["P1"]),
        "none": ("key-none-0123456789", [])}


def headers(name: str | None) -> dict[str, str]:
    """``X-API-Key`` header for the key called ``name`` (no header for None)."""
    return {} if name is None else {"X-API-Key": KEYS[name][0]}


def settings_for(data_dir: Path, keys: bool = True, **service: object) -> Settings:
    """Settings of the test store: small chunks (so sections have neighbours), the three keys."""
    api_keys = [ApiKey(name=n, key=k, patients=p) for n, (k, p) in KEYS.items()] if keys else []
    return Settings(data_dir=data_dir, chunking={"target_tokens": 40},
                    service={"api_keys": api_keys, "max_body_bytes": 4096, "max_question_chars": 300, **service})


def patient_chunk_ids(pipe: Pipeline, patient_id: str) -> list[str]:
    """Chunk ids of a patient's notes (section level)."""
    t = pipe.store.export(["chunk_id"], Filters(patient_id=patient_id))
    return t.column("chunk_id").to_pylist()


def ask_ok(client: Any, key: str, **body: object) -> dict[str, Any]:
    """``POST /ask`` with ``body`` and key ``key`` through the test ``client``; the response's JSON, asserting 200."""
    r = client.post("/ask", json=body, headers=headers(key))
    assert r.status_code == 200, r.text
    return r.json()
