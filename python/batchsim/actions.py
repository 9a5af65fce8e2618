"""The checks of actions and reset masks at the Python boundary. Host actions (any integer
array, list or CPU tensor of shape [N]) become the int32 [N] array written into the core's
action buffer (:func:`check_actions`); a reset mask becomes a bool [N] array
(:func:`check_mask`), with no string or float read as a truth value. A numpy masked array
is refused: converting it would drop its mask, acting on the values it hides.
A CUDA tensor is checked by its metadata alone and copied into pinned memory on its stream
(:class:`PinnedActions`); the C++ step reads and checks its values once that copy is done,
so the caller never waits for the GPU. Errors name what was expected and what was given,
with the core's wording for values out of range."""

from __future__ import annotations

import sys

import numpy as np

from batchsim import _core
from batchsim._streams import torch_stream

ACTIONS = _core.ACTIONS  # names; an action's id is its position
_EXPECTED_VALUES = ", ".join(f"{i} ({name})" for i, name in enumerate(ACTIONS[:-1]))
_EXPECTED_VALUES += f" or {len(ACTIONS) - 1} ({ACTIONS[-1]})"
# Device dtypes that widen to int64 exactly, so that the core sees every value as given.
_DEVICE_DTYPES = ("int8", "uint8", "int16", "int32", "int64")


def _host_array(values, name: str, expected: str) -> np.ndarray:
    """`values` (array-like or torch tensor) as a numpy array of numbers or bools."""
    torch = sys.modules.get("torch")
    if torch is not None and isinstance(values, torch.Tensor):
        return values.detach().cpu().numpy()
    if isinstance(values, np.ma.MaskedArray):
        raise ValueError(
            f"{name}: expected {expected}, got a numpy masked array (its mask would be "
            "ignored: fill the hidden entries first, e.g. array.filled(...))"
        )
    array = None if isinstance(values, str | bytes) else np.asarray(values)
    if array is None or array.dtype.kind not in "iufb":
        raise ValueError(f"{name}: expected {expected}, got {_described(values, array)}")
    return array


_KINDS = {"U": "strings", "S": "bytes", "O": "objects", "c": "complex numbers"}


def _described(values, array: np.ndarray | None) -> str:
    """What was given, in words: "str", "list of strings", "float64 values"."""
    if array is None or (array.ndim == 0 and not isinstance(values, np.ndarray)):
        return type(values).__name__
    if isinstance(values, np.ndarray):
        return f"{array.dtype} values"
    return f"{type(values).__name__} of {_KINDS.get(array.dtype.kind, str(array.dtype))}"


def _as_array(actions, num_envs: int) -> np.ndarray:
    return _host_array(actions, "actions", f"an integer array of shape [{num_envs}]")


def check_mask(mask, num_envs: int, name: str = "mask") -> np.ndarray:
    """``mask`` as bool [num_envs]: bools, or integers 0 and 1; ValueError otherwise (a
    string such as "no" is not read as True)."""
    expected = f"bool [{num_envs}] (True/False, or 0 and 1)"
    array = _host_array(mask, name, expected)
    if array.shape != (num_envs,):
        raise ValueError(f"{name}: expected {expected}, got shape {list(array.shape)}")
    if array.dtype.kind == "f":
        raise ValueError(f"{name}: expected {expected}, got {_described(mask, array)}")
    bad = ~np.isin(array, (0, 1))
    if bad.any():
        i = int(np.flatnonzero(bad)[0])
        raise ValueError(f"{name}[{i}] is {array[i]}; expected {expected}")
    return np.ascontiguousarray(array, dtype=bool)


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


def is_cuda_tensor(actions) -> bool:
    torch = sys.modules.get("torch")
    return torch is not None and isinstance(actions, torch.Tensor) and actions.is_cuda


def check_cuda_actions(actions, num_envs: int) -> None:
    """The shape and dtype of a CUDA tensor of actions: its metadata, no wait for the GPU."""
    if tuple(actions.shape) != (num_envs,):
        raise ValueError(f"actions: expected shape [{num_envs}], got {list(actions.shape)}")
    if str(actions.dtype).removeprefix("torch.") not in _DEVICE_DTYPES:
        raise ValueError(
            f"actions: expected an integer dtype ({', '.join(_DEVICE_DTYPES)}), got {actions.dtype}"
        )


class PinnedActions:
    """Hands CUDA tensors of actions to the C++ step without waiting for the GPU.

    stage() widens them to int64 on the GPU, copies them into a persistent pinned [N] buffer
    on the stream and records an event after the copy; the step's thread waits on that event
    (cuEventSynchronize) before it reads and checks the buffer. One step at a time reads it
    (the Simulator stages only while no step runs), so one buffer and one event suffice; both
    must outlive the step, so their owner waits for it before dropping them.
    """

    def __init__(self, num_envs: int):
        self.num_envs = num_envs
        self._values = None  # pinned int64 [N]; made on first use (pinning needs CUDA)
        self._event = None
        self._event_device = None

    def stage(self, actions, stream: int | None) -> tuple[int, int, int]:
        """Queues the copy of ``actions`` after the work on ``stream`` (a CUstream handle;
        torch's current stream on their device when None). Returns (address of the values,
        the event's CUevent handle, the CUDA device ordinal): the core step's ``pending``."""
        torch = sys.modules["torch"]
        check_cuda_actions(actions, self.num_envs)
        device = actions.device
        on = torch_stream(device, stream)
        if self._values is None:
            self._values = torch.empty(self.num_envs, dtype=torch.int64, pin_memory=True)
        if self._event_device != device:  # an event records on its first device only
            self._event, self._event_device = torch.cuda.Event(), device
        with torch.cuda.stream(on):
            self._values.copy_(actions.to(torch.int64), non_blocking=True)
            self._event.record(on)
        if stream is not None:  # read on a stream other than the one it was made on
            actions.record_stream(on)
        return self._values.data_ptr(), self._event.cuda_event, device.index
