"""API keys and patient scopes of the HTTP service.

Keys come from ``settings.service.api_keys``: each :class:`clinqa.settings.ApiKey` has a name
(shown in logs), the key (a literal, or ``"env:VAR"`` read from the environment once, when the app
is built) and the patient ids whose notes it may read (``["*"]``: every patient; ``[]``: none).
A request sends its key in the ``X-API-Key`` header; it is compared with every configured key in
constant time (:func:`hmac.compare_digest`, no early exit), so timing does not reveal a prefix.

- Keys configured, header missing or unknown: 401 (``WWW-Authenticate: API-Key``).
- No keys configured: every request is anonymous, with no patient scope at all (open access to
  guidelines and articles, never to notes).

A :class:`Principal` answers "may this request read patient P's notes?"; the routes turn a "no"
into 403 (:func:`Principal.require_patient`).
"""

from __future__ import annotations

import hmac
import os
from dataclasses import dataclass, field

from fastapi import HTTPException, Request, Security
from fastapi.security import APIKeyHeader

from clinqa.errors import ConfigError
from clinqa.settings import ApiKey

HEADER = "X-API-Key"

#: the OpenAPI security scheme; ``auto_error=False`` so a missing key is our 401, not FastAPI's 403
api_key_header = APIKeyHeader(name=HEADER, auto_error=False, description="API key from the service configuration "
                              "(service.api_keys). Not needed when no keys are configured.")


@dataclass(frozen=True)
class Principal:
    """Who is asking: the key's ``name`` (None when anonymous) and the patients it may read
    (``all_patients`` for a ``"*"`` scope)."""

    name: str | None
    patients: frozenset[str] = field(default_factory=frozenset)
    all_patients: bool = False

    def may_read(self, patient_id: str | None) -> bool:
        """True for ``None`` (documents that belong to no patient) and for patients in scope."""
        return patient_id is None or self.all_patients or patient_id in self.patients

    def require_patient(self, patient_id: str | None) -> None:
        """Raise HTTP 403 when this key may not read ``patient_id``'s notes. The message never names the
        patient (a response tells nothing about a patient outside the key's scope, not even its id)."""
        if not self.may_read(patient_id):
            raise HTTPException(403, self.out_of_scope())

    def out_of_scope(self, what: str = "the notes of that patient") -> str:
        """The 403 message of a patient outside the scope: ``"API key 'p1' may not read the notes of that patient
        (patient_id outside its scope)"``; the patient is never named."""
        who = f"API key {self.name!r}" if self.name else "anonymous access"
        return f"{who} may not read {what} (patient_id outside its scope)"

    def scope(self) -> list[str] | str:
        """``"*"`` or the sorted patient ids, for showing the scope (``GET /whoami``)."""
        return "*" if self.all_patients else sorted(self.patients)


ANONYMOUS = Principal(None)


def resolve_key(k: ApiKey) -> str:
    """The key's secret: the literal, or the value of ``VAR`` for ``"env:VAR"``. Raises
    :class:`ConfigError` when the variable is unset or empty."""
    if k.key.startswith("env:"):
        var = k.key[4:]
        value = os.environ.get(var, "")
        if not value:
            raise ConfigError(f"service.api_keys: key {k.name!r} reads environment variable {var!r}, which is not set")
        return value
    return k.key


class KeyRing:
    """The configured keys, resolved once. ``authenticate(header)`` -> :class:`Principal` or 401."""

    def __init__(self, keys: list[ApiKey]) -> None:
        """Resolve every key (``env:VAR`` included); raises :class:`ConfigError` for an unset
        variable or two keys with the same secret."""
        self._keys: list[tuple[bytes, Principal]] = []
        seen: set[bytes] = set()
        for k in keys:
            secret = resolve_key(k).encode("utf-8")
            if secret in seen:
                raise ConfigError(f"service.api_keys: key {k.name!r} has the same secret as another key")
            seen.add(secret)
            pats = frozenset(p for p in k.patients if p != "*")
            self._keys.append((secret, Principal(k.name, pats, "*" in k.patients)))

    @property
    def required(self) -> bool:
        """True when keys are configured (then every data route needs one)."""
        return bool(self._keys)

    def authenticate(self, presented: str | None) -> Principal:
        """The principal for the ``X-API-Key`` value ``presented``: anonymous when no keys are
        configured; HTTP 401 when keys are configured and it is missing or matches none."""
        if not self._keys:
            return ANONYMOUS
        if not presented:
            raise HTTPException(401, f"missing API key: send it in the {HEADER} header",
                                headers={"WWW-Authenticate": "API-Key"})
        given = presented.encode("utf-8")
        found: Principal | None = None
        for secret, principal in self._keys:  # no early exit: the time does not depend on which key matched
            if hmac.compare_digest(secret, given) and found is None:
                found = principal
        if found is None:
            raise HTTPException(401, "unknown API key", headers={"WWW-Authenticate": "API-Key"})
        return found


def principal(request: Request, key: str | None = Security(api_key_header)) -> Principal:
    """FastAPI dependency: the request's :class:`Principal` (401 as in :meth:`KeyRing.authenticate`)."""
    return request.app.state.service.keys.authenticate(key)
