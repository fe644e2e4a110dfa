"""The OpenAPI document of the service is unchanged by moving the routes out of ``create_app`` (issue 48
item 6, routes as modules): every path and method with its summary, tags, operation id, parameters, security, request
body and response codes (with their models), and the order of the operations within each tag (the order the
docs page lists them in), compared with ``openapi_routes.json``, captured from the code before the move."""

from __future__ import annotations

import ast
import json
from pathlib import Path
from typing import Any

from service_data import settings_for

from clinqa.service.app import create_app

FIXTURE = Path(__file__).with_name("openapi_routes.json")
SERVICE_SRC = Path(__file__).resolve().parents[2] / "src" / "clinqa" / "service"
METHODS = ("get", "post", "put", "patch", "delete")


def _ref(content: dict[str, Any] | None) -> str | None:
    """The schema a JSON body or response names (``#/components/schemas/X``), or its type when inline."""
    schema = ((content or {}).get("application/json") or {}).get("schema")
    if schema is None:
        return None
    return schema.get("$ref") or json.dumps(schema, sort_keys=True)


def routes_fingerprint(doc: dict[str, Any]) -> dict[str, Any]:
    """``{"operations": {"GET /path": {...}}, "tag_order": {tag: ["GET /path", ...]}}`` of an OpenAPI
    document: what a client or the docs page sees of each route, without the prose descriptions."""
    ops: dict[str, Any] = {}
    tag_order: dict[str, list[str]] = {}
    for path, item in doc["paths"].items():
        for method in METHODS:
            op = item.get(method)
            if op is None:
                continue
            key = f"{method.upper()} {path}"
            ops[key] = {
                "summary": op.get("summary"),
                "tags": op.get("tags", []),
                "operationId": op.get("operationId"),
                "parameters": [[p["in"], p["name"], p.get("required", False)] for p in op.get("parameters", [])],
                "security": op.get("security", []),
                "requestBody": _ref((op.get("requestBody") or {}).get("content")),
                "responses": {code: _ref(r.get("content")) for code, r in sorted(op["responses"].items())},
            }
            for tag in op.get("tags", []):
                tag_order.setdefault(tag, []).append(key)
    return {"operations": ops, "tag_order": tag_order}


def test_openapi_routes_unchanged(tmp_path: Path) -> None:
    doc = create_app(settings_for(tmp_path)).openapi()
    want = json.loads(FIXTURE.read_text())
    got = routes_fingerprint(doc)
    assert sorted(got["operations"]) == sorted(want["operations"])
    for key, op in want["operations"].items():
        assert got["operations"][key] == op, key
    assert got["tag_order"] == want["tag_order"]
    assert len(got["operations"]) == 12  # 13 routes less the page at "/", which is not in the schema
    assert set(doc["components"]["schemas"]) == set(want["schemas"])


def test_no_function_in_service_over_100_lines() -> None:
    """Issue 48 target: no function (a nested one counted inside its parent) over 100 lines in ``service/``."""
    long = []
    for f in sorted(SERVICE_SRC.rglob("*.py")):
        for node in ast.walk(ast.parse(f.read_text(), str(f))):
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                n = node.end_lineno - node.lineno + 1
                if n > 100:
                    long.append(f"{f.relative_to(SERVICE_SRC)}:{node.lineno} {node.name} {n} lines")
    assert long == []
