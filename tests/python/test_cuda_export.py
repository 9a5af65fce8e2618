"""The CUDA path (NVIDIA machines only): Vulkan memory imported into CUDA, ordered by an
exported timeline semaphore. Skipped where no CUDA driver is installed."""

import random

import pytest
import torch

import batchsim

pytestmark = pytest.mark.skipif(not torch.cuda.is_available(), reason="needs a CUDA GPU")


def expected_on_gpu(index: torch.Tensor, seed: int) -> torch.Tensor:
    mixed = (index * 131 + seed * 7919) % (1 << 32)
    return (mixed % 1_000_003).to(torch.float32)


def test_tensor_is_cuda_and_correct(cuda_context):
    assert cuda_context.exports_cuda and cuda_context.torch_device == "cuda:0"
    tensor = cuda_context.tensor((1000, 37))
    seed = random.SystemRandom().randrange(1 << 32)
    batchsim.PatternFill(cuda_context).run(tensor, seed)
    values = torch.from_dlpack(tensor)
    assert values.device == torch.device("cuda:0") and tensor.device == "cuda:0"
    index = torch.arange(values.numel(), device="cuda:0", dtype=torch.int64)
    assert torch.equal(values.flatten(), expected_on_gpu(index, seed))


@pytest.mark.parametrize("side_stream", [False, True])
def test_ordering_holds_over_1000_dispatch_read_rounds(cuda_context, side_stream):
    """Each round a Vulkan dispatch rewrites the buffer and torch reads it, with no host
    sync in between: a missing wait either way shows up as a mismatch."""
    count = 1 << 20
    tensor = cuda_context.tensor((count,))
    fill = batchsim.PatternFill(cuda_context)
    values = torch.from_dlpack(tensor)
    index = torch.arange(count, device="cuda:0", dtype=torch.int64)
    mismatches = torch.zeros((), device="cuda:0", dtype=torch.int64)
    base = random.SystemRandom().randrange(1 << 31)
    stream = torch.cuda.Stream() if side_stream else torch.cuda.current_stream()
    with torch.cuda.stream(stream):
        for round_ in range(1000):
            fill.run(tensor, base + round_)  # orders against torch's current stream
            mismatches += (values != expected_on_gpu(index, base + round_)).sum()
    torch.cuda.synchronize()
    assert mismatches.item() == 0
