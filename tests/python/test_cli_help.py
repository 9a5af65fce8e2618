"""`batchsim --version` and every subcommand's --help as a user reads them: no argparse
escapes left ("%%"), float32 defaults in their short spelling, nothing stale."""

from __future__ import annotations

import re

import pytest

import batchsim
from batchsim.cli import SUBCOMMANDS, build_parser, main
from batchsim.datasets.import_dataset import DATASET_HINT, SINGLE_IMPORT_HINT, _reason
from batchsim.datasets.scene_sources import MODEL_SUFFIXES


def help_text(capsys, *args: str) -> str:
    with pytest.raises(SystemExit) as exit:
        main([*args, "--help"])
    assert exit.value.code == 0
    return capsys.readouterr().out


def command_names() -> list[str]:
    commands = build_parser()._subparsers._group_actions[0].choices  # argparse's own table
    assert len(commands) == len(SUBCOMMANDS)
    return list(commands)


def test_version(capsys):
    with pytest.raises(SystemExit) as exit:
        main(["--version"])
    assert exit.value.code == 0
    assert capsys.readouterr().out.strip() == f"batchsim {batchsim.__version__}"


def test_top_level_help_says_what_batchsim_is(capsys):
    text = help_text(capsys)
    assert "arrive with the subsystems" not in text
    assert "batch simulator for embodied RL" in text and "--version" in text


@pytest.mark.parametrize("command", command_names())
def test_subcommand_help_reads_cleanly(capsys, command):
    text = help_text(capsys, command)
    assert "%%" not in text  # an escape argparse applies to help= only, not description=
    # A float32 default printed as a double (0.05000000074505806): 8+ digits after the point.
    assert not re.search(r"\d\.\d{8,}", text), text


def test_zero_shot_help_prints_95_percent(capsys):
    assert "95% confidence intervals" in help_text(capsys, "zero-shot")


def test_navmesh_defaults_print_short(capsys):
    text = " ".join(help_text(capsys, "import-dataset").split())
    assert "--cell-size CELL_SIZE navmesh setting (default 0.05)" in text
    assert "--agent-radius AGENT_RADIUS navmesh setting (default 0.1)" in text


def test_import_dataset_takes_ifc(capsys):
    assert ".ifc" in MODEL_SUFFIXES
    assert ".ifc" in help_text(capsys, "import-dataset")


def test_import_dataset_failure_hint_offers_what_it_accepts(tmp_path, capsys):
    model = tmp_path / "broken.glb"
    model.write_bytes(b"x")
    error = batchsim.Error(f"'broken.glb': navmesh bake failed {SINGLE_IMPORT_HINT}")
    reason = _reason(error, model)
    assert "--no-navmesh" not in reason and reason.endswith(DATASET_HINT)
    options = help_text(capsys, "import-dataset")
    for option in re.findall(r"--[a-z-]+", DATASET_HINT):  # every option it names exists
        assert option in options
