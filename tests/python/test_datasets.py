"""Habitat PointNav-v1 datasets: reading files written the way Habitat writes them, writing
Habitat's layouts, scene resolution, and episode generation by Habitat's rules."""

from __future__ import annotations

import dataclasses
import gzip
import json
import math
from pathlib import Path

import numpy as np
import pytest

import batchsim
from batchsim.datasets import (
    EpisodeRules,
    PointNavEpisode,
    check_episode,
    generate_episodes,
    load_pointnav,
    packed_scene_path,
    ratio_sample_rate,
    resolve_scene,
    write_pointnav,
)

# Two scenes as a Habitat v1 split file has them: extra top-level keys, an info with
# "difficulty", a null radius, two goals, and the newer NavigationEpisode fields.
HABITAT_SPLIT = """{
  "episodes": [
    {"episode_id": "0", "scene_id": "data/scene_datasets/gibson/Adrian.glb",
     "start_position": [-3.0133, 0.1717, 2.9432],
     "start_rotation": [0, 0.9796, 0, -0.2011],
     "info": {"geodesic_distance": 6.5526, "difficulty": "easy"},
     "goals": [{"position": [-5.5547, 0.1717, -0.5658], "radius": 0.2}],
     "shortest_paths": null, "start_room": null},
    {"episode_id": "1", "scene_id": "data/scene_datasets/gibson/Adrian.glb",
     "start_position": [1.25, 0.1717, -0.75],
     "start_rotation": [0.0, 0.0, 0.0, 1.0],
     "info": {"geodesic_distance": 2.0},
     "goals": [{"position": [3.25, 0.1717, -0.75], "radius": null},
               {"position": [3.5, 0.1717, -0.5], "radius": 0.5}],
     "shortest_paths": [[{"position": [1.25, 0.1717, -0.75], "rotation": [0, 0, 0, 1],
                          "action": 1}]],
     "start_room": null, "scene_dataset_config": "default",
     "additional_obj_config_paths": []},
    {"episode_id": "7", "scene_id": "data/scene_datasets/mp3d/17DRP5sb8fy/17DRP5sb8fy.glb",
     "start_position": [0.5, 0.0, 0.5], "start_rotation": [0, 0.7071068, 0, 0.7071068],
     "info": {"geodesic_distance": 1.5},
     "goals": [{"position": [2.0, 0.0, 0.5], "radius": 0.2}],
     "shortest_paths": null, "start_room": null}
  ],
  "version": "v1", "dataset_author": "someone"
}"""


