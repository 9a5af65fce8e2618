"""A user's script of the public API, fully typed: `mypy --strict` must pass on it (make lint;
tests/python/test_typing.py also runs it). Usage: python tests/typing/user_script.py SPLIT"""

from __future__ import annotations

import sys

import gymnasium as gym
import numpy as np
import numpy.typing as npt
import torch

import batchsim


def env_steps(split: str) -> float:
    env = batchsim.BatchNavEnv(split, 4, device="cpu", sensors=("depth",), resolution=(16, 16))
    obs, info = env.reset(seed=0)
    depth: torch.Tensor = obs["depth"]
    total = 0.0
    for _ in range(3):
        obs, reward, terminated, truncated, info = env.step(torch.ones(4, dtype=torch.int64))
        total += float(reward.sum())
        ended: torch.Tensor = terminated | truncated
        assert info["_success"].tolist() == ended.tolist()
    frames: tuple[npt.NDArray[np.uint8], ...] = env.render()
    mosaic: np.ndarray = env.render_mosaic()
    assert len(frames) == 4 and mosaic.ndim == 3 and depth.shape == (4, 1, 16, 16)
    env.close()
    try:
        env.step(torch.ones(4, dtype=torch.int64))
    except batchsim.ClosedError as closed:  # also gymnasium's ClosedEnvironmentError
        assert "after close()" in str(closed)
    return total


def gymnasium_id(split: str) -> None:
    envs = gym.make_vec("batchsim/PointNav-v0", num_envs=2, dataset=split, resolution=(8, 8))
    envs = gym.wrappers.vector.RecordEpisodeStatistics(envs)
    envs.reset(seed=0)
    envs.step(np.ones(2, dtype=np.int64))
    envs.close()


def batch_sim(split: str) -> float:
    sim = batchsim.BatchSim(split, 4, config=batchsim.SimConfig(seed=1))
    sim.reset(seed=0)
    sim.step(np.full(4, 1, dtype=np.int32))
    reward: np.ndarray = sim.reward
    settings = batchsim.NavMeshSettings(agent_radius=0.2, verts_per_poly=6)
    assert settings.verts_per_poly == 6
    return float(reward.sum())


def main() -> None:
    split = sys.argv[1]
    print(f"env {env_steps(split):.3f} sim {batch_sim(split):.3f}")
    gymnasium_id(split)


if __name__ == "__main__":
    main()
