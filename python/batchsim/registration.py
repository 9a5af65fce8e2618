"""The gymnasium id: ``gymnasium.make_vec("batchsim/PointNav-v0", ...)``, registered by
``import batchsim``, gives a :class:`batchsim.BatchNavEnv` in gymnasium's own convention:
host numpy arrays (``array="numpy"``) on a CPU context, so that every wrapper of
``gymnasium.wrappers.vector`` works on it unchanged::

    import batchsim, gymnasium as gym
    envs = gym.make_vec("batchsim/PointNav-v0", num_envs=8,
                        dataset="data/procgen/pointnav/train", sensors=("depth",))
    envs = gym.wrappers.vector.RecordEpisodeStatistics(envs)

Why an id beside the class: ``BatchNavEnv`` itself defaults to torch tensors on the GPU, the
fast path trainers want (zero-copy, no host round trip), and gymnasium's vector wrappers are
numpy code that no array mode of ours can change. The id is where a gymnasium user starts,
so its defaults are gymnasium's; the class keeps the trainers' (and refuses gymnasium's
numpy-only wrappers over its torch mode, naming this id). Any other keyword is the class's
(``array="torch"``, ``device="cuda:0"``, ``autoreset_mode``, ``resolution``, ...);
``max_episode_steps`` sets the episode step limit (``TaskConfig.max_episode_steps``), as
gymnasium's ``make`` names it.

The batch is one simulator, not N copies of a single env: only the ``vector_entry_point``
mode exists (``vectorization_mode="sync"``/``"async"`` and ``gymnasium.make`` raise).
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from batchsim.datasets import PointNavDataset
    from batchsim.env import BatchNavEnv

ENV_ID = "batchsim/PointNav-v0"


def make_vec_env(
    num_envs: int = 1,
    *,
    dataset: PointNavDataset | str | os.PathLike[str],
    array: str = "numpy",
    device: str | None = "cpu",
    max_episode_steps: int | None = None,
    **options: Any,
) -> BatchNavEnv:
    """gymnasium's vector entry point of ENV_ID: a BatchNavEnv of num_envs environments on
    `dataset` (a split directory or a PointNavDataset), numpy arrays on the CPU unless told
    otherwise; other keywords are BatchNavEnv's."""
    from batchsim.env import BatchNavEnv
    from batchsim.options import TaskConfig

    if max_episode_steps is not None:
        if "task" in options:
            raise TypeError("pass max_episode_steps or task=TaskConfig(...), not both")
        options["task"] = TaskConfig(max_episode_steps=max_episode_steps)
    return BatchNavEnv(dataset, num_envs, array=array, device=device, **options)


def single_env_refused(**kwargs: Any) -> None:
    """gymnasium's single-env entry point of ENV_ID: there is none, the batch is one
    simulator."""
    raise TypeError(
        f"{ENV_ID} is a vector env (one simulator steps the whole batch): make it with "
        f'gymnasium.make_vec("{ENV_ID}", num_envs=N, dataset=...), not gymnasium.make or '
        'vectorization_mode="sync"/"async"'
    )


def register() -> None:
    """Adds ENV_ID to gymnasium's registry (once)."""
    import gymnasium

    if ENV_ID not in gymnasium.registry:
        gymnasium.register(
            ENV_ID,
            entry_point=single_env_refused,
            vector_entry_point=make_vec_env,
        )


__all__ = ["ENV_ID", "make_vec_env", "register"]
