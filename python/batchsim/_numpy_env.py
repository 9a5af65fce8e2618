"""BatchNavEnv's array modes: "torch" (the default, zero-copy tensors on the env's device)
and "numpy" (fresh host numpy arrays, gymnasium's own convention, so that its numpy vector
wrappers work unchanged and ``gymnasium.wrappers.vector.NumpyToTorch`` turns them back)."""

from __future__ import annotations

from typing import Any

import numpy as np
import torch

ARRAY_MODES = ("torch", "numpy")


def parse_array_mode(array: Any) -> str:
    """``array`` itself when it names an array mode, else a ValueError saying which do."""
    if not isinstance(array, str) or array not in ARRAY_MODES:
        raise ValueError(f"array: expected one of {list(ARRAY_MODES)}, got {array!r}")
    return array


def to_numpy(tree: Any) -> Any:
    """Every torch tensor in ``tree`` (nested dicts, tuples) as a new host numpy array.

    A copy, not a view: the env rewrites its tensors in place at the next step, and numpy
    wrappers (NormalizeObservation, RecordEpisodeStatistics) and users keep what they get.
    One conversion per key, never per environment."""
    if isinstance(tree, torch.Tensor):
        tree = tree.detach()
        # .cpu() of a device tensor is already a new array; a host tensor needs the copy.
        return tree.cpu().numpy() if tree.device.type != "cpu" else tree.numpy().copy()
    if isinstance(tree, dict):
        return {key: to_numpy(value) for key, value in tree.items()}
    if isinstance(tree, tuple):
        return tuple(to_numpy(value) for value in tree)
    return tree


def per_env_observations(batch: dict[str, Any], ended: np.ndarray) -> np.ndarray:
    """gymnasium's ``info["final_obs"]`` layout (its SyncVectorEnv's): an object array of N
    entries, environment i's observation dict (views of `batch`'s arrays or tensors, row i)
    where ``ended[i]``, None elsewhere. A loop over the ended environments only."""
    out = np.full(len(ended), None, dtype=object)
    for i in np.flatnonzero(ended):
        out[i] = {key: value[i] for key, value in batch.items()}
    return out


__all__ = ["ARRAY_MODES", "parse_array_mode", "per_env_observations", "to_numpy"]
