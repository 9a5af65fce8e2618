"""Wrong arguments to any call of batchsim._core get one line naming the call, the argument,
what it takes and what it got, never pybind11's "incompatible ... arguments" dump
(python/batchsim/_arguments.py; issue 40, part C). scripts/sweep_arguments.py calls every
public constructor, function, method and property setter wrongly; each must answer so."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

import batchsim
from batchsim.errors import ArgumentTypeError, InvalidArgumentError

ROOT = Path(__file__).resolve().parents[2]


def _message(call) -> str:
    with pytest.raises(ArgumentTypeError) as caught:
        call()
    # Both what `except TypeError` (Python's own calls) and batchsim's errors expect.
    assert isinstance(caught.value, TypeError)
    assert isinstance(caught.value, InvalidArgumentError)
    message = str(caught.value)
    assert "incompatible" not in message and "Invoked with" not in message, message
    assert "\n" not in message, message
    return message


def test_every_core_call_refuses_wrong_arguments_by_name(procgen_dataset) -> None:
    split = procgen_dataset[0] / "pointnav" / "train"
    result = subprocess.run(
        [sys.executable, str(ROOT / "scripts" / "sweep_arguments.py"), "--split", str(split)],
        capture_output=True,
        text=True,
        timeout=300,
    )
    findings = [line for line in result.stdout.splitlines() if line.startswith("FINDING")]
    assert result.returncode == 0 and not findings, "\n".join(findings) or result.stderr
    calls = result.stdout.count("\n")
    assert calls > 200, result.stdout  # the sweep reached every class's members


def test_messages_name_argument_expected_and_given() -> None:
    assert _message(lambda: batchsim.Context(export=3)) == (
        "Context(): export: expected str, got int 3"
    )
    assert _message(lambda: batchsim.Scene.load(3)) == (
        "Scene.load(): path: expected PathLike | str | bytes, got int 3"
    )
    message = _message(lambda: batchsim.Context(exprt="cpu"))
    assert "unexpected keyword 'exprt' (did you mean 'export'?)" in message
    assert "device, validation, export" in message
    message = _message(lambda: batchsim.SimConfig(num_env=3))
    assert message.startswith("SimConfig has no field 'num_env' (did you mean 'num_envs'?)")
    assert _message(lambda: batchsim.SimConfig(4)).startswith(
        "SimConfig(): takes keyword arguments only"
    )
    assert _message(batchsim.NavMesh).startswith("NavMesh() cannot be called to make one: use ")


def test_navmesh_settings_take_their_fields_as_keywords() -> None:
    settings = batchsim.NavMeshSettings(cell_size=0.1, verts_per_poly=5)
    assert settings.cell_size == pytest.approx(0.1)
    assert settings.verts_per_poly == 5
    assert settings.agent_radius == batchsim.NavMeshSettings().agent_radius  # the default
    with pytest.raises(InvalidArgumentError, match=r"^NavMeshSettings.cell_size: expected"):
        batchsim.NavMeshSettings(cell_size="a")
    assert "(did you mean 'cell_size'?)" in _message(
        lambda: batchsim.NavMeshSettings(cell_sise=0.1)
    )


def test_a_call_that_binds_is_untouched(cpu_context) -> None:
    tensor = cpu_context.tensor([2, 3], "float32")
    assert tensor.shape == (2, 3)
    # An error raised inside a call that bound (not pybind11's refusal) passes unchanged.
    with pytest.raises(batchsim.MissingFileError):
        batchsim.Scene.load("/nonexistent/scene.bsscene")


def test_python_api_arguments_by_name(procgen_dataset, small_envs) -> None:
    split = procgen_dataset[0] / "pointnav" / "train"
    assert _message(lambda: batchsim.Simulator(3)).startswith(
        "dataset: expected a PointNavDataset or a split path (str or os.PathLike), got int 3"
    )
    assert _message(lambda: batchsim.BatchSim(split, 2, config=3)) == (
        "config: expected a SimConfig or None, got int 3"
    )
    assert _message(lambda: batchsim.Simulator(split, 2, render=3)) == (
        "render: expected a RenderOptions or None, got int 3"
    )
    assert _message(lambda: small_envs(sensor_noise=3)) == (
        "sensor_noise: expected a SensorNoise or None, got int 3"
    )
    with pytest.raises(InvalidArgumentError, match=r"^render_mode: expected None or one of"):
        small_envs(render_mode="human")
    assert _message(lambda: batchsim.import_scene(3, "out.bsscene")) == (
        "model: expected a path (str or os.PathLike), got int 3"
    )
    assert _message(lambda: batchsim.datasets.load_pointnav(None)) == (
        "path: expected a path (str or os.PathLike), got NoneType None"
    )
    with pytest.raises(InvalidArgumentError, match=r"^num_envs: expected an integer in 2\.\."):
        batchsim.make_env_halves(split, "4")
