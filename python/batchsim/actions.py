"""The one check of actions at the Python boundary: any integer array, list or torch tensor
(any device) of shape [N] becomes the int32 [N] array the C++ core copies. Errors name what
was expected and what was given, with the core's wording for values out of range."""

from __future__ import annotations

import sys

import numpy as np

from batchsim import _core

ACTIONS = _core.ACTIONS  # names; an action's id is its position
_EXPECTED_VALUES = ", ".join(f"{i} ({name})" for i, name in enumerate(ACTIONS[:-1]))
_EXPECTED_VALUES += f" or {len(ACTIONS) - 1} ({ACTIONS[-1]})"


def _as_array(actions, num_envs: int) -> np.ndarray:
    torch = sys.modules.get("torch")
    if torch is not None and isinstance(actions, torch.Tensor):
        return actions.detach().cpu().numpy()
    array = None if isinstance(actions, str | bytes) else np.asarray(actions)
    if array is None or array.dtype.kind not in "iufb":
        raise ValueError(
            f"actions: expected an integer array of shape [{num_envs}], "
            f"got {type(actions).__name__}"
        )
    return array


def check_actions(actions, num_envs: int) -> np.ndarray:
    """``actions`` as int32 [num_envs]; ValueError naming the first problem otherwise."""
    array = _as_array(actions, num_envs)
    if array.shape != (num_envs,):
        raise ValueError(f"actions: expected shape [{num_envs}], got {list(array.shape)}")
    if array.dtype.kind == "f" and np.isnan(array).any():
        raise ValueError(f"actions: expected integers in 0..{len(ACTIONS) - 1}, got NaN")
    if array.dtype.kind not in "iu":
        raise ValueError(f"actions: expected an integer dtype, got {array.dtype}")
    bad = (array < 0) | (array >= len(ACTIONS))
    if bad.any():
        i = int(np.flatnonzero(bad)[0])
        raise ValueError(f"actions[{i}] is {array[i]}; expected {_EXPECTED_VALUES}")
    return np.ascontiguousarray(array, dtype=np.int32)
