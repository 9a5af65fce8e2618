"""`batchsim video` writes a GIF with one frame per simulator state (each episode's start,
then every step), the agent's marker moves on the map, Habitat episodes run on an
import-dataset output through --scenes-dir, and bad input is a clear message."""

from __future__ import annotations

import argparse

import numpy as np
import pytest

pytest.importorskip("torch")
Image = pytest.importorskip("PIL.Image")

from batchsim.cli.video import add_command as add_video_command  # noqa: E402
from batchsim.train.evaluate import ForwardAgent, RandomAgent  # noqa: E402
from batchsim.train.video import record_episodes, video_simulator  # noqa: E402
from batchsim.viz import heading_vector, write_gif  # noqa: E402
from batchsim.viz.episode_map import MAP_WIDTH  # noqa: E402
from batchsim.viz.frames import COLOURS, VIEW_HEIGHT  # noqa: E402
from habitat_layout import gibson_scenes, habitat_split  # noqa: E402

STEP_LIMIT = 20


@pytest.fixture(scope="module")
def val(procgen_dataset):
    root, _ = procgen_dataset
    return root / "pointnav" / "val"


@pytest.fixture(scope="module")
def habitat(procgen_dataset, tmp_path_factory):
    """(split, OUT): import-dataset's OUT from a Habitat-layout scene_datasets folder, and a
    split elsewhere whose scene_ids ("data/scene_datasets/gibson/apartment.glb") resolve
    only with scenes_dir=OUT."""
    from batchsim.datasets import import_dataset

    root = tmp_path_factory.mktemp("habitat")
    gibson_scenes(procgen_dataset[0], root / "scene_datasets", names=("apartment",))
    import_dataset(root / "scene_datasets", root / "packed", workers=1, show_progress=False)
    split = habitat_split(root / "packed", root / "pointnav/gibson/v1", ["gibson/apartment.glb"])
    return split, root / "packed"


def small_sim(split, cpu_context):
    return video_simulator(
        split,
        sensors=("depth", "rgb"),
        resolution=16,
        max_episode_steps=STEP_LIMIT,
        context=cpu_context,
    )


class CountingAgent(RandomAgent):
    """RandomAgent that counts its steps, to compare with the number of frames."""

    steps = 0

    def act(self, sim, began):
        self.steps += 1
        return super().act(sim, began)


def run_command(*argv: str) -> int:
    parser = argparse.ArgumentParser()
    add_video_command(parser.add_subparsers())
    args = parser.parse_args(["video", *argv])
    return args.handler(args)


def agent_pixel(frame: np.ndarray) -> np.ndarray:
    """Mean (row, col) of the agent's marker on the map panel (the rightmost panel)."""
    panel = frame[:, -MAP_WIDTH - 4 :]
    rows, cols = np.nonzero((panel == COLOURS["agent"]).all(-1))
    assert len(rows), "no agent marker on the map"
    return np.array([rows.mean(), cols.mean()])


def test_a_gif_has_a_frame_per_step_plus_each_start(val, cpu_context, tmp_path):
    agent = CountingAgent(seed=2)
    frames = record_episodes(small_sim(val, cpu_context), agent, 2)
    assert len(frames) == agent.steps + 2
    height, width, _ = frames[0].shape
    assert height > VIEW_HEIGHT and width > 2 * VIEW_HEIGHT + MAP_WIDTH  # depth, rgb, map
    assert all(f.shape == frames[0].shape and f.dtype == np.uint8 for f in frames)

    out = tmp_path / "episodes.gif"
    write_gif(frames, out, fps=10)
    with Image.open(out) as gif:
        assert gif.format == "GIF"
        assert gif.n_frames == len(frames)
        assert gif.size == (width, height)
    assert [p.name for p in tmp_path.iterdir()] == ["episodes.gif"]  # no temporary left


def test_the_agent_moves_on_the_map(val, cpu_context):
    frames = record_episodes(small_sim(val, cpu_context), ForwardAgent(), 1)
    assert len(frames) == STEP_LIMIT + 1  # forward-only never stops: truncated at the limit
    moved = np.linalg.norm(agent_pixel(frames[-1]) - agent_pixel(frames[0]))
    assert moved > 3


def test_heading_follows_habitat_conventions():
    np.testing.assert_allclose(heading_vector([0, 0, 0, 1]), [0, 0, -1], atol=1e-12)
    quarter_left = [0, np.sin(np.pi / 4), 0, np.cos(np.pi / 4)]  # +90 deg about y
    np.testing.assert_allclose(heading_vector(quarter_left), [-1, 0, 0], atol=1e-12)


