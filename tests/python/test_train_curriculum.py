"""The trainer's curriculum over geodesic distance (curriculum_start_m, curriculum_frames):
the limit it sets on its envs and logs at each update, from the global frame count; off by
default; bad settings refused. Exact resume: test_train_resume's "curriculum" case."""

from __future__ import annotations

import math

import numpy as np
import pytest

torch = pytest.importorskip("torch")

from batchsim.datasets import load_pointnav  # noqa: E402
from batchsim.train.presets import make_config  # noqa: E402
from batchsim.train.trainer import Trainer  # noqa: E402


@pytest.fixture(scope="module")
def split(procgen_dataset):
    root, _ = procgen_dataset
    return root / "pointnav" / "train" / "train.json.gz"


@pytest.fixture
def tiny(tiny_train_overrides, tmp_path):
    """tiny(*extra): the demo preset at conftest's tiny size for 96 frames, then the extra
    KEY=VALUE words."""

    def config(*extra):
        words = tiny_train_overrides(tmp_path, total_frames=96)
        return make_config("demo", overrides=[*words, *extra])

    return config


def test_each_update_sets_and_logs_the_limit_of_the_frames_done(split, tiny):
    geodesic = np.array([e.geodesic_distance for e in load_pointnav(split)], np.float32)
    longest = float(geodesic.max())
    trainer = Trainer(tiny("curriculum_start_m=4", "curriculum_frames=64"))
    assert [env.max_episode_geodesic for env in trainer.envs] == [4.0, 4.0]  # at the reset
    limits = [4.0, 4.0 * (longest / 4.0) ** (32 / 64)]  # at frames 0 and 32
    for update, limit in enumerate(limits):
        stats = trainer.train_step()
        assert trainer.frames == 32 * (update + 1)
        assert stats["curriculum_m"] == pytest.approx(limit, rel=1e-12)  # its rollout's
        # Every running episode started under that limit or a lower one.
        for env in trainer.envs:
            assert geodesic[env.sim.episode_index].max() <= limit
    # Set after the update for the next rollout: L(64) is no limit.
    assert [env.max_episode_geodesic for env in trainer.envs] == [math.inf, math.inf]
    assert "curriculum_m" not in trainer.train_step()
    trainer.close()


def test_off_by_default(tiny):
    config = tiny("total_frames=32")
    assert config.curriculum_start_m is None
    trainer = Trainer(config)
    assert trainer.curriculum.limit == math.inf
    assert "curriculum_m" not in trainer.train_step()
    assert [env.max_episode_geodesic for env in trainer.envs] == [math.inf, math.inf]
    trainer.close()
    zero = Trainer(tiny("total_frames=32", "curriculum_start_m=0"))
    assert zero.curriculum.limit == math.inf
    assert [env.max_episode_geodesic for env in zero.envs] == [math.inf, math.inf]
    zero.close()


@pytest.mark.parametrize(
    "extra, message",
    [
        # TrainConfig's rules (batchsim.train.fields) refuse these before check_curriculum.
        (["curriculum_start_m=-1"], r"curriculum_start_m: expected None or a finite number >= 0"),
        (["curriculum_start_m=nan"], r"curriculum_start_m: .* got nan"),
        (["curriculum_start_m=inf"], r"curriculum_start_m: .* got inf"),
        (
            ["curriculum_start_m=3", "curriculum_frames=0"],
            "curriculum_frames: expected an integer >= 1, got 0",
        ),
    ],
)
def test_bad_settings_are_refused(tiny, extra, message):
    with pytest.raises(ValueError, match=message):
        tiny(*extra)
