"""PatternFill: the self-test kernel (the C++ ``diag::PatternFill``), writing
value[i] = ((i*131 + seed*7919) mod 2^32) mod 1000003 as float32 into a batchsim.Tensor.
``batchsim doctor`` and the tests use it to prove dispatch, sync and zero-copy export. With
CUDA export it is ordered on PyTorch's current stream unless ``stream=`` names another."""

from __future__ import annotations

from batchsim import _core
from batchsim._streams import consumer_stream


class PatternFill(_core.PatternFill):
    """``PatternFill(context)``; ``run(tensor, seed)``; ``PatternFill.expected(i, seed)``."""

    def run(self, tensor, seed: int, stream: int | None = None) -> None:
        super().run(tensor, seed, consumer_stream(tensor.device, stream))


__all__ = ["PatternFill"]
