"""Host arrays to device tensors, once per step, without allocating: the simulator's small
per-environment results (reward, flags, metrics, pointgoal) are packed into one staging
buffer and copied to the device in one transfer.

On CUDA the staging buffers are pinned and double-buffered, and a buffer is written again
only once the copy that read it has finished (an event), so a copy still queued behind
rendering never sees the next step's values. On the CPU the outputs are the staging buffer.
"""

from __future__ import annotations

import time

import numpy as np
import torch

_ALIGN = 16


class Staging:
    """fields: name -> (numpy dtype, shape). upload(arrays) returns name -> device tensor;
    the tensors are the same objects every step (rewritten in place)."""

    def __init__(self, fields: dict[str, tuple[np.dtype, tuple[int, ...]]], device):
        self.device = torch.device(device)
        self._layout, size = {}, 0
        for name, (dtype, shape) in fields.items():
            dtype = np.dtype(dtype)
            nbytes = int(np.prod(shape)) * dtype.itemsize
            self._layout[name] = (size, dtype, tuple(shape), nbytes)
            size += -(-nbytes // _ALIGN) * _ALIGN
        cuda = self.device.type == "cuda"
        self._hosts = [
            torch.empty(size, dtype=torch.uint8, pin_memory=cuda) for _ in range(2 if cuda else 1)
        ]
        # One event per buffer, recorded after each copy from it (never recorded: no wait).
        self._events = [torch.cuda.Event() for _ in self._hosts] if cuda else []
        self._next = 0
        self.last_wait_seconds = 0.0  # blocked on the GPU in the last upload (profiling)
        self._device_buffer = (
            torch.empty(size, dtype=torch.uint8, device=self.device) if cuda else self._hosts[0]
        )
        self.tensors = self._views(self._device_buffer, torch)
        self._host_views = [self._views(h.numpy(), np) for h in self._hosts]

    def _views(self, buffer, lib):
        out = {}
        for name, (offset, dtype, shape, nbytes) in self._layout.items():
            raw = buffer[offset : offset + nbytes]
            if lib is np:
                out[name] = raw.view(dtype).reshape(shape)
            else:
                out[name] = raw.view(_TORCH_DTYPES[dtype]).reshape(shape)
        return out

    def upload(self, arrays: dict[str, np.ndarray]) -> dict[str, torch.Tensor]:
        slot = self._next
        self._next = (slot + 1) % len(self._hosts)
        if self._events:
            started = time.perf_counter()
            self._events[slot].synchronize()  # its last copy has read it
            self.last_wait_seconds = time.perf_counter() - started
        for name, view in self._host_views[slot].items():
            np.copyto(view, arrays[name], casting="unsafe")
        if self._events:
            self._device_buffer.copy_(self._hosts[slot], non_blocking=True)
            self._events[slot].record()
        return self.tensors


_TORCH_DTYPES = {
    np.dtype(np.float32): torch.float32,
    np.dtype(np.int32): torch.int32,
    np.dtype(np.int64): torch.int64,
    np.dtype(np.bool_): torch.bool,
}
