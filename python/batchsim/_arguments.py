"""Wrong arguments to a ``batchsim._core`` call, said in one line.

pybind11 answers arguments that fit none of a function's C++ signatures with a TypeError
that dumps every overload and the raw call ("incompatible function arguments ... Invoked
with: ..."). :func:`guard_module` wraps every public function, method, constructor and
property setter of the compiled core once, when batchsim is imported, so that this
TypeError becomes an :class:`~batchsim.errors.ArgumentTypeError` naming the call, the
argument, what it takes and what it got (an unknown keyword: the valid names and the
closest one). The signatures are read from pybind11's own docstrings, so none is repeated
here; a call that binds is never touched (the wrapper only reads the error of one that
failed). Classes Python cannot construct say which calls make them.
"""

from __future__ import annotations

import difflib
import functools
import numbers
import os
import re
from collections.abc import Callable, Mapping, Sequence
from typing import Any, NamedTuple

from batchsim import _core
from batchsim.errors import ArgumentTypeError

_PYBIND_REFUSAL = re.compile(r"^(\w+)\(\): incompatible (function|constructor) arguments")
_SIGNATURE = re.compile(r"^(?:\d+\. )?(\w+)\((.*)\)(?: -> .*)?$")
_PREFIXES = ("batchsim._core.", "typing.", "collections.abc.", "numpy.typing.", "os.")
_KEYWORDS_ONLY = "**kwargs"
# The value types' own refusal of a keyword (bindings/value_type.hpp).
_NO_FIELD = re.compile(r"^(\w+) has no field '(\w+)'; its fields are (.*)$")


class Parameter(NamedTuple):
    name: str
    annotation: str  # as pybind11 prints it, prefixes dropped ("" when none)
    required: bool


def _split_top_level(text: str, sep: str) -> list[str]:
    """`text` split at `sep` outside brackets and quotes."""
    parts, depth, quote, start, i = [], 0, "", 0, 0
    while i < len(text):
        ch = text[i]
        if quote:
            quote = "" if ch == quote else quote
        elif ch in "'\"":
            quote = ch
        elif ch in "([{<":
            depth += 1
        elif ch in ")]}>":
            depth -= 1
        elif depth == 0 and text.startswith(sep, i):
            parts.append(text[start:i])
            start = i + len(sep)
            i = start
            continue
        i += 1
    parts.append(text[start:])
    return [p.strip() for p in parts if p.strip()]


_ARRAY = re.compile(r"Annotated\[numpy\.ArrayLike, numpy\.(\w+)\]")
_SHORTER = (("SupportsInt | SupportsIndex", "int"), ("SupportsFloat | SupportsIndex", "float"))
_CLASSES: dict[str, type] = {}  # the guarded module's classes, by name (isinstance checks)


def _plain(annotation: str) -> str:
    """pybind11's annotation as a user reads it: no module prefixes, arrays in words."""
    for prefix in _PREFIXES:
        annotation = annotation.replace(prefix, "")
    annotation = _ARRAY.sub(r"array-like of \1", annotation)
    for long, short in _SHORTER:
        annotation = annotation.replace(long, short)
    return annotation


def _parameter(text: str) -> Parameter | None:
    if text == _KEYWORDS_ONLY:
        return Parameter(text, "", False)
    if text.startswith("*") or text == "/":  # markers and *args: nothing to bind by name
        return None
    name, colon, rest = text.partition(":")
    if colon:
        annotation, equals, _ = rest.partition(" = ")
    else:
        name, equals, _ = text.partition("=")
        annotation = ""
    return Parameter(name.strip(), _plain(annotation.strip()), not equals)


def signatures(func: Callable) -> list[list[Parameter]]:
    """Each overload of a pybind11 function as its parameters (self dropped)."""
    out = []
    for line in (func.__doc__ or "").splitlines():
        match = _SIGNATURE.match(line.strip())
        if match is None or match.group(2) == "*args, **kwargs":
            continue
        params = [_parameter(p) for p in _split_top_level(match.group(2), ",")]
        params = [p for p in params if p is not None]
        if params and params[0].name == "self":
            params = params[1:]
        out.append(params)
    return out


