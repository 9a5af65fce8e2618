"""What each TrainConfig field takes, declared once beside the field (its metadata), and the
generic checks and parsing built on it: the type comes from the annotation, the range or
choices from a Rule, so ``gamma=2.0``, ``base_lr=nan`` or ``num_envs=abc`` are refused with
the field's name, what it takes and what was given, and bools parse strictly.

>>> gamma: float = checked(0.99, within(0, 1))      # in TrainConfig
>>> check_fields(config)                            # InvalidArgumentError naming the field
>>> parse_text(TrainConfig, "normalize_advantage", "ture")   # refused: not a bool spelling
"""

from __future__ import annotations

import dataclasses
import functools
import json
import math
import numbers
import os
import re
import types
import typing
from typing import Any

from batchsim.errors import InvalidArgumentError

RULE = "rule"  # the metadata key of a field's Rule
TRUE_WORDS = ("true", "yes", "on", "1")
FALSE_WORDS = ("false", "no", "off", "0")
NONE_WORDS = ("none", "null")
INT32_MAX = 2**31 - 1  # fields the C++ simulator holds as int
BOOL_WORDS = f"true or false ({'/'.join(TRUE_WORDS)} or {'/'.join(FALSE_WORDS)})"


@dataclasses.dataclass(frozen=True)
class Rule:
    """A field's range (numbers: low/high, each inclusive unless open) or choices (strings,
    or for a tuple field the items allowed); `path`: a file or folder name (os.PathLike
    too); `nonempty`: a string or tuple with something in it; `pattern`: a regular
    expression a string must match, described as `pattern_words`."""

    low: float | None = None
    high: float | None = None
    low_open: bool = False
    high_open: bool = False
    choices: tuple[str, ...] | None = None
    path: bool = False
    nonempty: bool = False
    pattern: str | None = None
    pattern_words: str = ""
    note: str = ""  # what a special value means, e.g. "0: off"

    def describe(self) -> str:
        if self.pattern is not None:
            return self.pattern_words
        if self.choices is not None:
            return f"one of {list(self.choices)}"
        if self.low is not None and self.high is not None:
            left, right = "(" if self.low_open else "[", ")" if self.high_open else "]"
            return f"in {left}{_shown(self.low)}, {_shown(self.high)}{right}"
        if self.low is not None:
            return f"{'>' if self.low_open else '>='} {_shown(self.low)}"
        return "" if self.high is None else f"{'<' if self.high_open else '<='} {_shown(self.high)}"

    def problem(self, value) -> bool:
        """Whether a value of the right type breaks the rule."""
        if self.nonempty and not len(value):
            return True
        if self.path and "\0" in value:  # no file has one; open() would refuse it later
            return True
        if self.choices is not None:
            items = value if isinstance(value, tuple) else (value,)
            return any(item not in self.choices for item in items)
        if self.pattern is not None:
            return re.fullmatch(self.pattern, value) is None
        if isinstance(value, numbers.Real):
            below = self.low is not None and (
                value <= self.low if self.low_open else value < self.low
            )
            above = self.high is not None and (
                value >= self.high if self.high_open else value > self.high
            )
            return below or above
        return False


def checked(default, rule: Rule | None = None) -> Any:
    """A dataclass field with `default` and its Rule."""
    return dataclasses.field(default=default, metadata={RULE: rule or Rule()})


def at_least(low: float, high: float | None = None, note: str = "") -> Rule:
    return Rule(low=low, high=high, note=note)


def above(low: float) -> Rule:
    return Rule(low=low, low_open=True)


def within(low: float, high: float, *, open_: bool = False) -> Rule:
    return Rule(low=low, high=high, low_open=open_, high_open=open_)


def one_of(*choices: str) -> Rule:
    return Rule(choices=choices)


def some_of(*choices: str) -> Rule:
    """A non-empty tuple of `choices`."""
    return Rule(choices=choices, nonempty=True)


def path() -> Rule:
    return Rule(path=True, nonempty=True)


def matching(pattern: str, words: str) -> Rule:
    return Rule(pattern=pattern, pattern_words=words)


def _shown(number: float) -> str:
    """2147483647 rather than 2.14748e+09; 0.5 as it is."""
    return str(int(number)) if float(number).is_integer() else f"{number:g}"


