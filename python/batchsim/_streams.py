"""The CUDA stream batchsim orders its GPU work against: the caller's, else PyTorch's current
stream. The C++ core takes it as an argument (0, the default stream, when none is passed)."""

from __future__ import annotations

import sys

LEGACY_DEFAULT_STREAM = 1  # CU_STREAM_LEGACY, as the DLPack protocol numbers it


def consumer_stream(device: str, stream: int | None = None) -> int:
    """``stream`` if given; for a "cuda:N" device PyTorch's current stream there when torch is
    in use (else the legacy default stream); 0 (unused) for "cpu"."""
    if stream is not None:
        return int(stream)
    if not device.startswith("cuda"):
        return 0
    torch = sys.modules.get("torch")
    if torch is None or not torch.cuda.is_available():
        return LEGACY_DEFAULT_STREAM
    index = int(device.partition(":")[2] or 0)
    return torch.cuda.current_stream(index).cuda_stream or LEGACY_DEFAULT_STREAM


def torch_stream(device, stream: int | None):
    """The torch stream for a CUstream handle on torch ``device`` (consumer_stream's inverse;
    torch's current stream there for None)."""
    torch = sys.modules["torch"]
    if stream is None:
        return torch.cuda.current_stream(device)
    if stream in (0, LEGACY_DEFAULT_STREAM):
        return torch.cuda.default_stream(device)
    return torch.cuda.ExternalStream(stream, device=device)
