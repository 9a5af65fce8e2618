"""atheris harness: PointNav-v1 episode files through batchsim's reader (issue 40, part C).

An input is a split file's bytes: gzip (as on disk) where it starts with gzip's magic, else
plain JSON, which the harness compresses first so that the fuzzer works on the JSON; or,
where it starts with "S", the recipe for a structured file: a valid episode with fields
replaced by values of every JSON kind (huge integers, NaN, deep lists, ...) drawn from the
rest, which reaches the field checks far more often than mutated text does. Each goes
through datasets.files.decode_json_gz and datasets.parse.parse_episodes, as load_pointnav
reads a file; every episode parsed is written back (to_json) and must parse to the same
episode. Only batchsim's errors (batchsim.errors.Error) may escape.

    PYTHONPATH=python python fuzz/fuzz_episodes_json.py -max_total_time=60 \
        fuzz/corpus/episodes_json
"""

from __future__ import annotations

import gzip
import json
import sys
from pathlib import Path

import atheris

with atheris.instrument_imports(include=["batchsim.datasets"]):
    from batchsim.datasets.files import decode_json_gz
    from batchsim.datasets.parse import parse_episode, parse_episodes
    from batchsim.errors import Error

GZIP_MAGIC = b"\x1f\x8b"
STRUCTURED = b"S"
FILE = Path("fuzz.json.gz")
EPISODE = {
    "episode_id": "0",
    "scene_id": "data/scene_datasets/rooms.glb",
    "start_position": [1.0, 0.0, 1.0],
    "start_rotation": [0.0, 0.7071068, 0.0, 0.7071068],
    "info": {"geodesic_distance": 7.4},
    "goals": [{"position": [8.0, 0.0, 3.0], "radius": None}],
    "shortest_paths": None,
}
KEYS = [*EPISODE, "start_room", "scene_dataset_config", "bogus"]


def json_value(fdp: atheris.FuzzedDataProvider, depth: int = 0):
    """Any JSON value, with the numbers and shapes a parser gets wrong most often."""
    kind = fdp.ConsumeIntInRange(0, 9 if depth < 4 else 5)
    if kind == 0:
        return None
    if kind == 1:
        return fdp.ConsumeBool()
    if kind == 2:
        return fdp.ConsumeInt(fdp.ConsumeIntInRange(1, 160))  # up to 10^385: past float
    if kind == 3:
        return fdp.ConsumeRegularFloat() if fdp.ConsumeBool() else fdp.ConsumeFloat()
    if kind in (4, 5):
        return fdp.ConsumeUnicodeNoSurrogates(fdp.ConsumeIntInRange(0, 12))
    if kind in (6, 7):
        return [json_value(fdp, depth + 1) for _ in range(fdp.ConsumeIntInRange(0, 5))]
    keys = ["position", "radius", "geodesic_distance", fdp.ConsumeUnicodeNoSurrogates(4)]
    return {fdp.PickValueInList(keys): json_value(fdp, depth + 1) for _ in range(3)}


def structured_document(data: bytes) -> dict:
    fdp = atheris.FuzzedDataProvider(data)
    episodes = []
    for _ in range(fdp.ConsumeIntInRange(1, 3)):
        episode = dict(EPISODE)
        for _ in range(fdp.ConsumeIntInRange(1, 4)):
            key = fdp.PickValueInList(KEYS)
            if fdp.ConsumeIntInRange(0, 7) == 0:
                episode.pop(key, None)
            else:
                episode[key] = json_value(fdp)
        episodes.append(episode)
    return {"episodes": episodes}


def episodes_of(data: bytes) -> list:
    if data.startswith(STRUCTURED):  # the same reader, on JSON text written from the recipe
        text = json.dumps(structured_document(data[1:]), allow_nan=True).encode()
        raw = gzip.compress(text, compresslevel=1, mtime=0)
    elif data.startswith(GZIP_MAGIC):
        raw = data
    else:
        raw = gzip.compress(data, compresslevel=1, mtime=0)
    return parse_episodes(decode_json_gz(raw, FILE), str(FILE))


def test_one_input(data: bytes) -> None:
    try:
        episodes = episodes_of(data)
    except Error:
        return  # a typed refusal naming the file: what a bad file should get
    for index, episode in enumerate(episodes):
        again = parse_episode(episode.to_json(), str(FILE), index)
        if again != episode:
            raise AssertionError(f"episode {index} changed on its way back: {episode} {again}")


if __name__ == "__main__":
    atheris.Setup(sys.argv, test_one_input)
    atheris.Fuzz()