def _fits(value: Any, annotation: str) -> bool | None:
    """Whether `value` fits one alternative of `annotation`; None: cannot tell."""
    verdicts = [_fits_one(value, alt) for alt in _split_top_level(annotation, " | ")]
    if any(v is True for v in verdicts):
        return True
    return None if any(v is None for v in verdicts) else False


def _fits_one(value: Any, kind: str) -> bool | None:
    base = kind.split("[", 1)[0]
    if base == "None":
        return value is None
    if base in ("str", "bytes"):
        return isinstance(value, str if base == "str" else bytes)
    if base == "PathLike":
        return isinstance(value, os.PathLike)
    if base == "bool":
        return isinstance(value, bool) or type(value).__name__ == "bool_"
    if base in _CLASSES:
        return isinstance(value, _CLASSES[base])
    if base in ("int", "SupportsInt", "SupportsIndex"):
        return not isinstance(value, float | str) and hasattr(value, "__index__")
    if base in ("float", "SupportsFloat"):
        return isinstance(value, numbers.Real) or hasattr(value, "__float__")
    if base in ("list", "tuple", "Sequence"):
        return isinstance(value, Sequence) and not isinstance(value, str | bytes)
    if base in ("dict", "Mapping"):
        return isinstance(value, Mapping)
    if base in ("Any", "object"):
        return True
    return None  # arrays, buffers, our own classes: pybind11 knows better


def unknown_field(owner: str, name: str, fields: Sequence[str]) -> ArgumentTypeError:
    """The error for a keyword `owner` lacks: its fields, and the closest to `name`."""
    close = difflib.get_close_matches(name, list(fields), n=1)
    hint = f" (did you mean {close[0]!r}?)" if close else ""
    return ArgumentTypeError(
        f"{owner} has no field {name!r}{hint}; its fields are: {', '.join(fields)}"
    )


def _given(value: Any) -> str:
    text = repr(value)
    return f"{type(value).__name__} {text if len(text) <= 60 else text[:57] + '...'}"


def _bind(params: list[Parameter], args: tuple, kwargs: dict) -> dict[str, Any] | str:
    """The call's arguments by parameter name, or why they do not fit `params`."""
    if params and params[-1].name == _KEYWORDS_ONLY:
        if args:
            return f"takes keyword arguments only, got {len(args)} positional: {_given(args[0])}"
        return {}
    names = [p.name for p in params]
    if len(args) > len(params):
        return f"takes at most {len(params)} positional argument(s), got {len(args)}"
    bound = dict(zip(names, args, strict=False))
    for key, value in kwargs.items():
        if key not in names:
            close = difflib.get_close_matches(key, names, n=1)
            hint = f" (did you mean {close[0]!r}?)" if close else ""
            valid = ", ".join(names) or "none"
            return f"unexpected keyword {key!r}{hint}; its arguments are: {valid}"
        if key in bound:
            return f"argument {key!r} given twice (by position and by keyword)"
        bound[key] = value
    return bound


def _mismatch(params: list[Parameter], bound: dict[str, Any]) -> str | None:
    """The first argument of the wrong type, else the missing ones, else the one argument
    whose type cannot be told here (an array, say) when it is the only such."""
    unknown = []
    for param in params:
        if param.name in bound and param.annotation:
            value = bound[param.name]
            fits = _fits(value, param.annotation)
            if fits is False:
                return f"{param.name}: expected {param.annotation}, got {_given(value)}"
            if fits is None:
                unknown.append(param)
    missing = [p.name for p in params if p.required and p.name not in bound]
    if missing:
        return f"missing argument(s): {', '.join(missing)}"
    if len(unknown) == 1:
        suspect = unknown[0]
        return f"{suspect.name}: expected {suspect.annotation}, got {_given(bound[suspect.name])}"
    return None


def _form(label: str, params: list[Parameter]) -> str:
    shown = [p.name + (f": {p.annotation}" if p.annotation else "") for p in params]
    return f"{label}({', '.join(shown)})"


