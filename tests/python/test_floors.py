"""Multi-storey scenes: floor heights (NavMesh.floor_heights, Scene.floor_heights), one
top-down map per floor, and episodes on every floor."""

import numpy as np

import batchsim
from batchsim.viz import BLOCKED, NAVIGABLE


def two_storeys() -> batchsim.NavMesh:
    """Two 8 x 6 m floors 3 m apart, and a 2 x 2 m landing between them (3% of the area)."""
    rects = [(0, 0, 8, 6, 0.0), (0, 0, 8, 6, 3.0), (10, 0, 12, 2, 1.5)]
    vertices, triangles = [], []
    for x0, z0, x1, z1, y in rects:
        first = len(vertices)
        vertices += [[x0, y, z0], [x1, y, z0], [x1, y, z1], [x0, y, z1]]
        triangles += [[first, first + 2, first + 1], [first, first + 3, first + 2]]
    return batchsim.NavMesh.bake(np.array(vertices, np.float32), np.array(triangles))


def test_floor_heights_and_one_map_per_floor():
    from batchsim.viz import OTHER_FLOOR, floor_maps

    storeys = two_storeys()
    heights = storeys.floor_heights()
    assert len(heights) == 2 and heights == sorted(heights)
    assert abs(heights[0] - 0.0) < 0.25 and abs(heights[1] - 3.0) < 0.25  # Recast's cell height
    maps = floor_maps(storeys, meters_per_pixel=0.5)
    assert [h for h, _ in maps] == heights
    for _, image in maps:
        # Each storey's own floor is the light island; the landing (other level) is not drawn.
        assert tuple(image[6, 8]) == NAVIGABLE and tuple(image[2, 21]) == BLOCKED
        assert not (image == np.array(OTHER_FLOOR, np.uint8)).all(-1).any()


def test_a_procedural_apartment_has_one_floor(procgen_dataset):
    root, _ = procgen_dataset
    path = sorted((root / "scene_datasets").rglob("*.bsscene"))[0]
    scene = batchsim.Scene.load(path)
    assert len(scene.floor_heights) == 1
    assert scene.floor_heights == scene.navmesh().floor_heights()
    assert abs(scene.floor_heights[0]) < 0.25  # procgen floors stand at y = 0


def test_episodes_are_generated_on_every_floor():
    from batchsim.datasets import generate_episodes

    storeys = two_storeys()
    episodes = generate_episodes(storeys, "two_storeys.glb", 40, seed=0)
    floors = storeys.floor_heights()
    on = {
        min(range(len(floors)), key=lambda k: abs(e.start_position[1] - floors[k]))
        for e in episodes
    }
    assert on == {0, 1}
    for e in episodes:  # Habitat's rule: start and goal on one floor
        assert abs(e.start_position[1] - e.goal_position[1]) <= 0.5
