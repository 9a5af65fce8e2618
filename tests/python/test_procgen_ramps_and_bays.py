"""batchsim.procgen's ramps and bays: split levels reached only by a ramp, ramps from the
garden to the front door, and bay windows joined to their rooms (storeys and stairs:
test_procgen_storeys.py)."""

import itertools

import numpy as np
import pytest

import batchsim
from batchsim.procgen import build_scene_files, generate_scene, plan_scene
from batchsim.procgen.build import GENERATOR_VERSION
from batchsim.procgen.outdoor import GROUND
from batchsim.procgen.textures import WALL_MATERIALS

SMALL = 30_000
SPLIT = [(10, "apartment"), (15, "office")]  # seeds whose ground storey has a split level
BAYS = [(22, "apartment"), (1, "office")]  # 3 storeys with a bay; 3 bays on one storey
MAX_CLIMB = 0.2  # m: Habitat's agent steps up at most this
KINDS = ("apartment", "office")


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    """Scene files (and navmeshes) of the SPLIT and BAYS seeds, built once."""
    directory = tmp_path_factory.mktemp("ramps_and_bays")
    out = {}
    for seed, kind in SPLIT + BAYS:
        name = f"{kind}_{seed}"
        build_scene_files(seed, directory, name, kind, SMALL)
        scene = batchsim.Scene.load(directory / f"{name}.bsscene")
        out[seed, kind] = (plan_scene(seed, kind)[0], scene.navmesh())
    return out


def main_island(navmesh) -> int:
    return int(np.argmax([navmesh.island_area(i) for i in range(navmesh.num_islands)]))


def densify(path: np.ndarray, step: float = 0.05) -> np.ndarray:
    """The path's polyline sampled every `step` metres (heights interpolated)."""
    points = [path[:1]]
    for a, b in itertools.pairwise(path):
        n = max(1, int(np.ceil(np.linalg.norm(b - a) / step)))
        points.append(a + np.linspace(0.0, 1.0, n + 1)[1:, None] * (b - a))
    return np.concatenate(points)


def inside(rect, points, pad=0.0) -> np.ndarray:
    x0, z0, x1, z1 = rect
    x, z = points[:, 0], points[:, 2]
    return (x >= x0 - pad) & (x <= x1 + pad) & (z >= z0 - pad) & (z <= z1 + pad)


def test_split_levels_are_too_high_to_step_onto_and_their_ramps_gentle_and_wide():
    found = 0
    for seed in range(80):
        layout, _ = plan_scene(seed, KINDS[seed % 2])
        split = layout.split
        if split is None:
            continue
        found += 1
        assert 0.42 <= split.height <= 0.6 and split.height > 2 * MAX_CLIMB
        assert layout.wall_height - split.height >= 2.0  # headroom above the platform
        axis, _ = split.climb
        r = split.ramp
        run, across = (r[2] - r[0], r[3] - r[1]) if axis == 0 else (r[3] - r[1], r[2] - r[0])
        assert run / split.height >= 8.0  # 1:8 or gentler
        assert across - layout.wall_thickness / 2 >= 1.0  # clear of the wall face: >= 1 m
        assert layout.rooms[split.room].kind in ("living", "open_plan", "meeting")
    assert 8 <= found <= 40  # some buildings, not all


@pytest.mark.parametrize(("seed", "kind"), SPLIT)
def test_the_ramp_is_the_walkable_way_up_to_the_split_level(built, seed, kind):
    layout, navmesh = built[seed, kind]
    split = layout.split
    assert split is not None
    # beside the far end of the platform's edge: just below it, and just on it
    (a, b) = (np.array(p)[[0, 2]] for p in split.rails[1])
    along = (b - a) / np.linalg.norm(b - a)
    centre = np.add(split.platform[:2], split.platform[2:]) / 2
    out = np.array([-along[1], along[0]])
    out *= np.sign(np.dot(out, a - centre))  # from the platform into the room
    corner = b - 0.5 * along
    low = navmesh.snap_point((*(corner + 0.7 * out)[:1], 0.0, *(corner + 0.7 * out)[1:]))
    high = navmesh.snap_point((*(corner - 0.7 * out)[:1], split.height, *(corner - 0.7 * out)[1:]))
    floor = low[1]
    assert abs(floor) < MAX_CLIMB and inside(split.platform, high[None])[0]
    assert high[1] - floor > 0.3  # higher than any kerb step reaches
    assert navmesh.get_island(high) == navmesh.get_island(low) == main_island(navmesh)
    euclid = float(np.linalg.norm(np.subtract(high, low)))
    geodesic = navmesh.geodesic_distance(low, high)
    assert np.isfinite(geodesic) and geodesic > euclid + 2.0  # round by the ramp, no step
    path = densify(np.asarray(navmesh.find_path(low, high), np.float64))
    rise = np.diff(path[:, 1])
    run = np.hypot(np.diff(path[:, 0]), np.diff(path[:, 2]))
    assert (np.abs(rise) <= MAX_CLIMB * 0.5 + 0.2 * run).all()  # climbs gradually
    climbing = np.flatnonzero(rise > 1e-3)
    assert len(climbing) and inside(split.ramp, path[climbing], pad=0.15).all()
    assert path[:, 1].max() - floor > 0.3


