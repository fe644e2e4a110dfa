"""What the pipeline asks of the store's documents besides search, each read once per store version:
whether any reference document carries a year, whether the store holds patient notes, a patient's notes."""

from __future__ import annotations

from typing import TYPE_CHECKING

from clinqa.store.filters import Filters

if TYPE_CHECKING:
    from clinqa.store.base import Store


class StoreFacts:
    """Facts about one store's documents, re-read when the store's version changes (an ingest or removal)."""

    def __init__(self, store: Store) -> None:
        """``store``: any :class:`clinqa.store.base.Store`."""
        self.store = store
        self._facts: tuple[int, bool, bool] | None = None  # (version, a reference year, patient notes)

    def _read(self) -> tuple[int, bool, bool]:
        version = self.store.version()
        if self._facts is None or self._facts[0] != version:
            docs = self.store.documents()
            self._facts = (version, any(d.get("year") is not None for d in docs if d.get("patient_id") is None),
                           any(d.get("patient_id") for d in docs))
        return self._facts

    def reference_has_years(self) -> bool:
        """Does any reference document (one of no patient) carry a year?"""
        return self._read()[1]

    def has_patient_notes(self) -> bool:
        """Does the store hold any patient's notes?"""
        return self._read()[2]

    def patient_notes(self, patient_id: str) -> dict[str, tuple[str, str]]:
        """``{doc_id: (note date ISO or "", note type or "")}`` of one patient's documents, read through the
        store's own patient filter (:meth:`Store.export`)."""
        t = self.store.export(["doc_id", "note_date", "note_type"], Filters(patient_id=patient_id, exclude_levels=()))
        return {d: (str(day or ""), kind or "") for d, day, kind in zip(
            t.column("doc_id").to_pylist(), t.column("note_date").to_pylist(), t.column("note_type").to_pylist(),
            strict=True)}
