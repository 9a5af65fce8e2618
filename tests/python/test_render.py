"""Both BatchRenderer backends (raster, compute) against the CPU reference ray caster
(raycast_reference.py): procedural scenes and real models from assimp-testmodels, several
resolutions, batch sizes that are not powers of two, views spread over two resident
scenes."""

from __future__ import annotations

import os
from pathlib import Path

import numpy as np
import pytest

import batchsim
from raycast_reference import ReferenceScene, render

MODELS = Path(os.environ.get("BATCHSIM_ASSIMP_MODELS", "/usr/share/assimp/models"))
DEPTH_TOLERANCE_M = 0.01
DEPTH_AGREEMENT = 0.995  # share of pixels within the tolerance


def yaw_rotations(yaws: np.ndarray) -> np.ndarray:
    zeros = np.zeros_like(yaws)
    return np.stack([zeros, np.sin(yaws / 2), zeros, np.cos(yaws / 2)], 1).astype(np.float32)


def navmesh_cameras(scene: batchsim.Scene, count: int, seed: int) -> tuple[np.ndarray, ...]:
    """Cameras 1.25 m above random navigable points, random headings."""
    navmesh = scene.navmesh()
    navmesh.seed(seed)
    positions = navmesh.get_random_navigable_points(count) + np.float32([0, 1.25, 0])
    yaws = np.random.default_rng(seed).uniform(0, 2 * np.pi, count)
    return positions.astype(np.float32), yaw_rotations(yaws)


def orbit_cameras(scene: batchsim.Scene, count: int) -> tuple[np.ndarray, ...]:
    """Cameras around a model's bounds, level with its centre, looking at it."""
    lo, hi = (np.asarray(b, np.float64) for b in scene.bounds)
    centre, radius = (lo + hi) / 2, np.linalg.norm(hi - lo) * 0.6
    angles = np.linspace(0, 2 * np.pi, count, endpoint=False)
    positions = centre + radius * np.stack([np.sin(angles), np.zeros(count), np.cos(angles)], 1)
    return positions.astype(np.float32), yaw_rotations(angles)  # yaw a looks along -(sin, 0, cos)


# Share of pixels whose colour is within 8 of the reference's. The compute backend picks mip
# levels from ray cones (isotropic: the largest stretch of the footprint), the reference and
# the raster pipeline from screen-space derivatives, so on steep textured surfaces it is
# sometimes a level blurrier.
COLOUR_AGREEMENT = {"raster": 0.98, "compute": 0.97}


def render_both(context, scene, positions, rotations, size, backend):
    """(renderer, CPU reference) of one scene in place 0 from the same cameras; size is
    (width, height)."""
    width, height = size
    views = len(positions)
    config = batchsim.RendererConfig(
        views=views, width=width, height=height, places=1, backend=backend
    )
    renderer = batchsim.BatchRenderer(context, config)
    renderer.set_scene(0, scene)
    renderer.render(positions, rotations, np.zeros(views, np.uint32))
    reference = render(ReferenceScene(scene), positions, rotations, width=width, height=height)
    return renderer, reference


def compare(ours, reference, context: str) -> None:
    depth = np.from_dlpack(ours.depth)
    rgb = np.from_dlpack(ours.rgb)
    assert np.isfinite(depth).all(), context
    close = np.abs(depth - reference.depth) <= DEPTH_TOLERANCE_M
    assert close.mean() >= DEPTH_AGREEMENT, f"{context}: depth agrees on {close.mean():.4f}"
    assert (reference.depth > 0).mean() > 0.1, f"{context}: the views see too little"
    colour = np.abs(rgb.astype(np.int16) - reference.rgb.astype(np.int16))[..., :3]
    within = (colour.max(-1) <= 8).mean()
    assert colour.mean() <= 2.0 and within >= COLOUR_AGREEMENT[ours.backend], (
        f"{context}: RGB mean |diff| {colour.mean():.2f}, within 8 on {within:.4f}"
    )
    assert (rgb[..., 3] == 255).all(), context


@pytest.fixture(scope="module")
def cpu_context():
    return batchsim.Context(export="cpu")


@pytest.mark.parametrize(("views", "width", "height"), [(5, 64, 64), (3, 48, 32), (7, 33, 17)])
def test_procedural_scene_matches_the_reference(
    procgen_dataset, cpu_context, backend, views, width, height
):
    root, _ = procgen_dataset
    path = sorted((root / "scene_datasets" / "procgen").glob("*.bsscene"))[0]
    scene = batchsim.Scene.load(path)
    positions, rotations = navmesh_cameras(scene, views, seed=views)
    renderer = batchsim.BatchRenderer(
        cpu_context,
        batchsim.RendererConfig(views=views, width=width, height=height, backend=backend),
    )
    assert renderer.backend == backend
    renderer.set_scene(1, scene)
    renderer.render(positions, rotations, np.ones(views, np.uint32))
    reference = render(ReferenceScene(scene), positions, rotations, width=width, height=height)
    compare(renderer, reference, f"{backend}: {path.name} {views} views {width}x{height}")