def test_the_command_writes_the_gif(val, tmp_path, capsys):
    out = tmp_path / "video.gif"
    argv = ["--agent", "forward", "--split", str(val), "--episodes", "1", "--out", str(out)]
    assert (
        run_command(*argv, "--max-episode-steps", "3", "--resolution", "16", "--device", "cpu") == 0
    )
    assert "4 frames of 1 episodes" in capsys.readouterr().out
    with Image.open(out) as gif:
        assert gif.n_frames == 4


def test_scenes_dir_records_episodes_of_an_imported_dataset(habitat, tmp_path, capsys):
    split, packed = habitat
    out = tmp_path / "habitat.gif"
    argv = ["--agent", "forward", "--split", str(split), "--episodes", "2", "--out", str(out)]
    options = ["--max-episode-steps", "3", "--resolution", "16", "--device", "cpu"]
    assert run_command(*argv, *options, "--scenes-dir", str(packed)) == 0
    assert "8 frames of 2 episodes" in capsys.readouterr().out  # forward: 3 steps + the start
    with Image.open(out) as gif:
        assert gif.n_frames == 8


@pytest.mark.parametrize("where", ["missing", "empty"])
def test_a_wrong_scenes_dir_names_the_scene_it_looked_for(habitat, tmp_path, capsys, where):
    split, _ = habitat
    wrong = tmp_path / where
    if where == "empty":
        wrong.mkdir()
    out = tmp_path / "habitat.gif"
    argv = ["--agent", "forward", "--split", str(split), "--scenes-dir", str(wrong)]
    assert run_command(*argv, "--out", str(out), "--device", "cpu") == 2
    error = capsys.readouterr().err
    assert error.startswith("batchsim video: error: scene 'data/scene_datasets/gibson/apartment")
    assert str(wrong / "gibson/apartment.bsscene") in error and "Traceback" not in error
    assert not out.exists()


@pytest.mark.parametrize(
    "argv, message",
    [
        (["--agent", "random", "--split", "{tmp}/missing"], "missing"),
        (["--split", "{val}"], "--checkpoint"),
        (["--agent", "random"], "--split"),
        (["--agent", "random", "--split", "{val}", "--episodes", "0"], "--episodes"),
        (["--checkpoint", "{tmp}/no-run"], "no-run"),
    ],
    ids=["missing-split", "policy-without-checkpoint", "no-split", "no-episodes", "no-checkpoint"],
)
def test_bad_input_is_a_clear_message(val, tmp_path, capsys, argv, message):
    argv = [a.format(tmp=tmp_path, val=val) for a in argv]
    out = tmp_path / "video.gif"
    assert run_command(*argv, "--out", str(out), "--device", "cpu") == 2
    error = capsys.readouterr().err
    assert error.startswith("batchsim video: error:") and message in error
    assert "Traceback" not in error
    assert not out.exists()


def write_demo_checkpoint(run, *overrides: str):
    """A checkpoint of an untrained small policy in run/, its config the demo preset's."""
    from batchsim.train.checkpoint import config_state, write_checkpoint
    from batchsim.train.models import Policy
    from batchsim.train.presets import make_config

    overrides = [
        "hidden_size=16",
        "sim.task.max_episode_steps=4",
        "render.width=16",
        "render.height=16",
        *overrides,
    ]
    config = make_config("demo", overrides=overrides)
    policy = Policy("simple_cnn", 1, hidden=16, layers=1, rnn="gru")
    state = {"config": config_state(config), "policy": policy.state_dict(), "updates": 0}
    write_checkpoint(state, run / "checkpoint.pt")


def test_a_checkpoint_records_its_policy_on_its_val_split(val, tmp_path, capsys):
    write_demo_checkpoint(tmp_path / "run", f"val_dataset={val}")
    out = tmp_path / "policy.gif"
    assert (
        run_command("--checkpoint", str(tmp_path / "run"), "--episodes", "1", "--out", str(out))
        == 0
    )
    assert "of 1 episodes" in capsys.readouterr().out
    with Image.open(out) as gif:
        assert 2 <= gif.n_frames <= 5  # the start, then up to the step limit


def test_a_checkpoint_brings_its_scenes_dir(habitat, tmp_path, capsys):
    split, packed = habitat
    write_demo_checkpoint(tmp_path / "run", f"val_dataset={split}", f"scenes_dir={packed}")
    out = tmp_path / "policy.gif"
    argv = ["--checkpoint", str(tmp_path / "run"), "--episodes", "1", "--out", str(out)]
    assert run_command(*argv, "--device", "cpu") == 0
    assert "of 1 episodes" in capsys.readouterr().out
    assert run_command(*argv, "--device", "cpu", "--scenes-dir", str(tmp_path)) == 2
    assert str(tmp_path / "gibson/apartment.bsscene") in capsys.readouterr().err  # overridden