def test_entrance_ramps_climb_from_the_garden_to_the_door(tmp_path):
    scenes = (generate_scene(seed, KINDS[seed % 2], SMALL) for seed in range(40))
    scene = next(s for s in scenes if s.outdoor.ramp)  # 40 % of buildings have one
    seed, kind = scene.seed, scene.kind
    assert scene.ramps == 1 + (scene.layout.split is not None)
    door = scene.layout.entrance
    z, m = (door.start + door.end) / 2, scene.outdoor.margin
    paving = next(mesh for mesh in scene.meshes if mesh.material == "paving")
    n = paving.normals
    sloped = (n[:, 1] > 0.9) & (np.abs(n[:, 0]) > 0.05) & (np.abs(paving.positions[:, 2] - z) < 1)
    assert sloped.any()  # the ramp's surface, rising along x
    assert (np.abs(n[sloped, 0]) / n[sloped, 1] <= 1 / 8).all()  # 1:8 or gentler
    build_scene_files(seed, tmp_path, "s", kind, SMALL)
    navmesh = batchsim.Scene.load(tmp_path / "s.bsscene").navmesh()
    heights = []
    for x in np.linspace(-m + 0.3, -0.6, 6):
        p = navmesh.snap_point((x, 0.0, z))
        assert abs(p[0] - x) < 0.1 and abs(p[2] - z) < 0.1 and navmesh.is_navigable(p)
        heights.append(p[1])
    assert heights[-1] - heights[0] > 0.15 and (np.diff(heights) > 0).all()  # up to the door
    garden = navmesh.snap_point((-m + 0.3, -GROUND, scene.layout.size[1] / 2))
    hall = navmesh.snap_point((1.0, 0.0, z))
    assert np.isfinite(navmesh.geodesic_distance(garden, hall))


def bay_wall_triangles(scene, bay) -> tuple[int, int]:
    """(wall triangles at 45 degrees, glass triangles) within the bay's outline."""
    (x0, z0), (x1, z1) = bay.world(bay.start, -0.2), bay.world(bay.end, bay.depth + 0.3)
    rect = (min(x0, x1), min(z0, z1), max(x0, x1), max(z0, z1))
    diagonal = glass = 0
    for mesh in scene.meshes:
        centres = mesh.positions[mesh.indices].mean(1)
        here = inside(rect, centres)
        if mesh.material in WALL_MATERIALS:
            n = np.abs(mesh.normals[mesh.indices[:, 0]])
            diagonal += int((here & (n[:, 0] > 0.6) & (n[:, 2] > 0.6)).sum())
        glass += int(here.sum()) if mesh.material == "glass" else 0
    return diagonal, glass


@pytest.mark.parametrize(("seed", "kind"), BAYS)
def test_bay_windows_are_angled_glazed_and_walkable_from_their_room(built, seed, kind):
    layout, navmesh = built[seed, kind]
    scene = generate_scene(seed, kind, SMALL)
    assert layout.bays
    island = main_island(navmesh)
    for bay in layout.bays:
        diagonal, glass = bay_wall_triangles(scene, bay)
        assert diagonal >= 8 * layout.storeys and glass >= 12 * layout.storeys
        assert 0.5 <= bay.depth <= 1.0 and bay.end - bay.start >= 2 * bay.depth + 0.8
        s = (bay.start + bay.end) / 2
        for k in range(layout.storeys):
            y = k * layout.storey_height
            x, z = bay.world(s, bay.depth / 2)  # outside the footprint, in the bay
            p = navmesh.snap_point((x, y, z))
            assert np.hypot(p[0] - x, p[2] - z) < 0.15 and abs(p[1] - y) < MAX_CLIMB
            assert navmesh.get_island(p) == island
            x, z = bay.world(s, -1.5)  # in the room
            room = navmesh.snap_point((x, y, z))
            assert navmesh.geodesic_distance(p, room) < 6.0


def test_bays_are_common_and_on_outer_walls():
    counts = [len(plan_scene(seed, KINDS[seed % 2])[0].bays) for seed in range(40)]
    assert sum(c > 0 for c in counts) >= 12 and max(counts) >= 2


def test_split_level_bay_and_ramp_scene_same_seed_same_bytes_within_budget():
    assert GENERATOR_VERSION >= 6  # 7 changed which episodes a scene keeps, not its bytes
    seed, kind = SPLIT[0]
    a = generate_scene(seed, kind, 150_000)
    assert a.layout.split is not None and a.layout.bays and a.outdoor.ramp
    assert a.glb_bytes() == generate_scene(seed, kind, 150_000).glb_bytes()
    assert abs(a.triangle_count - 150_000) <= 0.15 * 150_000