def test_views_over_two_resident_scenes(procgen_dataset, cpu_context, backend):
    root, _ = procgen_dataset
    paths = sorted((root / "scene_datasets" / "procgen").glob("*.bsscene"))[:2]
    scenes = [batchsim.Scene.load(p) for p in paths]
    renderer = batchsim.BatchRenderer(
        cpu_context,
        batchsim.RendererConfig(views=6, width=40, height=30, places=2, backend=backend),
    )
    for place, scene in enumerate(scenes):
        renderer.set_scene(place, scene)
    cameras = [navmesh_cameras(s, 3, seed=11 + i) for i, s in enumerate(scenes)]
    positions = np.concatenate([c[0] for c in cameras])
    rotations = np.concatenate([c[1] for c in cameras])
    places = np.repeat(np.arange(2, dtype=np.uint32), 3)
    renderer.render(positions, rotations, places)
    depth, rgb = np.from_dlpack(renderer.depth).copy(), np.from_dlpack(renderer.rgb).copy()
    for place, scene in enumerate(scenes):
        views = slice(3 * place, 3 * place + 3)
        reference = render(ReferenceScene(scene), positions[views], rotations[views], 40, 30)
        close = np.abs(depth[views] - reference.depth) <= DEPTH_TOLERANCE_M
        assert close.mean() >= DEPTH_AGREEMENT
        assert np.abs(rgb[views].astype(int) - reference.rgb.astype(int)).mean() <= 2.0


@pytest.mark.skipif(not MODELS.is_dir(), reason="assimp-testmodels not installed")
@pytest.mark.parametrize(
    "model", ["glTF2/BoxTextured-glTF/BoxTextured.gltf", "OBJ/spider.obj", "Collada/duck.dae"]
)
def test_real_models_match_the_reference(tmp_path, cpu_context, backend, model):
    scene = batchsim.import_scene(MODELS / model, tmp_path / "model.bsscene", bake_navmesh=False)
    positions, rotations = orbit_cameras(scene, 5)
    renderer = batchsim.BatchRenderer(
        cpu_context,
        batchsim.RendererConfig(views=5, width=64, height=48, places=1, backend=backend),
    )
    renderer.set_scene(0, scene)
    renderer.render(positions, rotations, np.zeros(5, np.uint32))
    reference = render(ReferenceScene(scene), positions, rotations, width=64, height=48)
    compare(renderer, reference, f"{backend}: {model}")


def test_outputs_are_persistent_and_inputs_checked(cpu_context, backend):
    renderer = batchsim.BatchRenderer(
        cpu_context, batchsim.RendererConfig(views=2, width=8, height=8, places=1, backend=backend)
    )
    depth = renderer.depth
    assert tuple(depth.shape) == (2, 1, 8, 8) and tuple(renderer.rgb.shape) == (2, 8, 8, 4)
    pointer = np.from_dlpack(depth).ctypes.data
    positions, rotations = np.zeros((2, 3), np.float32), yaw_rotations(np.zeros(2))
    renderer.render(positions, rotations, np.zeros(2, np.uint32))  # an empty place: nothing
    assert (np.from_dlpack(renderer.depth) == 0).all()
    assert (np.from_dlpack(renderer.rgb) == [0, 0, 0, 255]).all()
    assert np.from_dlpack(renderer.depth).ctypes.data == pointer
    with pytest.raises(ValueError, match=r"positions: expected shape \[2, 3\]"):
        renderer.render(np.zeros((3, 3), np.float32), rotations, np.zeros(2, np.uint32))
    with pytest.raises(ValueError, match="names resident place 4"):
        renderer.render(positions, rotations, np.array([0, 4], np.uint32))
    with pytest.raises(ValueError, match="hfov"):
        batchsim.BatchRenderer(
            cpu_context, batchsim.RendererConfig(views=2, hfov_degrees=0.0, backend=backend)
        )
    with pytest.raises(
        ValueError, match="backend: expected 'auto', 'raster' or 'compute', got 'rt'"
    ):
        batchsim.BatchRenderer(cpu_context, batchsim.RendererConfig(views=2, backend="rt"))


def test_cuda_tensors_match_cpu_export(procgen_dataset, cpu_context, backend):
    status = batchsim.cuda_status()
    if not status["available"]:
        pytest.skip(f"no CUDA: {status['reason']}")
    import torch

    root, _ = procgen_dataset
    scene = batchsim.Scene.load(sorted((root / "scene_datasets" / "procgen").glob("*.bsscene"))[0])
    positions, rotations = navmesh_cameras(scene, 9, seed=9)
    places = np.zeros(9, np.uint32)
    outputs = []
    for context in (cpu_context, batchsim.Context(device="cuda:0", export="cuda")):
        renderer = batchsim.BatchRenderer(
            context,
            batchsim.RendererConfig(views=9, width=64, height=64, places=1, backend=backend),
        )
        renderer.set_scene(0, scene)
        renderer.render(positions, rotations, places)
        depth, rgb = torch.from_dlpack(renderer.depth), torch.from_dlpack(renderer.rgb)
        outputs.append((depth.cpu().numpy().copy(), rgb.cpu().numpy().copy(), depth.device))
    assert outputs[1][2].type == "cuda"
    np.testing.assert_allclose(outputs[0][0], outputs[1][0], atol=1e-3)
    assert np.abs(outputs[0][1].astype(int) - outputs[1][1].astype(int)).mean() < 1.0


def test_render_mosaic_example_runs(procgen_dataset, tmp_path, run_example):
    root, _ = procgen_dataset
    assert "12 views of 2 scenes" in run_example("render_mosaic.py", root, tmp_path)
    assert (tmp_path / "render-mosaic.png").stat().st_size > 1000
