"""A part of a run's manifest read into a frozen dataclass declared as the harness's class that wrote it: each field is the
property of the same name in camelCase, a list is read as a tuple, and a property left out takes the field's default, which is
the writer's own (the harness leaves out a property equal to its default). contract/ holds each class's declaration, made from the
Kotlin class; tests/test_contract.py holds the dataclasses to it."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import MISSING, fields
from typing import Any, TypeVar

T = TypeVar("T")


class DeclaredError(ValueError):
    """A part of a manifest without a property the harness always writes: the manifest was not written by this lab's harness."""


def recorded_name(field_name: str) -> str:
    """The manifest's (and the Kotlin class's) name of a field: `load_start_epoch_ms` is `loadStartEpochMs`."""
    first, *rest = field_name.split("_")
    return first + "".join(word[:1].upper() + word[1:] for word in rest)


def read_as(cls: type[T], recorded: Mapping[str, Any], what: str) -> T:
    """`recorded` as a `cls`. A property this reader does not know (a newer harness's, in the same format) is left out."""
    missing = [recorded_name(f.name) for f in fields(cls) if f.default is MISSING and recorded_name(f.name) not in recorded]
    if missing:
        raise DeclaredError(f"{what} has no {', '.join(missing)}: its manifest was not written by this lab's harness")
    given = {f.name: recorded[recorded_name(f.name)] for f in fields(cls) if recorded_name(f.name) in recorded}
    return cls(**{name: tuple(value) if isinstance(value, list) else value for name, value in given.items()})


def facts(instance: Any) -> dict[str, Any]:
    """Every field, by the name the manifest records it under."""
    return {recorded_name(f.name): getattr(instance, f.name) for f in fields(instance)}
