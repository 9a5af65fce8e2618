"""The renderer's observations handed to JAX through DLPack (CPU export): same values, shapes
and dtypes as numpy sees, the same memory (no copy), updates visible after a step, and the
buffer kept alive by the JAX array."""

from __future__ import annotations

import gc

import numpy as np
import pytest

jax = pytest.importorskip("jax")
jnp = pytest.importorskip("jax.numpy")

import batchsim  # noqa: E402

FORWARD = 1
NUM_ENVS, HEIGHT, WIDTH = 4, 16, 20
EXPECTED = {
    "depth": ((NUM_ENVS, 1, HEIGHT, WIDTH), np.float32),
    "rgb": ((NUM_ENVS, HEIGHT, WIDTH, 4), np.uint8),
}
# jnp.from_dlpack is the array-API spelling; jax.dlpack.from_dlpack the older one.
IMPORTERS = {"jnp.from_dlpack": jnp.from_dlpack, "jax.dlpack.from_dlpack": jax.dlpack.from_dlpack}


@pytest.fixture(scope="module")
def dataset(procgen_dataset):
    root, _ = procgen_dataset
    return root / "pointnav" / "train" / "train.json.gz"


@pytest.fixture
def sim(dataset, cpu_context):
    sim = batchsim.Simulator(
        dataset,
        NUM_ENVS,
        sensors=("depth", "rgb"),
        resolution=(HEIGHT, WIDTH),
        context=cpu_context,
    )
    sim.reset(seed=0)
    step_forward(sim, 3)
    yield sim
    sim.close()


def step_forward(sim, steps: int) -> None:
    for _ in range(steps):
        sim.actions[:] = FORWARD
        sim.step()


@pytest.mark.parametrize("importer", IMPORTERS)
@pytest.mark.parametrize("name", EXPECTED)
def test_jax_imports_the_observations_exactly(sim, name, importer):
    tensor = getattr(sim, name)
    array = IMPORTERS[importer](tensor)
    shape, dtype = EXPECTED[name]
    assert array.shape == shape and array.dtype == dtype
    assert {d.platform for d in array.devices()} == {"cpu"}
    expected = np.from_dlpack(tensor)
    assert expected.shape == shape and expected.dtype == dtype
    np.testing.assert_array_equal(np.asarray(array), expected)
    # Not a vacuous comparison: the views hold a rendered scene.
    if name == "depth":
        assert (expected > 0).mean() > 0.5 and np.isfinite(expected).all()
    else:
        assert (expected[..., 3] == 255).all() and expected[..., :3].std() > 0


@pytest.mark.parametrize("name", EXPECTED)
def test_jax_aliases_the_buffer_and_sees_the_next_step(sim, name):
    tensor = getattr(sim, name)
    # XLA's CPU client aliases a DLPack buffer only when it is 64-byte aligned and copies it
    # otherwise (checked with jax 0.10.2: a numpy buffer 4..32 bytes off is copied).
    # batchsim's buffers are aligned, so JAX gets the renderer's memory itself.
    assert tensor.data_ptr % 64 == 0
    array = jnp.from_dlpack(tensor)
    assert array.unsafe_buffer_pointer() == tensor.data_ptr == np.from_dlpack(tensor).ctypes.data

    before = np.array(np.from_dlpack(tensor))
    step_forward(sim, 2)
    after = np.from_dlpack(tensor)
    assert not np.array_equal(before, after), "the step changed no pixel: nothing to compare"
    # Zero-copy: the array imported before the step reads the new frame in place (it is a
    # view whose contents change under JAX: treat it as valid until the next step).
    np.testing.assert_array_equal(np.asarray(array), after)
    np.testing.assert_array_equal(np.asarray(jnp.from_dlpack(tensor)), after)


def test_jax_arrays_hold_the_buffer_until_released(sim):
    tensor = sim.depth
    baseline = tensor._owner_count
    arrays = [jnp.from_dlpack(tensor), jax.dlpack.from_dlpack(tensor)]
    assert tensor._owner_count == baseline + 2
    derived = arrays[0] + 0  # a computed array is new memory and holds nothing
    assert derived.unsafe_buffer_pointer() != tensor.data_ptr
    assert tensor._owner_count == baseline + 2
    del arrays
    gc.collect()
    assert tensor._owner_count == baseline


def test_jax_array_outlives_the_simulator(dataset, cpu_context):
    sim = batchsim.Simulator(
        dataset, NUM_ENVS, sensors=("depth",), resolution=(HEIGHT, WIDTH), context=cpu_context
    )
    sim.reset(seed=0)
    array = jnp.from_dlpack(sim.depth)
    expected = np.array(np.from_dlpack(sim.depth))
    sim.close()
    del sim
    gc.collect()
    np.testing.assert_array_equal(np.asarray(array), expected)
    # JAX computes with it too. Its float32 sum adds in another order than numpy's, so the
    # two differ by rounding (1e-6 relative was seen over 4k pixels): compare at 1e-5.
    assert float(array.sum()) == pytest.approx(float(expected.sum(dtype=np.float64)), rel=1e-5)