def explain(label: str, func: Callable, args: tuple, kwargs: dict) -> str:
    """What is wrong with calling `func` (shown as `label`) with args and kwargs."""
    overloads = signatures(func)
    reasons = []
    for params in overloads:
        bound = _bind(params, args, kwargs)
        reason = bound if isinstance(bound, str) else _mismatch(params, bound)
        if reason is not None:
            reasons.append(reason)
    if len(overloads) == 1 and reasons:
        return f"{label}(): {reasons[0]}"
    given = [_given(a) for a in args] + [f"{k}={_given(v)}" for k, v in kwargs.items()]
    forms = "; or ".join(_form(label, params) for params in overloads)
    return f"{label}(): the arguments ({', '.join(given)}) fit none of its forms: {forms}"


def _guarded(label: str, func: Callable, method: bool) -> Callable:
    @functools.wraps(func)
    def call(*args, **kwargs):
        try:
            return func(*args, **kwargs)
        except TypeError as exc:
            no_field = _NO_FIELD.match(str(exc))
            if no_field is not None and not isinstance(exc, ArgumentTypeError):
                owner, name, fields = no_field.groups()
                raise unknown_field(owner, name, fields.split(", ")) from None
            match = _PYBIND_REFUSAL.match(str(exc))
            if match is None or match.group(1) != func.__name__:
                raise  # not this call's arguments (or not pybind11's refusal)
            shown = args[1:] if method else args
            raise ArgumentTypeError(explain(label, func, shown, kwargs)) from None

    return call


def _guard_property(label: str, prop: property) -> property:
    if prop.fset is None:
        return prop

    def setter(self, value) -> None:
        try:
            prop.fset(self, value)
        except TypeError as exc:
            if _PYBIND_REFUSAL.match(str(exc)) is None:
                raise
            expected = _setter_type(prop.fset)
            raise ArgumentTypeError(f"{label}: expected {expected}, got {_given(value)}") from None

    return property(prop.fget, setter, prop.fdel, prop.__doc__)


def _setter_type(fset: Callable) -> str:
    overloads = signatures(fset)
    params = overloads[0] if overloads else []
    return params[-1].annotation if params and params[-1].annotation else "another type"


def _no_constructor(cls: type) -> Callable:
    """An __init__ for a class Python cannot make, naming the calls that make one."""
    makers = [
        f"{cls.__name__}.{name}()"
        for name, member in vars(cls).items()
        if isinstance(member, staticmethod)
        and f"-> batchsim._core.{cls.__name__}" in (member.__func__.__doc__ or "")
    ]
    how = f"use {' or '.join(makers)}" if makers else "other batchsim calls return them"

    def __init__(self, *args, **kwargs) -> None:
        raise ArgumentTypeError(f"{cls.__name__}() cannot be called to make one: {how}")

    return __init__


def guard_class(cls: type) -> None:
    """Wraps cls's constructor, public methods, static methods and property setters."""
    if type(cls.__dict__.get("__init__")).__name__ == "wrapper_descriptor":
        cls.__init__ = _no_constructor(cls)
    for name, member in list(cls.__dict__.items()):
        if name.startswith("_") and name != "__init__":
            continue
        label = cls.__name__ if name == "__init__" else f"{cls.__name__}.{name}"
        kind = type(member).__name__
        if kind == "instancemethod":
            setattr(cls, name, _guarded(label, member.__func__, method=True))
        elif isinstance(member, staticmethod):
            setattr(cls, name, staticmethod(_guarded(label, member.__func__, method=False)))
        elif isinstance(member, property) and not hasattr(member.fset, "__wrapped__"):
            setattr(cls, name, _guard_property(label, member))


def guard_module(module) -> None:
    """guard_class for every class of `module`, and its public functions wrapped."""
    public = {n: m for n, m in vars(module).items() if not n.startswith("_")}
    _CLASSES.update({n: m for n, m in public.items() if isinstance(m, type)})
    for name, member in public.items():
        if isinstance(member, type):
            guard_class(member)
        elif type(member).__name__ == "builtin_function_or_method":
            setattr(module, name, _guarded(name, member, method=False))


guard_module(_core)  # once, at import: batchsim/__init__.py imports this module first
