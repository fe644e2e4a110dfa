"""The chunk table's schema, derived once from the :class:`~clinqa.chunking.base.Chunk` model and
shared by both stores: the LanceDB table is created with it, and the Qdrant store's ``export``
returns its column types.

One column per ``Chunk`` field, in field order, plus ``vector``. Types follow the field's
annotation (``X | None`` is the nullable ``X``; every Arrow column is nullable):

==========================  ==============================================================
annotation                  Arrow type
==========================  ==============================================================
``str``, ``Literal[...]``   ``string``
``datetime.date``           ``string`` (ISO ``YYYY-MM-DD``, as ``model_dump(mode="json")``)
``int``                     ``int32``
``bool``                    ``bool``
``list[str]``               ``list<string>``
(the vector)                ``fixed_size_list<float32>[dim]``
==========================  ==============================================================

A new ``Chunk`` field gets its column here with no other change; an annotation not in the table
raises ``TypeError`` at import, naming the field.
"""

from __future__ import annotations

import datetime
import types
from typing import Any, Literal, Union, get_args, get_origin

import pyarrow as pa

from clinqa.chunking.base import Chunk

VECTOR = "vector"


def arrow_type(annotation: Any, name: str = "?") -> pa.DataType:
    """The Arrow type of a ``Chunk`` field annotation (see the module docstring's table). Raises
    ``TypeError`` naming ``name`` for an annotation the table does not cover."""
    origin = get_origin(annotation)
    if origin in (Union, types.UnionType):
        args = [a for a in get_args(annotation) if a is not type(None)]
        if len(args) == 1:
            return arrow_type(args[0], name)
    elif origin is Literal:
        if all(isinstance(a, str) for a in get_args(annotation)):
            return pa.string()
    elif origin is list:
        (item,) = get_args(annotation)
        return pa.list_(arrow_type(item, name))
    elif annotation is bool:  # before int: bool is a subclass of int
        return pa.bool_()
    elif annotation is int:
        return pa.int32()
    elif annotation in (str, datetime.date):
        return pa.string()
    raise TypeError(f"Chunk.{name}: no Arrow column type for annotation {annotation!r} (clinqa/store/schema.py)")


#: ``{field name: Arrow type}`` of every Chunk field, in field order
FIELD_TYPES: dict[str, pa.DataType] = {n: arrow_type(f.annotation, n) for n, f in Chunk.model_fields.items()}
#: every column but the vector: what a stored row needs to become a Chunk
ROW_COLUMNS: list[str] = list(FIELD_TYPES)
#: the boolean columns (a null in one, from a column added to an older table, means the Chunk default)
BOOL_COLUMNS: frozenset[str] = frozenset(n for n, t in FIELD_TYPES.items() if t == pa.bool_())
#: columns whose Chunk field takes no ``None`` (a null in one, from a column added to an older table, means
#: the Chunk default: ``False``, ``""``)
NOT_NULL_COLUMNS: frozenset[str] = frozenset(
    n for n, f in Chunk.model_fields.items()
    if get_origin(f.annotation) not in (Union, types.UnionType) or type(None) not in get_args(f.annotation))


def chunk_schema(dim: int) -> pa.Schema:
    """Arrow schema of the chunks table: one nullable column per Chunk field (:data:`FIELD_TYPES`)
    plus ``vector``, a fixed-size list of ``dim`` float32. Raises ``ValueError`` for ``dim < 1``."""
    if dim < 1:
        raise ValueError(f"vector dimension must be at least 1, got {dim}")
    return pa.schema([*(pa.field(n, t) for n, t in FIELD_TYPES.items()),
                      pa.field(VECTOR, pa.list_(pa.float32(), dim))])
