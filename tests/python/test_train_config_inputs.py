"""Bad training configurations are refused, each class by one test: bools parse strictly,
every field is range-checked from its declared rule, wrong types and unknown keys name the
field (and the closest ones), --config files name the file and the field, options may sit
between overrides, and every `batchsim train` command and override the docs show parses
(issue 40, part B)."""

from __future__ import annotations

import dataclasses
import math
import random
import re
import shlex
import typing
from pathlib import Path

import pytest

from batchsim.cli import build_parser, main
from batchsim.errors import InvalidArgumentError
from batchsim.train.config import TrainConfig
from batchsim.train.fields import FALSE_WORDS, RULE, TRUE_WORDS, FieldType
from batchsim.train.presets import make_config

ROOT = Path(__file__).resolve().parents[2]
FIELDS = {f.name: f for f in dataclasses.fields(TrainConfig)}


def _kind(name: str) -> FieldType:
    return FieldType.of(typing.get_type_hints(TrainConfig)[name])


def _refused(override: str, *words: str) -> str:
    with pytest.raises(InvalidArgumentError) as caught:
        make_config("demo", None, [override])
    message = str(caught.value)
    for word in words:
        assert word in message, (override, message)
    return message


def test_bools_parse_strictly_and_name_the_accepted_spellings():
    bools = [n for n in FIELDS if _kind(n).base is bool]
    assert len(bools) >= 5
    rng = random.Random(40)
    for name in bools:
        for word in (*TRUE_WORDS, *(w.upper() for w in TRUE_WORDS)):
            assert getattr(make_config("demo", None, [f"{name}={word}"]), name) is True
        for word in (*FALSE_WORDS, "False", "OFF"):
            assert getattr(make_config("demo", None, [f"{name}={word}"]), name) is False
        typo = rng.choice(["ture", "flase", "yes please", "2", "-1", "", "none", "t", "nein"])
        _refused(f"{name}={typo}", name, "true/yes/on/1", "false/no/off/0", repr(typo))


def _outside(rule) -> list:
    """Values just outside a numeric rule, and the non-finite ones."""
    values = [math.nan, math.inf, -math.inf]
    if rule.low is not None:
        values.append(rule.low if rule.low_open else rule.low - 1)
    if rule.high is not None:
        values.append(rule.high if rule.high_open else rule.high + 1)
    return values


def test_every_field_declares_its_range_and_values_outside_it_are_refused():
    checked = 0
    for name, f in FIELDS.items():
        kind, rule = _kind(name), f.metadata.get(RULE)
        if kind.base in (int, float):
            assert rule is not None and rule.low is not None, f"{name}: no declared range"
            for value in _outside(rule):
                text = repr(value) if kind.base is float else str(value)
                if kind.base is int and not math.isfinite(value):
                    text = "inf" if value > 0 else "nan"
                _refused(f"{name}={text}", name, "expected")
                checked += 1
        elif kind.base is str and not rule.path:
            assert rule.choices or rule.pattern, f"{name}: a string field with no rule"
            _refused(f"{name}=no-such-{name}", name, "expected")
            checked += 1
    assert checked > 100
    # The instances, read independently of the rules above.
    _refused("gamma=2.0", "gamma", "[0, 1]", "2.0")
    _refused("base_lr=nan", "base_lr", "finite", "nan")
    _refused("sim.seed=-1", "sim.seed", "-1")
    with pytest.raises(InvalidArgumentError, match="gamma"):  # from Python, not only overrides
        dataclasses.replace(TrainConfig(), gamma=-0.5).validate()


def test_wrong_types_name_the_field_and_the_expected_type():
    _refused("sim.num_envs=abc", "sim.num_envs", "an integer", "'abc'")
    _refused("sim.num_envs=1.5", "sim.num_envs", "an integer")
    _refused("clip=fast", "clip", "a finite number", "'fast'")
    _refused("extra=[1]", "extra", "a JSON object")
    assert make_config("demo", None, ["total_frames=5e7"]).total_frames == 50_000_000
    assert make_config("demo", None, ["render.rgb=yes"]).sensors == ("depth", "rgb")
    assert make_config("demo", None, ["plain_lr=none"]).plain_lr is None
    with pytest.raises(InvalidArgumentError, match="sim: expected a SimConfig"):
        TrainConfig(sim="4").validate()


