"""Checked fields for the C++ value types (SimConfig, TaskConfig, RenderOptions,
RendererConfig, NavMeshSettings): a wrong type or a value the C++ field cannot hold raises
InvalidArgumentError naming the type, the field, what it takes and what it got, instead of
pybind11's "incompatible function arguments" dump.

Each field's property is replaced by one whose setter checks the value, then calls the
original setter; construction from keywords, replace(), unpickling and plain assignment all
go through it. What a field takes is read off the bindings once at import: the kind of its
default value, and for integers and floats the C++ type's range (pybind11's casters refuse
what does not fit, so probing them finds it), so no C++ type is repeated here. Ranges with
a meaning (num_envs >= 1, ...) stay with the C++ validate() of each type.
"""

from __future__ import annotations

import math
import numbers
import os
from collections.abc import Callable

import numpy as np

from batchsim.errors import ArgumentTypeError, InvalidArgumentError

# Candidate C++ integer types, narrowest first: (lowest, highest).
_INTEGER_RANGES = ((-(2**31), 2**31 - 1), (0, 2**32 - 1), (-(2**63), 2**63 - 1), (0, 2**64 - 1))
_FLOAT32_MAX = float(np.finfo(np.float32).max)
Check = Callable[[object, str], None]  # check(value, "Type.field") raises or returns


def _described(value) -> str:
    return f"{type(value).__name__} {value!r}"


def _accepts(setter: Callable, scratch, value) -> bool:
    try:
        setter(scratch, value)
    except TypeError:
        return False
    return True


def _integer_range(setter: Callable, scratch) -> tuple[int, int]:
    for low, high in _INTEGER_RANGES:
        fits = _accepts(setter, scratch, low) and _accepts(setter, scratch, high)
        if (
            fits
            and not _accepts(setter, scratch, low - 1)
            and not _accepts(setter, scratch, high + 1)
        ):
            return low, high
    raise AssertionError(f"no known C++ integer type for {setter}")


def _integer_check(setter: Callable, scratch) -> Check:
    low, high = _integer_range(setter, scratch)
    return lambda value, label: check_integer(label, value, low, high)


def _float_check(setter: Callable, getter: Callable, scratch) -> Check:
    setter(scratch, 1e39)  # beyond float32: a float field reads it back as inf
    single = math.isinf(getter(scratch))

    def check(value, label: str) -> None:
        if isinstance(value, bool | np.bool_) or not isinstance(value, numbers.Real):
            raise InvalidArgumentError(f"{label}: expected a number, got {_described(value)}")
        if single and math.isfinite(value) and abs(value) > _FLOAT32_MAX:
            raise InvalidArgumentError(
                f"{label}: expected a number within float32's range "
                f"(±{_FLOAT32_MAX:.4g}), got {value!r}"
            )

    return check


def _bool_check(value, label: str) -> None:
    if not isinstance(value, bool | np.bool_):
        raise InvalidArgumentError(f"{label}: expected True or False, got {_described(value)}")


def _instance_check(kind: type) -> Check:
    def check(value, label: str) -> None:
        if not isinstance(value, kind):
            expected = "string" if kind is str else kind.__name__
            raise InvalidArgumentError(f"{label}: expected a {expected}, got {_described(value)}")

    return check


def _check_for(prop: property, scratch) -> Check:
    """What the field of `prop` takes, from its default value in `scratch`."""
    default = prop.fget(scratch)
    if isinstance(default, bool):
        return _bool_check
    if isinstance(default, int):
        return _integer_check(prop.fset, scratch)
    if isinstance(default, float):
        return _float_check(prop.fset, prop.fget, scratch)
    return _instance_check(type(default))  # str (a choice the C++ parses) or a value type


def guard_fields(cls: type, names: tuple[str, ...]) -> None:
    """Replaces each of `names`' properties on `cls` by one that checks what is set."""
    scratch = cls()
    for name in names:
        original = cls.__dict__[name]
        check = _check_for(original, scratch)
        setattr(cls, name, _checked_property(f"{cls.__name__}.{name}", original, check))


def _checked_property(label: str, original: property, check: Check) -> property:
    def setter(self, value) -> None:
        check(value, label)
        original.fset(self, value)

    return property(original.fget, setter, doc=original.__doc__)


def check_integer(name: str, value, low: int, high: int) -> int:
    """`value` as an int in low..high; InvalidArgumentError naming `name` otherwise."""
    if isinstance(value, bool | np.bool_) or not isinstance(value, numbers.Integral):
        raise InvalidArgumentError(
            f"{name}: expected an integer in {low}..{high}, got {_described(value)}"
        )
    if not low <= value <= high:
        raise InvalidArgumentError(f"{name}: expected an integer in {low}..{high}, got {value}")
    return int(value)


def check_seed(seed, name: str = "seed") -> int | None:
    """A seed as the simulators take it (C++ uint64), or None; InvalidArgumentError naming
    `name` otherwise."""
    return None if seed is None else check_integer(name, seed, 0, 2**64 - 1)


def check_path(name: str, value) -> str:
    """`value` (str or os.PathLike) as a str; ArgumentTypeError naming `name` otherwise
    (os.fspath's own TypeError names no argument)."""
    if not isinstance(value, str | os.PathLike):
        raise ArgumentTypeError(
            f"{name}: expected a path (str or os.PathLike), got {_described(value)}"
        )
    return os.fspath(value)


def check_instance(name: str, value, kind: type, allow_none: bool = True):
    """`value` when it is a `kind` (or None, if allowed); ArgumentTypeError naming `name`."""
    if (value is None and allow_none) or isinstance(value, kind):
        return value
    expected = f"a {kind.__name__}" + (" or None" if allow_none else "")
    raise ArgumentTypeError(f"{name}: expected {expected}, got {_described(value)}")
