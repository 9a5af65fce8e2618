"""Malformed or hostile split files give a FormatError naming the file (and the episode and
field where there is one), each class by one test: a split without episodes, a split near
the filesystem root, JSON nested past the parser's limit, integers too large for a float,
and a gzip bomb, refused by a cap on the decompressed size that BATCHSIM_MAX_JSON_MB raises
(issue 40, part B)."""

from __future__ import annotations

import gzip
import json
import re
import tempfile
import zlib
from pathlib import Path

import pytest

import batchsim
from batchsim.datasets import episode_table, load_pointnav
from batchsim.datasets.files import MAX_JSON_BYTES, MAX_JSON_ENV, read_json_gz
from batchsim.errors import FormatError, InvalidArgumentError, MissingFileError

EPISODE = {
    "episode_id": "0",
    "scene_id": "nowhere/scene.glb",
    "start_position": [0.0, 0.0, 0.0],
    "start_rotation": [0.0, 0.0, 0.0, 1.0],
    "goals": [{"position": [1.0, 0.0, 1.0], "radius": None}],
    "info": {"geodesic_distance": 1.5},
}


def _split(path: Path, text: str) -> Path:
    path.write_bytes(gzip.compress(text.encode()))
    return path


def test_a_split_without_episodes_names_the_file(tmp_path):
    empty = _split(tmp_path / "empty.json.gz", '{"episodes": []}')
    for build in (batchsim.BatchSim, episode_table):
        with pytest.raises(FormatError, match=rf"{empty}: no episodes"):
            build(empty)
    one = _split(tmp_path / "one.json.gz", json.dumps({"episodes": [EPISODE]}))
    filtered = load_pointnav(one, content_scenes=["another-scene"])  # none of its scenes
    with pytest.raises(FormatError, match=rf"{one}: no episodes"):
        episode_table(filtered)


def test_a_split_near_the_root_gets_the_usual_errors():
    # Habitat's layout is looked for three folders up, which a file in /tmp lacks.
    with tempfile.NamedTemporaryFile(suffix=".json.gz", dir="/tmp") as file:
        path = _split(Path(file.name), json.dumps({"episodes": [EPISODE]}))
        assert len(path.resolve().parents) == 2
        with pytest.raises(MissingFileError, match=r"nowhere/scene\.bsscene"):
            episode_table(path)


@pytest.mark.parametrize("where", ["document", "episode-info"])
def test_json_nested_past_the_parser_names_the_file(tmp_path, where):
    deep = "[" * 100_000 + "]" * 100_000
    text = (
        '{"episodes": ' + deep + "}"
        if where == "document"
        else json.dumps({"episodes": [EPISODE | {"info": "X"}]}).replace('"X"', deep)
    )
    path = _split(tmp_path / "deep.json.gz", text)
    with pytest.raises(FormatError, match=rf"{path}: .*nested deeper"):
        load_pointnav(path)


@pytest.mark.parametrize(
    "field, change",
    [
        ("start_position[1]", {"start_position": [0.0, "N", 0.0]}),
        ("start_rotation[3]", {"start_rotation": [0.0, 0.0, 0.0, "N"]}),
        ("goals[0].radius", {"goals": [{"position": [1.0, 0.0, 1.0], "radius": "N"}]}),
        ("info.geodesic_distance", {"info": {"geodesic_distance": "N"}}),
    ],
)
def test_integers_too_large_for_a_float_name_the_episode_and_field(tmp_path, field, change):
    path = tmp_path / "huge.json.gz"
    text = json.dumps({"episodes": [EPISODE, EPISODE | change]}).replace('"N"', "9" * 401)
    with pytest.raises(FormatError, match=rf"{path}: episode 1 .*{re.escape(field)}: .*401 digits"):
        load_pointnav(_split(path, text))
    beyond = text.replace("9" * 401, "9" * 5000)  # past Python's int-from-text limit
    with pytest.raises(FormatError, match=rf"{path}: expected JSON"):
        load_pointnav(_split(path, beyond))


def _bomb(megabytes: int) -> bytes:
    """A gzip file of a valid, empty split padded with megabytes of spaces: ~1000x smaller."""
    deflate = zlib.compressobj(9, zlib.DEFLATED, 16 + zlib.MAX_WBITS)
    parts = [deflate.compress(b'{"episodes": [')]
    parts += [deflate.compress(b" " * (1 << 20)) for _ in range(megabytes)]
    return b"".join([*parts, deflate.compress(b"]}"), deflate.flush()])


def test_a_gzip_bomb_is_refused_by_a_cap_that_can_be_raised(tmp_path, monkeypatch):
    assert MAX_JSON_BYTES == 256 << 20  # the default: what docs/datasets.md states
    path = tmp_path / "bomb.json.gz"
    path.write_bytes(_bomb(24))
    assert path.stat().st_size < 100_000
    monkeypatch.setenv(MAX_JSON_ENV, "16")
    with pytest.raises(
        FormatError, match=rf"{path}: decompresses to more than 16 MiB.*{MAX_JSON_ENV}"
    ):
        load_pointnav(path)
    monkeypatch.setenv(MAX_JSON_ENV, "32")  # trusted: the cap raised, the same file loads
    assert len(load_pointnav(path)) == 0
    assert read_json_gz(path) == {"episodes": []}
    monkeypatch.setenv(MAX_JSON_ENV, "lots")
    with pytest.raises(InvalidArgumentError, match=MAX_JSON_ENV):
        read_json_gz(path)
