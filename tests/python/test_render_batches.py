"""BatchRenderer's view batches and outputs: split batches and the naive mode (a submission
per view) render what one batch renders; two batches in flight keep their own views;
depth-only and RGB-only renderers write what the full one writes. Runs on CPU export and,
where there is CUDA, on CUDA tensors."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

import batchsim
from test_render import navmesh_cameras

WIDTH, HEIGHT = 24, 20


@pytest.fixture(scope="module")
def scene(procgen_dataset):
    root, _ = procgen_dataset
    return batchsim.Scene.load(sorted((root / "scene_datasets" / "procgen").glob("*.bsscene"))[0])


@pytest.fixture(scope="module", params=["cpu", "cuda"])
def export_context(request):
    if request.param == "cpu":
        return batchsim.Context(export="cpu")
    return request.getfixturevalue("cuda_context")


def make_renderer(context, scene, views: int, **options):
    renderer = batchsim.BatchRenderer(
        context,
        batchsim.RendererConfig(views=views, width=WIDTH, height=HEIGHT, places=1, **options),
    )
    renderer.set_scene(0, scene)
    return renderer


def host(tensor) -> np.ndarray | None:
    """A host copy of an output, synchronised with the current CUDA stream."""
    if tensor is None:
        return None
    if tensor.__dlpack_device__()[0] == 1:  # kDLCPU
        return np.from_dlpack(tensor).copy()
    import torch

    return torch.from_dlpack(tensor).cpu().numpy()


def assert_same_images(depth, rgb, expected_depth, expected_rgb, context: str) -> None:
    # The same triangles land in the same pixels; only exact depth ties may resolve apart.
    assert (np.abs(depth - expected_depth) <= 1e-4).mean() >= 0.999, context
    assert np.abs(rgb.astype(int) - expected_rgb.astype(int)).mean() <= 0.5, context
    assert (expected_depth > 0).mean() > 0.1, f"{context}: the views see too little"


@pytest.mark.parametrize("batches", [2, 3, 7])
def test_split_batches_render_what_one_batch_renders(export_context, scene, backend, batches):
    views = 7  # 7 batches of 7 views: the naive mode
    positions, rotations = navmesh_cameras(scene, views, seed=batches)
    places = np.zeros(views, np.uint32)
    whole = make_renderer(export_context, scene, backend=backend, views=views)
    whole.render(positions, rotations, places)
    split = make_renderer(export_context, scene, backend=backend, views=views, batches=batches)
    assert split.batches == batches
    ranges = [split.batch_views(b) for b in range(batches)]
    assert ranges[0][0] == 0 and sum(count for _, count in ranges) == views
    assert all(a[0] + a[1] == b[0] for a, b in itertools.pairwise(ranges))
    assert max(c for _, c in ranges) - min(c for _, c in ranges) <= 1
    split.render(positions, rotations, places)
    assert_same_images(
        host(split.depth), host(split.rgb), host(whole.depth), host(whole.rgb), f"{batches} batches"
    )


def test_two_batches_in_flight_keep_their_own_views(export_context, scene, backend):
    renderer = make_renderer(export_context, scene, backend=backend, views=6, batches=2)
    poses = [navmesh_cameras(scene, 3, seed=seed) for seed in (21, 22, 23)]
    places = np.zeros(3, np.uint32)
    # Batch 0 is submitted twice while batch 1 may still be on the GPU: the second poses win.
    renderer.submit(0, *poses[0], places)
    renderer.submit(1, *poses[1], places)
    renderer.submit(0, *poses[2], places)
    renderer.wait(0)
    renderer.wait(1)
    depth, rgb = host(renderer.depth), host(renderer.rgb)

    expected = make_renderer(export_context, scene, backend=backend, views=6)
    positions = np.concatenate([poses[2][0], poses[1][0]])
    rotations = np.concatenate([poses[2][1], poses[1][1]])
    expected.render(positions, rotations, np.zeros(6, np.uint32))
    assert_same_images(depth, rgb, host(expected.depth), host(expected.rgb), "in flight")
    first_poses = make_renderer(export_context, scene, backend=backend, views=3)
    first_poses.render(*poses[0], places)
    assert not np.allclose(depth[:3], host(first_poses.depth), atol=1e-3), "stale batch 0"


@pytest.mark.parametrize(("depth", "rgb"), [(True, False), (False, True)])
def test_single_output_renderers_write_what_the_full_one_writes(
    export_context, scene, backend, depth, rgb
):
    positions, rotations = navmesh_cameras(scene, 5, seed=31)
    places = np.zeros(5, np.uint32)
    full = make_renderer(export_context, scene, backend=backend, views=5)
    full.render(positions, rotations, places)
    single = make_renderer(export_context, scene, backend=backend, views=5, depth=depth, rgb=rgb)
    single.render(positions, rotations, places)
    assert (single.depth is None) == (not depth) and (single.rgb is None) == (not rgb)
    if depth:
        np.testing.assert_allclose(host(single.depth), host(full.depth), atol=1e-4)
    else:
        got, want = host(single.rgb).astype(int), host(full.rgb).astype(int)
        assert np.abs(got - want).mean() <= 0.5


def test_pass_times_are_reported_after_a_batch_finishes(cpu_context, scene, backend):
    renderer = make_renderer(cpu_context, scene, backend=backend, views=4, batches=2)
    assert renderer.pass_times(0) is None  # nothing submitted yet
    renderer.render(*navmesh_cameras(scene, 4, seed=3), np.zeros(4, np.uint32))
    times = renderer.pass_times(1)
    if times is None:
        pytest.skip("this device's queue has no timestamps")
    clock = {k: times.pop(k) for k in ("start_ms", "end_ms")}
    assert set(times) == {"upload_ms", "cull_ms", "draw_ms", "copy_ms"}
    assert all(np.isfinite(v) and 0 <= v < 60_000 for v in times.values())
    assert sum(times.values()) > 0
    # The clock readings bracket the passes, up to their rounding: clock values are large
    # (time since some epoch), and as doubles in ms they round far below 1e-3 ms.
    assert clock["end_ms"] - clock["start_ms"] == pytest.approx(sum(times.values()), abs=1e-3)
    # The next render of the batch, once waited for, replaces them.
    renderer.render(*navmesh_cameras(scene, 4, seed=4), np.zeros(4, np.uint32))
    assert renderer.pass_times(1)["start_ms"] > clock["end_ms"]
    counts = renderer.draw_statistics(1)
    if backend == "compute":
        assert counts is None  # no draws
        return
    if counts is None:
        return  # no pipeline statistics queries on this device
    # Two views of a scene: some triangles drawn, no more than twice the scene, fragments
    # no more than the tiles' pixels times a plausible depth complexity.
    assert 0 < counts["triangles"] <= 2 * scene.triangle_count
    assert 0 < counts["vertex_shaders"] <= 3 * counts["triangles"]
    assert 0 < counts["fragment_shaders"] <= 2 * WIDTH * HEIGHT * 50


def test_batch_options_are_checked(cpu_context, scene):
    def make(context, views, **fields):
        return batchsim.BatchRenderer(context, batchsim.RendererConfig(views=views, **fields))

    with pytest.raises(ValueError, match=r"batches must be within 1..views \(3\), got 4"):
        make(cpu_context, 3, batches=4)
    with pytest.raises(ValueError, match="batches must be within"):
        make(cpu_context, 3, batches=0)
    with pytest.raises(ValueError, match="at least one output"):
        make(cpu_context, 3, depth=False, rgb=False)
    renderer = make_renderer(cpu_context, scene, 5, batches=2)
    assert renderer.batch_views(0) == (0, 3) and renderer.batch_views(1) == (3, 2)
    positions, rotations = navmesh_cameras(scene, 2, seed=1)
    with pytest.raises(ValueError, match=r"positions: expected shape \[3, 3\], got \[2, 3\]"):
        renderer.submit(0, positions, rotations, np.zeros(2, np.uint32))
    with pytest.raises(ValueError, match="batch must be below 2, got 2"):
        renderer.submit(2, positions, rotations, np.zeros(2, np.uint32))
    with pytest.raises(ValueError, match="batch must be below 2, got 5"):
        renderer.wait(5)
