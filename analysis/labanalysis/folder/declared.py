"""A run's manifest, or a part of it, read into a frozen dataclass declared as the harness's class that wrote it: each field is
the property of the same name in camelCase (a name Python keeps for itself, `pass`, is the field `pass_`), a list is read as a
tuple, a field whose type is another such dataclass is read as one (in a tuple or as a mapping's values too), and a property left
out takes the field's default, which is the writer's own (the harness leaves out a property equal to its default). contract/
holds each class's declaration, made from the Kotlin class; tests/test_contract.py holds the dataclasses to it."""

from __future__ import annotations

import dataclasses
import types
import typing
from collections.abc import Mapping
from dataclasses import MISSING, fields
from typing import Any, TypeVar

T = TypeVar("T")

# A field's metadata key for a property the harness added to a manifest within its run-folder format, so that a folder written
# before it lacks it: the field's default is what that absence meant, the sentence under this key says why, and the contract's
# test lets the field be optional where its writer now always writes it.
ADDED_LATER = "added later"


class DeclaredError(ValueError):
    """A part of a manifest without a property the harness always writes: the manifest was not written by this lab's harness."""


def recorded_name(field_name: str) -> str:
    """The manifest's (and the Kotlin class's) name of a field: `load_start_epoch_ms` is `loadStartEpochMs`, `pass_` is `pass`."""
    first, *rest = field_name.removesuffix("_").split("_")
    return first + "".join(word[:1].upper() + word[1:] for word in rest)


def read_as(cls: type[T], recorded: Mapping[str, Any], what: str) -> T:
    """`recorded` as a `cls`. A property this reader does not know (a newer harness's, in the same format) is left out."""
    if not isinstance(recorded, Mapping):
        raise DeclaredError(f"{what} is {type(recorded).__name__}, not an object: its manifest was not written by this lab's harness")
    missing = [recorded_name(f.name) for f in fields(cls) if default_of(f) is MISSING and recorded_name(f.name) not in recorded]
    if missing:
        raise DeclaredError(f"{what} has no {', '.join(missing)}: its manifest was not written by this lab's harness")
    hints = typing.get_type_hints(cls)
    return cls(
        **{f.name: _value(hints[f.name], recorded[name], f"{what}'s {name}") for f in fields(cls) if (name := recorded_name(f.name)) in recorded}
    )


def default_of(declared: dataclasses.Field) -> Any:
    """What a field is when its property is left out (the writer's default), or MISSING where the writer always writes it."""
    return declared.default_factory() if declared.default_factory is not MISSING else declared.default


def _value(hint: Any, value: Any, what: str) -> Any:
    """`value` as a field typed `hint` holds it: a declared dataclass read as one, a list as a tuple, each item and each mapping's
    value by its own type; null only where the field may be None."""
    if value is None:
        if _not_none(hint) is hint and hint is not Any:
            raise DeclaredError(f"{what} is null: its manifest was not written by this lab's harness")
        return None
    hint = _not_none(hint)
    if dataclasses.is_dataclass(hint):
        return read_as(hint, value, what)
    origin, args = typing.get_origin(hint), typing.get_args(hint)
    if origin is tuple and isinstance(value, list):
        return tuple(_value(args[0] if args else Any, item, f"one of {what}") for item in value)
    if origin in (Mapping, dict) and isinstance(value, Mapping) and len(args) == 2:
        return {key: _value(args[1], item, f"{what} {key!r}") for key, item in value.items()}
    return tuple(value) if isinstance(value, list) else value


def _not_none(hint: Any) -> Any:
    """`X` of `X | None`."""
    if typing.get_origin(hint) in (types.UnionType, typing.Union):
        return next(a for a in typing.get_args(hint) if a is not type(None))
    return hint


def recorded(instance: Any) -> Any:
    """A type read by read_as as the manifest records it: each field by its recorded name, a tuple as a list, a held type as an
    object."""
    if dataclasses.is_dataclass(instance):
        return {name: recorded(value) for name, value in facts(instance).items()}
    if isinstance(instance, tuple):
        return [recorded(item) for item in instance]
    if isinstance(instance, Mapping):
        return {key: recorded(value) for key, value in instance.items()}
    return instance


def facts(instance: Any) -> dict[str, Any]:
    """Every field, by the name the manifest records it under."""
    return {recorded_name(f.name): getattr(instance, f.name) for f in fields(instance)}