@dataclasses.dataclass(frozen=True)
class FieldType:
    """A field's annotation, read once: its base type and whether None is allowed."""

    base: type
    optional: bool

    @classmethod
    def of(cls, hint) -> FieldType:
        args = typing.get_args(hint)
        if isinstance(hint, types.UnionType):
            return cls(next(a for a in args if a is not type(None)), type(None) in args)
        return cls(typing.get_origin(hint) or hint, False)

    def words(self, rule: Rule) -> str:
        """What the field takes, in words: "an integer >= 1", "None or a number > 0"."""
        if self.base is tuple:
            text = "a list of strings"
            if rule.choices is not None:
                text = f"a non-empty list of {list(rule.choices)} (comma-separated in an override)"
        elif rule.pattern is not None or rule.choices is not None:
            text = rule.describe()
        else:
            bounded = rule.low is not None and rule.high is not None
            noun = {
                bool: BOOL_WORDS,
                int: "an integer",
                float: "a number" if bounded else "a finite number",
                str: "a path" if rule.path else "a string",
                dict: "a JSON object",
            }.get(self.base, f"a {self.base.__name__}")
            described = rule.describe() if self.base is not bool else ""
            text = f"{noun} {described}" if described else noun
        text += f" ({rule.note})" if rule.note else ""
        return f"None or {text}" if self.optional else text


@functools.cache
def _types(cls) -> dict[str, tuple[FieldType, Rule]]:
    hints = typing.get_type_hints(cls)
    return {
        f.name: (FieldType.of(hints[f.name]), f.metadata.get(RULE, Rule()))
        for f in dataclasses.fields(cls)
    }


def _fits_type(value, kind: FieldType, rule: Rule) -> bool:
    if value is None:
        return kind.optional
    base = kind.base
    if base is bool:
        return isinstance(value, bool)
    if base is int:
        return isinstance(value, numbers.Integral) and not isinstance(value, bool)
    if base is float:
        return _finite_number(value)
    if base is str:
        return isinstance(value, str) or (rule.path and isinstance(value, os.PathLike))
    if base is tuple:
        return isinstance(value, tuple) and all(isinstance(v, str) for v in value)
    return isinstance(value, base)


def _finite_number(value) -> bool:
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        return False
    try:
        return math.isfinite(value)
    except OverflowError:  # an integer beyond float's range (a JSON file can hold one)
        return False


def check_field(cls, name: str, value) -> None:
    """InvalidArgumentError unless `value` fits field `name` of dataclass `cls`."""
    kind, rule = _types(cls)[name]
    if not _fits_type(value, kind, rule):
        raise InvalidArgumentError(f"{name}: expected {kind.words(rule)}, got {_given(value)}")
    if value is not None and rule.problem(os.fspath(value) if rule.path else value):
        raise InvalidArgumentError(f"{name}: expected {kind.words(rule)}, got {value!r}")


def check_fields(config) -> None:
    """check_field() of every field of the dataclass instance `config`."""
    for name in _types(type(config)):
        check_field(type(config), name, getattr(config, name))


def _given(value) -> str:
    """A value as an error shows it: numbers and strings as written, others with their type."""
    plain = isinstance(value, str | int | float) and not isinstance(value, bool)
    return repr(value) if plain else f"{type(value).__name__} {value!r}"


def parse_text(cls, name: str, text: str):
    """The value of field `name` that `text` (an override's VALUE) spells, by the field's
    type: bools strictly (true/false, yes/no, on/off, 1/0), integers also as 5e7 or 1_000,
    tuples comma-separated, None as none or null where allowed; checked."""
    kind, rule = _types(cls)[name]
    if kind.optional and text.strip().lower() in NONE_WORDS:
        value = None
    else:
        value = parsed(kind.base, text.strip())
        if value is None:
            raise InvalidArgumentError(f"{name}: expected {kind.words(rule)}, got {text!r}")
    check_field(cls, name, value)
    return value


def parsed(base: type, text: str):
    """`text` as `base`, or None where it does not spell one."""
    if base is bool:
        word = text.lower()
        return True if word in TRUE_WORDS else False if word in FALSE_WORDS else None
    if base is str:
        return text
    if base is tuple:
        return tuple(s.strip() for s in text.split(",") if s.strip())
    if base is dict:
        try:
            value = json.loads(text)
        except ValueError:
            return None
        return value if isinstance(value, dict) else None
    try:
        number = float(text) if base is float else _integer(text)
    except (ValueError, OverflowError):
        return None
    return number


def _integer(text: str) -> int:
    """An int from "1024", "1_000" or an integral "5e7" (ValueError otherwise)."""
    try:
        return int(text)
    except ValueError:
        value = float(text)
        if not value.is_integer():
            raise
        return int(value)


def from_json(cls, name: str, value):
    """A JSON value for field `name`: lists become tuples, integral numbers integers for
    integer fields (5e7 is written 50000000.0); checked."""
    kind, _ = _types(cls)[name]
    if kind.base is tuple and isinstance(value, list):
        value = tuple(value)
    if kind.base is int and isinstance(value, float) and value.is_integer():
        value = int(value)
    check_field(cls, name, value)
    return value
