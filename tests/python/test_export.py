"""Zero-copy export: a compute shader writes a buffer that torch reads in place."""

import gc
import random

import numpy as np
import pytest
import torch

import batchsim
from pattern import expected_pattern

DTYPES = {
    "float32": torch.float32,
    "float16": torch.float16,
    "int32": torch.int32,
    "int64": torch.int64,
    "uint8": torch.uint8,
}


def fresh_seed() -> int:
    return random.SystemRandom().randrange(1 << 32)


def host_values(tensor: torch.Tensor) -> np.ndarray:
    return tensor.detach().cpu().numpy().reshape(-1)


def test_cpu_reference_matches_the_kernels_own_reference():
    seed = fresh_seed()
    reference = expected_pattern(50, seed)
    assert [batchsim.PatternFill.expected(i, seed) for i in range(50)] == reference.tolist()


@pytest.mark.parametrize("count", [1, 255, 256, 1000, 4099])
def test_compute_shader_fills_buffer_read_in_place_by_torch(context, count):
    seed = fresh_seed()
    tensor = context.tensor((count,))
    fill = batchsim.PatternFill(context)
    fill.run(tensor, seed)
    values = torch.from_dlpack(tensor)
    assert values.device == torch.device(context.torch_device)
    assert values.dtype == torch.float32 and values.shape == (count,)
    np.testing.assert_array_equal(
        host_values(values), expected_pattern(count, seed), err_msg=f"seed {seed}"
    )


def test_grid_stride_loop_covers_more_than_one_dispatch_worth(context):
    count = 65535 * 256 + 12345  # beyond the most workgroups one dispatch launches
    seed = fresh_seed()
    tensor = context.tensor((count,))
    batchsim.PatternFill(context).run(tensor, seed)
    values = host_values(torch.from_dlpack(tensor))
    np.testing.assert_array_equal(values, expected_pattern(count, seed), err_msg=f"seed {seed}")


def test_two_exports_share_one_buffer_and_see_new_dispatches(context):
    tensor = context.tensor((8, 33))
    fill = batchsim.PatternFill(context)
    first_seed, second_seed = fresh_seed(), fresh_seed() ^ 1
    fill.run(tensor, first_seed)
    a = torch.from_dlpack(tensor)
    b = torch.from_dlpack(tensor)
    assert a.data_ptr() == b.data_ptr() == tensor.data_ptr
    np.testing.assert_array_equal(host_values(a), expected_pattern(264, first_seed))

    fill.run(tensor, second_seed)  # no new export: the same torch tensors see new values
    np.testing.assert_array_equal(host_values(a), expected_pattern(264, second_seed))
    np.testing.assert_array_equal(host_values(b), expected_pattern(264, second_seed))


def test_torch_tensor_outlives_every_batchsim_owner():
    context = batchsim.Context()
    tensor = context.tensor((1024,))
    fill = batchsim.PatternFill(context)
    seed = fresh_seed()
    fill.run(tensor, seed)
    values = torch.from_dlpack(tensor)
    del context, tensor, fill
    gc.collect()
    np.testing.assert_array_equal(host_values(values), expected_pattern(1024, seed))
    values += 1  # still writable memory
    np.testing.assert_array_equal(host_values(values), expected_pattern(1024, seed) + 1)


def test_capsules_own_the_buffer_until_released(context):
    tensor = context.tensor((16,))
    baseline = tensor._owner_count
    capsule = tensor.__dlpack__()
    assert tensor._owner_count == baseline + 1  # an unconsumed capsule holds the buffer
    del capsule
    gc.collect()
    assert tensor._owner_count == baseline  # ... and lets go when dropped
    view = torch.from_dlpack(tensor)
    assert tensor._owner_count == baseline + 1  # torch's tensor holds it now
    del view
    gc.collect()
    assert tensor._owner_count == baseline


@pytest.mark.parametrize("dtype", sorted(DTYPES))
def test_every_dtype_exports_with_its_shape_and_type(context, dtype):
    tensor = context.tensor((3, 5, 7), dtype=dtype)
    assert tensor.dtype == dtype and tensor.shape == (3, 5, 7)
    assert tensor.nbytes == 105 * torch.tensor([], dtype=DTYPES[dtype]).element_size()
    view = torch.from_dlpack(tensor)
    assert view.dtype == DTYPES[dtype] and view.shape == (3, 5, 7) and view.is_contiguous()


def test_cpu_export_is_host_memory(cpu_context):
    tensor = cpu_context.tensor((4,))
    assert tensor.device == "cpu" and tensor.__dlpack_device__() == (1, 0)
    assert torch.from_dlpack(tensor).device.type == "cpu"


@pytest.mark.parametrize(
    ("shape", "dtype", "message"),
    [
        ((), "float32", "at least one dimension"),
        ((4, 0), "float32", r"extents must be positive, got shape \[4, 0\]"),
        ((-2,), "float32", "extents must be positive"),
        ((1 << 30, 1 << 30), "float32", "exceeds 1 TiB"),
        ((4,), "float64", "unsupported dtype 'float64': expected one of float32"),
    ],
)
def test_bad_tensor_requests_raise_clear_errors(context, shape, dtype, message):
    with pytest.raises(batchsim.InvalidArgumentError, match=message):
        context.tensor(shape, dtype=dtype)


def test_pattern_fill_rejects_wrong_dtype_and_foreign_tensors(context, cpu_context):
    fill = batchsim.PatternFill(context)
    with pytest.raises(batchsim.InvalidArgumentError, match="expected a float32 tensor, got int32"):
        fill.run(context.tensor((4,), dtype="int32"), 1)
    with pytest.raises(batchsim.InvalidArgumentError, match=r"different batchsim\.Context"):
        fill.run(cpu_context.tensor((4,)), 1)


def test_dlpack_refuses_copies_and_other_devices(context):
    tensor = context.tensor((4,))
    with pytest.raises(BufferError, match="without copies"):
        tensor.__dlpack__(copy=True)
    with pytest.raises(BufferError, match="cannot be exported to another device"):
        tensor.__dlpack__(dl_device=(7, 3))
