"""JSON Schemas for OpenLineage events, made offline from the official client's own generated classes.

The openlineage-python wheel ships no spec files, and tests never reach the network. Its classes are
generated from the spec (one per `$defs` entry, each naming its schema URL), so each class's fields give
that definition's properties, types and required keys. An event is checked as a `RunEvent`; each facet
in it is then checked against the class its `_schemaURL` names: a facet with a URL the client does not
know fails, as a misspelt facet would.
"""
from __future__ import annotations

import enum
import importlib
import inspect
import pkgutil
import types
import typing
from typing import Any

import attr
import jsonschema
from openlineage.client import generated
from openlineage.client.generated.base import BaseFacet, RunEvent

_PRIMITIVES = {str: {"type": "string"}, int: {"type": "integer"}, float: {"type": "number"},
               bool: {"type": "boolean"}, type(None): {"type": "null"}}
_FACET = {"type": "object", "required": ["_producer", "_schemaURL"],
          "properties": {"_producer": {"type": "string"}, "_schemaURL": {"type": "string", "format": "uri"}}}


def _generated_classes() -> list[type]:
    found = []
    for info in pkgutil.iter_modules(generated.__path__):
        module = importlib.import_module(f"{generated.__name__}.{info.name}")
        found += [c for _, c in inspect.getmembers(module, inspect.isclass)
                  if attr.has(c) and c.__module__ == module.__name__]
    return found


class _Schemas:
    def __init__(self) -> None:
        self.defs: dict[str, dict] = {}
        self.by_url = {c._get_schema(): c for c in _generated_classes()
                       if issubclass(c, BaseFacet) and "_get_schema" in c.__dict__}

    def ref(self, cls: type) -> dict:
        key = f"{cls.__module__}.{cls.__qualname__}"
        if key not in self.defs:
            self.defs[key] = {}  # placed first: a class may hold itself (schema fields hold fields)
            attr.resolve_types(cls)  # each class in its own module's names
            fields = list(attr.fields(cls))
            self.defs[key] = {
                "type": "object",
                "properties": {f.name: self.of(f.type) for f in fields},
                "required": [f.name for f in fields if f.default is attr.NOTHING],
            }
        return {"$ref": f"#/$defs/{key}"}

    def of(self, kind: Any) -> dict:
        if kind in _PRIMITIVES:
            return _PRIMITIVES[kind]
        if kind is Any:
            return {}
        origin, args = typing.get_origin(kind), typing.get_args(kind)
        if origin in (typing.Union, types.UnionType):
            return {"anyOf": [self.of(a) for a in args]}
        if origin is list:
            return {"type": "array", "items": self.of(args[0])}
        if origin is dict:
            return {"type": "object", "additionalProperties": self.of(args[1])}
        if inspect.isclass(kind) and issubclass(kind, enum.Enum):
            return {"enum": [e.value for e in kind]}
        if inspect.isclass(kind) and issubclass(kind, BaseFacet):
            return _FACET  # checked on its own, by the class its _schemaURL names
        if attr.has(kind):
            return self.ref(kind)
        raise TypeError(f"no schema for {kind!r}")

    def schema(self, cls: type) -> dict:
        root = self.ref(cls)
        return {**root, "$defs": self.defs}


def _facets(node: Any) -> list[dict]:
    if isinstance(node, dict):
        found = [node] if "_schemaURL" in node else []
        return found + [f for value in node.values() for f in _facets(value)]
    if isinstance(node, list):
        return [f for item in node for f in _facets(item)]
    return []


def event_problems(event: dict) -> list[str]:
    """Every way the event breaks the schema (empty when it validates)."""
    schemas = _Schemas()
    problems = [e.message for e in jsonschema.Draft202012Validator(schemas.schema(RunEvent)).iter_errors(event)]
    if not str(event.get("schemaURL", "")).startswith("https://openlineage.io/spec/"):
        problems.append(f"schemaURL {event.get('schemaURL')} is not an OpenLineage spec")
    for facet in _facets(event):
        cls = schemas.by_url.get(facet["_schemaURL"])
        if cls is None:
            problems.append(f"no facet in the spec has the schema URL {facet['_schemaURL']}")
            continue
        validator = jsonschema.Draft202012Validator(schemas.schema(cls))
        problems += [f"{cls.__name__}: {e.message}" for e in validator.iter_errors(facet)]
    return problems
