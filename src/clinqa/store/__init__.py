"""Stores: the Store protocol and the embedded LanceDB implementation."""

from clinqa.store.base import Hit, Store
from clinqa.store.lancedb import LanceStore

__all__ = ["Hit", "LanceStore", "Store"]
