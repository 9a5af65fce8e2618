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
    return _current_raw_stream(torch, index) or LEGACY_DEFAULT_STREAM


def _current_raw_stream(torch, index: int) -> int:
    """The CUstream of torch's current stream on device ``index``. torch's own raw lookup
    (what its compiled code calls) takes ~1 us; ``current_stream()`` builds a Stream object,
    ~40 us on an H100 host, once per step."""
    raw = getattr(torch._C, "_cuda_getCurrentRawStream", None)
    if raw is not None:
        return int(raw(index))
    return torch.cuda.current_stream(index).cuda_stream


def torch_stream(device, stream: int | None):
    """The torch stream for a CUstream handle on torch ``device`` (consumer_stream's inverse;
    torch's current stream there for None)."""
    torch = sys.modules["torch"]
    if stream is None:
        return torch.cuda.current_stream(device)
    if stream in (0, LEGACY_DEFAULT_STREAM):
        return torch.cuda.default_stream(device)
    return torch.cuda.ExternalStream(stream, device=device)