def write_gz(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(gzip.compress(text.encode()))
    return path


def habitat_split(tmp_path: Path, text: str = HABITAT_SPLIT) -> Path:
    return write_gz(tmp_path / "v1" / "val" / "val.json.gz", text)


def by_scene(episodes) -> dict[str, list[PointNavEpisode]]:
    grouped: dict[str, list[PointNavEpisode]] = {}
    for e in episodes:
        grouped.setdefault(e.scene_id, []).append(e)
    return grouped


def scene_then_id(e: PointNavEpisode) -> tuple[str, str]:
    return e.scene_name, e.episode_id


def test_habitat_file_fields(tmp_path):
    dataset = load_pointnav(habitat_split(tmp_path))
    assert len(dataset) == 3
    first, second, third = dataset.episodes
    assert first.start_rotation == (0.0, 0.9796, 0.0, -0.2011)
    assert first.geodesic_distance == 6.5526 and dict(first.extra_info) == {"difficulty": "easy"}
    assert first.goal_radius == 0.2 and first.shortest_path is None
    assert second.goal_radius is None and len(second.goals) == 2
    assert second.goals[1] == ((3.5, 0.1717, -0.5), 0.5)
    assert second.shortest_path[0][0]["action"] == 1
    assert third.scene_name == "17DRP5sb8fy"
    assert dataset.scene_ids == sorted({first.scene_id, third.scene_id})
    assert dataset.episodes_for("Adrian") == [first, second]
    assert dataset.episodes_for(third.scene_id) == [third]


@pytest.mark.parametrize("use_content", [True, False])
def test_round_trip_through_both_layouts(tmp_path, use_content):
    original = load_pointnav(habitat_split(tmp_path))
    split = write_pointnav(tmp_path / "out", "val", by_scene(original), use_content=use_content)
    assert split == tmp_path / "out" / "val" / "val.json.gz"
    assert (split.parent / "content").is_dir() == use_content
    written = json.loads(gzip.decompress(split.read_bytes()))
    assert (written["episodes"] == []) == use_content
    again = load_pointnav(split.parent)  # a split folder works as well as its file
    # Content files load in scene-name order.
    assert sorted(again, key=scene_then_id) == sorted(original, key=scene_then_id)
    if use_content:
        names = sorted(p.name for p in (split.parent / "content").iterdir())
        assert names == ["17DRP5sb8fy.json.gz", "Adrian.json.gz"]


def test_habitat_content_layout_and_content_scenes(tmp_path):
    source = load_pointnav(habitat_split(tmp_path))
    root = tmp_path / "content_layout"
    write_pointnav(root, "train", by_scene(source))
    assert len(load_pointnav(root / "train" / "train.json.gz")) == 3
    only = load_pointnav(root / "train", content_scenes=["Adrian"])
    assert [e.episode_id for e in only] == ["0", "1"]
    with pytest.raises(batchsim.MissingFileError, match=r"Nowhere\.json\.gz"):
        load_pointnav(root / "train", content_scenes=["Nowhere"])
    # Without content/, content_scenes filters the split file's episodes by scene name.
    single = load_pointnav(habitat_split(tmp_path), content_scenes=("17DRP5sb8fy",))
    assert [e.episode_id for e in single] == ["7"]


def test_switching_layout_removes_stale_content(tmp_path):
    episodes = by_scene(load_pointnav(habitat_split(tmp_path)))
    write_pointnav(tmp_path / "out", "val", episodes)
    write_pointnav(tmp_path / "out", "val", episodes, use_content=False)
    assert not (tmp_path / "out" / "val" / "content").exists()  # Habitat would read it
    assert len(load_pointnav(tmp_path / "out" / "val")) == 3


def test_scene_resolution(tmp_path):
    scene_id = "data/scene_datasets/gibson/Adrian.glb"
    assert resolve_scene(scene_id, None) == Path(scene_id)
    assert resolve_scene(scene_id, tmp_path) == tmp_path / "gibson" / "Adrian.glb"
    assert resolve_scene("habitat-test-scenes/a.glb", "s") == Path("s/habitat-test-scenes/a.glb")
    dataset = load_pointnav(habitat_split(tmp_path), scenes_dir=tmp_path / "scenes")
    with pytest.raises(batchsim.MissingFileError, match=r"2 of 2 scenes.*Adrian\.glb"):
        dataset.check_scenes()
    for path in dataset.scene_paths().values():
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(b"glTF")
    assert dataset.check_scenes()[scene_id] == tmp_path / "scenes" / "gibson" / "Adrian.glb"
    glb = dataset.scene_path(scene_id)
    assert packed_scene_path(glb) is None
    glb.with_suffix(".bsscene").write_bytes(b"")
    assert packed_scene_path(glb) == glb.with_suffix(".bsscene")


def mutate(edit) -> str:
    document = json.loads(HABITAT_SPLIT)
    edit(document["episodes"][1])
    return json.dumps(document)


@pytest.mark.parametrize(
    ("edit", "message"),
    [
        (lambda e: e.pop("goals"), r"episode 1 \(id '1'\): goals: missing"),
        (lambda e: e.update(goals=[]), "goals: expected a non-empty list"),
        (lambda e: e["start_position"].__setitem__(0, math.nan), r"start_position\[0\]: .*finite"),
        (lambda e: e.update(start_position=[1.0, 2.0]), "start_position: .*3 numbers, got 2"),
        (lambda e: e.update(start_rotation=[0, 1, 0, 1]), "start_rotation: .*unit quaternion"),
        (lambda e: e.update(start_rotation=[0, 0, 1]), "start_rotation: .*4 numbers"),
        (lambda e: e["goals"][0].update(radius=-1), r"goals\[0\]\.radius: .*positive"),
        (lambda e: e["goals"][1].pop("position"), r"goals\[1\]\.position: missing"),
        (lambda e: e["info"].update(geodesic_distance=-2), "info.geodesic_distance: expected >= 0"),
        (lambda e: e.update(start_postion=[0, 0, 0]), r"unknown keys \['start_postion'\]"),
        (lambda e: e.update(scene_id=3), "scene_id: expected a non-empty string"),
    ],
)
def test_malformed_episode_names_the_field(tmp_path, edit, message):
    path = habitat_split(tmp_path, mutate(edit))
    with pytest.raises(batchsim.FormatError, match=message) as error:
        load_pointnav(path)
    assert str(path) in str(error.value)


def test_malformed_files(tmp_path):
    plain = tmp_path / "plain" / "plain.json.gz"
    plain.parent.mkdir()
    plain.write_text(HABITAT_SPLIT)
    with pytest.raises(batchsim.FormatError, match="expected a gzip file"):
        load_pointnav(plain)
    with pytest.raises(batchsim.FormatError, match="expected JSON"):
        load_pointnav(write_gz(tmp_path / "a" / "a.json.gz", '{"episodes": ['))
    with pytest.raises(batchsim.FormatError, match="missing the top-level 'episodes'"):
        load_pointnav(write_gz(tmp_path / "b" / "b.json.gz", '{"version": 1}'))
    with pytest.raises(batchsim.MissingFileError, match="no such file"):
        load_pointnav(tmp_path / "absent" / "absent.json.gz")
    (tmp_path / "empty").mkdir()
    with pytest.raises(FileNotFoundError, match=r"empty\.json\.gz"):  # MissingFileError is one
        load_pointnav(tmp_path / "empty")


def test_write_rejects_bad_episodes(tmp_path):
    episode = load_pointnav(habitat_split(tmp_path)).episodes[0]
    with pytest.raises(batchsim.InvalidArgumentError, match="is not scene 'Other'"):
        write_pointnav(tmp_path / "out", "val", {"Other": [episode]})
    bad = PointNavEpisode("0", "x.glb", (0, 0, 0), (0, 0, 0, 2), (1, 0, 0))
    with pytest.raises(batchsim.InvalidArgumentError, match="unit quaternion"):
        write_pointnav(tmp_path / "out", "val", {"x": [bad]})
    with pytest.raises(batchsim.InvalidArgumentError, match="split"):
        write_pointnav(tmp_path / "out", "a/b", {})


# --- generation -------------------------------------------------------------------------


def floors(*rects, y=0.0):
    """Two triangles per (x0, z0, x1, z1) rectangle; Recast trims 0.15 m at open edges."""
    vertices, indices = [], []
    for i, (x0, z0, x1, z1) in enumerate(rects):
        vertices += [[x0, y, z0], [x1, y, z0], [x1, y, z1], [x0, y, z1]]
        indices += [[4 * i, 4 * i + 2, 4 * i + 1], [4 * i, 4 * i + 3, 4 * i + 2]]
    return np.array(vertices, np.float32), np.array(indices, np.uint32)


@pytest.fixture(scope="module")
def l_corridor():
    """An L-shaped corridor (arms 10 m, 2 m wide) and a 1.5 m room far away whose island is
    too small (radius < 1.5 m) for Habitat's generator."""
    return batchsim.NavMesh.bake(*floors((0, 0, 10, 2), (8, 2, 10, 10), (20, 0, 21.5, 1.5)))


@pytest.fixture(scope="module")
def episodes(l_corridor):
    return generate_episodes(l_corridor, "data/scene_datasets/test/L.glb", 500, seed=3)


def test_generated_episodes_follow_habitat_rules(l_corridor, episodes):
    assert [e.episode_id for e in episodes] == [str(i) for i in range(500)]
    assert l_corridor.num_islands == 2
    small = l_corridor.get_island([20.75, 0, 0.75])
    assert l_corridor.island_radius(small) < 1.5
    for e in episodes:
        assert check_episode(l_corridor, e) == [], e
        assert l_corridor.get_island(e.start_position) != small
        assert e.geodesic_distance == l_corridor.geodesic_distance(
            e.start_position, e.goal_position
        )
        assert e.goal_radius == 0.2 and math.isclose(math.hypot(*e.start_rotation), 1.0)


def test_near_straight_episodes_are_rare(episodes):
    ratios = np.array([ratio(e) for e in episodes])
    assert ratios.min() >= 1 - 1e-4
    # Straight pairs along one arm are common in an L but kept with chance <= 0.29.
    assert (ratios < 1.1).mean() < 0.3
    assert (ratios > 1.1).sum() > 0.5 * len(ratios)
    assert ratio_sample_rate(np.array([1.0, 1.1])) == pytest.approx([0.008, 0.288])


def ratio(e: PointNavEpisode) -> float:
    return e.geodesic_distance / math.dist(e.start_position, e.goal_position)


def test_generation_is_deterministic(tmp_path, l_corridor, episodes):
    again = generate_episodes(l_corridor, "data/scene_datasets/test/L.glb", 500, seed=3)
    assert again == episodes
    a = write_pointnav(tmp_path / "a", "train", {"L": episodes})
    b = write_pointnav(tmp_path / "b", "train", {"L": again})
    content = Path("content") / "L.json.gz"
    assert (a.parent / content).read_bytes() == (b.parent / content).read_bytes()
    assert load_pointnav(a).episodes == episodes
    other = generate_episodes(l_corridor, "data/scene_datasets/test/L.glb", 500, seed=4)
    assert other[0] != episodes[0]
    assert {e.start_position for e in other}.isdisjoint({e.start_position for e in episodes})


def test_generation_rules_are_parameters(l_corridor):
    short = generate_episodes(
        l_corridor, "L.glb", 100, seed=0, furthest_dist_limit=3.0, geodesic_to_euclid_min_ratio=0
    )
    rules = EpisodeRules(furthest_dist_limit=3.0)
    assert all(1.0 <= e.geodesic_distance <= 3.0 for e in short)
    assert all(check_episode(l_corridor, e, rules) == [] for e in short)
    assert check_episode(l_corridor, short[0], EpisodeRules(furthest_dist_limit=0.5))


def test_generation_fails_clearly_without_a_big_island():
    tiny = batchsim.NavMesh.bake(*floors((0, 0, 1.5, 1.5)))
    with pytest.raises(batchsim.InvalidArgumentError, match="no island of radius"):
        generate_episodes(tiny, "tiny.glb", 10, seed=0)
    with pytest.raises(batchsim.InvalidArgumentError, match="number_retries_per_target"):
        generate_episodes(tiny, "tiny.glb", 10, seed=0, number_retries_per_target=0)


def test_check_episode_reports_broken_rules(l_corridor, episodes):
    good = episodes[0]
    in_small_room = PointNavEpisode(
        "x",
        good.scene_id,
        (20.75, good.start_position[1], 0.75),
        (0.1, 0, 0, 0.995),
        good.goal_position,
        0.5,
        3.0,
    )
    problems = " / ".join(check_episode(l_corridor, in_small_room))
    for expected in (
        "start island radius",
        "different islands",
        "unreachable",
        "goal radius",
        "yaw-only",
    ):
        assert expected in problems
    wrong_distance = dataclasses.replace(good, geodesic_distance=99.0)
    assert check_episode(l_corridor, wrong_distance) == [
        f"info.geodesic_distance 99.000 m but navmesh says {good.geodesic_distance:.3f} m"
    ]


def test_split_with_episodes_and_content_is_ambiguous(tmp_path):
    split = habitat_split(tmp_path)
    (split.parent / "content").mkdir()
    with pytest.raises(batchsim.FormatError, match="Habitat versions disagree"):
        load_pointnav(split)
