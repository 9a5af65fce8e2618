"""The CUDA stream batchsim orders its GPU work against when the caller names none."""

from __future__ import annotations

import sys

LEGACY_DEFAULT_STREAM = 1  # CU_STREAM_LEGACY, as the DLPack protocol numbers it


def current_stream(device_index: int) -> int:
    """PyTorch's current stream on ``cuda:device_index`` if torch is in use, else legacy."""
    torch = sys.modules.get("torch")
    if torch is None or not torch.cuda.is_available():
        return LEGACY_DEFAULT_STREAM
    handle = torch.cuda.current_stream(device_index).cuda_stream
    return handle or LEGACY_DEFAULT_STREAM
