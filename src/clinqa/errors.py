"""Errors with a message a user can act on."""

from __future__ import annotations


class ClinqaError(Exception):
    """Base class for every error clinqa raises on purpose."""


class LoadError(ClinqaError):
    """A file could not be loaded. ``str(err)`` is one line: ``"<path>: <reason>"``."""

    def __init__(self, path: object, reason: str) -> None:
        self.path = str(path)
        self.reason = reason
        super().__init__(f"{self.path}: {reason}")


class ConfigError(ClinqaError):
    """Settings or arguments that cannot work together."""