def test_unknown_keys_suggest_the_closest_fields():
    assert "did you mean base_lr or plain_lr?" in _refused("lr=5e-4", "'lr'")
    assert "did you mean sim.num_envs" in _refused("num_env=4", "'num_env'")
    assert "did you mean" not in _refused("zzzz=1", "'zzzz'")
    _refused("warmup_updates=3", "warmup_frames")  # a renamed field gets its new name
    _refused("gamma", "expected KEY=VALUE")


@pytest.mark.parametrize(
    "text, words",
    [
        ("{bad json", ["expected a JSON object of fields"]),
        ("[1, 2]", ["expected a JSON object of fields, got list"]),
        ('{"sim": {"num_envs": "4"}}', ["sim.num_envs", "an integer", "'4'"]),
        ('{"normalize_advantage": 1}', ["normalize_advantage", "true or false"]),
        ('{"render": {"rgb": "yes"}}', ["render.rgb", "true or false"]),
        ('{"gamma": 1.5}', ["gamma", "[0, 1]"]),
        ('{"lr": 0.001}', ["'lr'", "base_lr"]),
    ],
    ids=["syntax", "not-object", "type", "bool", "part-leaf", "range", "unknown"],
)
def test_config_files_name_the_file_and_the_field(tmp_path, text, words):
    file = tmp_path / "my.json"
    file.write_text(text)
    with pytest.raises(ValueError) as caught:
        make_config("demo", file)
    for word in [str(file), *words]:
        assert word in str(caught.value)
    file.write_text('{"render": {"depth": false, "rgb": true}, "total_frames": 5e7, "gamma": 1}')
    config = make_config("demo", file)
    assert (config.sensors, config.total_frames, config.gamma) == (("rgb",), 50_000_000, 1)


def test_options_may_sit_between_overrides(capsys):
    assert main(["train", "--preset", "demo", "sim.seed=3", "--quiet", "gamma=7"]) == 2
    assert "override 'gamma=7'" in capsys.readouterr().err  # read as an override, checked
    with pytest.raises(SystemExit):
        main(["train", "--preset", "demo", "sim.seed=3", "--no-such-option", "gamma=0.5"])
    assert "unrecognized arguments: --no-such-option" in capsys.readouterr().err


# Refused on purpose where the docs show what is refused; every other example must parse.
DOCUMENTED_REFUSALS = {"lr=5e-4", "base_lr=nan", "sim.num_envs=1.5", "normalize_advantage=ture"}
FENCE = re.compile(r"^```.*?^```", re.S | re.M)
SPAN = re.compile(r"`([^`]+)`")
OVERRIDES = re.compile(r"[a-z_.]+=\S+( [a-z_.]+=\S+)*")
PLACEHOLDER = re.compile(r"[A-Z]+")


def _snippets(text: str) -> list[str]:
    """Code-block lines (continuations joined) and inline code spans of a Markdown text."""
    text = text.replace("\\\n", " ")
    lines = [line for block in FENCE.findall(text) for line in block.splitlines()[1:-1]]
    return lines + [" ".join(span.split()) for span in SPAN.findall(FENCE.sub("", text))]


def _documented_commands() -> list[list[str]]:
    commands = []
    for doc in [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]:
        for snippet in _snippets(doc.read_text()):
            found = re.search(r"batchsim train (?!:)(.*)", snippet)
            if found:
                words = shlex.split(found.group(1), comments=True)
                commands.append(["1" if PLACEHOLDER.fullmatch(w) else w for w in words])
    return commands


def test_every_documented_train_command_and_override_parses():
    commands = _documented_commands()
    assert len(commands) >= 10
    parser = build_parser()
    for words in commands:
        args, extra = parser.parse_known_args(["train", *words])
        overrides = [*args.overrides, *extra]
        assert all("=" in w for w in extra), words
        make_config(args.preset, None, overrides)  # --config files of examples are left out
    spans = [s for s in _snippets((ROOT / "docs" / "train.md").read_text())]
    overrides = [w for s in spans if OVERRIDES.fullmatch(s) for w in s.split()]
    assert len(overrides) >= 20
    for item in overrides:
        if PLACEHOLDER.fullmatch(item.partition("=")[2]):
            continue
        if item in DOCUMENTED_REFUSALS:
            _refused(item, item.partition("=")[0])
        else:
            make_config("demo", None, [item])
    assert set(overrides) >= DOCUMENTED_REFUSALS  # the docs still show each refusal
