"""batchsim.procgen's storeys: buildings of up to three storeys joined by walkable stairs,
lofts, angled walls and round columns, and the garden outside joined to the inside through
the front door (split levels, ramps and bays: test_procgen_ramps_and_bays.py)."""

import numpy as np
import pytest

import batchsim
from batchsim.datasets import generate_episodes
from batchsim.procgen import build_scene_files, generate_scene, plan_scene
from batchsim.procgen.layout import MAX_RISER, PATH_WIDTH, TREAD, make_layout
from batchsim.procgen.plan import CELL
from batchsim.procgen.textures import WALL_MATERIALS

SMALL = 30_000
THREE_STOREYS = (22, "apartment")  # seeds whose buildings have 3 storeys (a loft in 25's)
LOFT = (25, "office")


@pytest.fixture(scope="module")
def storeyed(tmp_path_factory):
    directory = tmp_path_factory.mktemp("storeys")
    out = {}
    for seed, kind in (THREE_STOREYS, LOFT):
        stats = build_scene_files(seed, directory, kind, kind, SMALL)
        out[kind] = (stats, batchsim.Scene.load(directory / f"{kind}.bsscene"))
    return out


def largest_island_points(navmesh, count: int, seed: int) -> np.ndarray:
    """Points of the main island (closed pockets behind angled walls are islands too)."""
    areas = [navmesh.island_area(i) for i in range(navmesh.num_islands)]
    navmesh.seed(seed)
    return navmesh.get_random_navigable_points(count, island_index=int(np.argmax(areas)))


def test_stairs_follow_building_codes_and_a_share_of_buildings_has_storeys():
    counts = []
    for seed in range(60):
        rng = np.random.default_rng(seed)
        storeys = 3 if rng.random() < 0.4 and rng.random() < 1 / 3 else 1
        layout = make_layout(rng, ("apartment", "office")[seed % 2], max(storeys, 2))
        stair = layout.stair
        assert stair is not None
        assert stair.riser <= MAX_RISER + 1e-9 and stair.xe - stair.xs == pytest.approx(
            (stair.risers - 1) * TREAD
        )
        assert all(z1 - z0 >= 1.0 for z0, z1 in stair.lanes)  # at least 1 m wide
        assert stair.walkway[1] - stair.walkway[0] >= 1.0
    for seed in range(30):
        counts.append(generate_scene(seed, ("apartment", "office")[seed % 2], 10_000).storeys)
    share = np.mean(np.array(counts) > 1)
    assert 0.2 <= share <= 0.6 and max(counts) == 3 and min(counts) == 1


@pytest.mark.parametrize("kind", ["apartment", "office"])
def test_stairs_are_walkable_across_storeys(storeyed, kind):
    stats, scene = storeyed[kind]
    navmesh = scene.navmesh()
    assert stats["storeys"] == 3
    floors = np.sort(navmesh.floor_heights())
    assert len(floors) >= 3 and floors[-1] - floors[0] >= 2 * stats["storey_height_m"] - 0.3
    points = largest_island_points(navmesh, 400, 1)
    ground = points[np.abs(points[:, 1]) < 0.3][:8]
    top = points[points[:, 1] > floors[-1] - 0.3][:8]
    assert len(ground) and len(top)
    geodesic = navmesh.geodesic_distances(ground, top)
    assert np.isfinite(geodesic).all()
    path = np.asarray(navmesh.find_path(ground[0], top[0]))
    heights = path[:, 1]
    assert heights.max() - heights.min() >= 2 * stats["storey_height_m"] - 0.3
    # Habitat's rules keep start and goal on one floor; every storey still gets episodes
    episodes = generate_episodes(navmesh, "x.glb", 120, 0)
    storey = np.round(np.array([e.start_position[1] for e in episodes]) / stats["storey_height_m"])
    assert set(storey.astype(int).tolist()) == {0, 1, 2}


def on_bay_or_entrance_ramp(layout, points) -> np.ndarray:
    """Points over a bay's floor or the strip of the path (a ramp, in some buildings) up to
    the front door: outside the footprint, yet as high as the floor."""
    x, z = points[:, 0], points[:, 2]
    hit = np.zeros(len(points), bool)
    for bay in layout.bays:
        (x0, z0), (x1, z1) = bay.world(bay.start, 0.0), bay.world(bay.end, bay.depth + 0.2)
        hit |= (x >= min(x0, x1)) & (x <= max(x0, x1)) & (z >= min(z0, z1)) & (z <= max(z0, z1))
    door = layout.entrance
    mid = (door.start + door.end) / 2
    return hit | ((x < 0) & (np.abs(z - mid) < PATH_WIDTH / 2 + CELL))


def test_outdoor_ground_is_navigable_and_reaches_the_inside(storeyed):
    stats, scene = storeyed["apartment"]
    navmesh = scene.navmesh()
    width, depth = stats["footprint_m"]
    points = largest_island_points(navmesh, 400, 2)
    outside = (points[:, 0] < -0.3) | (points[:, 2] < -0.3) | (points[:, 0] > width + 0.3)
    inside = (points[:, 0] > 0.5) & (points[:, 0] < width - 0.5) & (points[:, 1] > -0.05)
    inside &= (points[:, 2] > 0.5) & (points[:, 2] < depth - 0.5) & (points[:, 1] < 0.5)
    assert outside.sum() >= 10 and inside.sum() >= 10
    ground = outside & ~on_bay_or_entrance_ramp(plan_scene(*THREE_STOREYS)[0], points)
    assert ground.sum() >= 10
    assert points[ground][:, 1].max() < -0.05  # the garden and terrace lie under the floor
    geodesic = navmesh.geodesic_distances(points[outside][:10], points[inside][:10])
    assert np.isfinite(geodesic).all()


def test_angled_walls_round_columns_and_lofts():
    scene = generate_scene(*LOFT, SMALL)
    (corner, *_) = scene.layout.angled
    diagonal = 0
    for wall in (m for m in scene.meshes if m.material in WALL_MATERIALS):
        n = np.abs(wall.normals)
        near = np.hypot(wall.positions[:, 0] - corner.x, wall.positions[:, 2] - corner.z)
        diagonal += int(((n[:, 0] > 0.5) & (n[:, 2] > 0.5) & (near < corner.leg + 0.5)).sum())
    assert diagonal >= 4  # the wall across the corner is not axis-aligned
    rounds = 0
    for seed in range(6):  # round pillars: concrete with normals between the axes
        meshes = generate_scene(seed, ("apartment", "office")[seed % 2], 10_000).meshes
        c = np.abs(next(m for m in meshes if m.material == "concrete").normals)
        rounds += int(((c[:, 0] > 0.2) & (c[:, 2] > 0.2) & (c[:, 1] < 0.1)).any())
    assert rounds >= 2
    rng = np.random.default_rng(LOFT[0])
    rng.random(), rng.random()
    layout = make_layout(rng, LOFT[1], 3)
    assert layout.loft >= 0 and layout.storey(1).void == layout.loft


def test_three_storey_scene_same_seed_same_bytes_within_budget():
    a = generate_scene(*THREE_STOREYS, SMALL)
    assert a.storeys == 3
    assert a.glb_bytes() == generate_scene(*THREE_STOREYS, SMALL).glb_bytes()
    assert abs(a.triangle_count - SMALL) <= 0.15 * SMALL
