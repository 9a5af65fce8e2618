"""Habitat PointNav-v1 datasets on disk: <root>/<split>/<split>.json.gz, optionally with one
<root>/<split>/content/<scene>.json.gz per scene (the layout of Gibson and MP3D v1).

>>> dataset = load_pointnav("data/datasets/pointnav/gibson/v1/train", scenes_dir="data/scenes")
>>> dataset.check_scenes()          # MissingFileError listing every absent scene
>>> write_pointnav("out/pointnav", "train", {"Adrian": episodes})
"""

from __future__ import annotations

import dataclasses
import os
from collections.abc import Iterable, Iterator, Mapping, Sequence
from pathlib import Path

from batchsim._value_fields import check_path
from batchsim.datasets.episode import PointNavEpisode, scene_name
from batchsim.datasets.files import encode_json_gz, read_json_gz, write_atomic
from batchsim.datasets.parse import parse_episode, parse_episodes
from batchsim.datasets.scenes import resolve_scene
from batchsim.errors import FormatError, InvalidArgumentError, MissingFileError

ALL_SCENES_MASK = "*"  # habitat.core.dataset: content_scenes entry meaning every scene
CONTENT_SCENES_PATH_FIELD = "content_scenes_path"  # a split file may override the template
CONTENT_SCENES_PATH = "{data_path}/content/{scene}.json.gz"
SPLIT_SUFFIX = ".json.gz"


@dataclasses.dataclass
class PointNavDataset:
    """The episodes of one split, scene_ids as the files hold them."""

    episodes: list[PointNavEpisode]
    scenes_dir: Path | None = None
    path: Path | None = None  # the split file it was loaded from

    def __len__(self) -> int:
        return len(self.episodes)

    def __iter__(self) -> Iterator[PointNavEpisode]:
        return iter(self.episodes)

    @property
    def scene_ids(self) -> list[str]:
        """Every scene_id used, sorted, each once."""
        return sorted({e.scene_id for e in self.episodes})

    def first_per_scene(self, count: int) -> PointNavDataset:
        """The first `count` episodes of each scene, in the split's order (generator v8
        interleaves garden and indoor episodes, so any prefix keeps their share): e.g. 10 per
        scene of 100 val scenes, the 1,000 episodes of the evaluation protocol."""
        if count < 1:
            raise InvalidArgumentError(f"episodes per scene: expected >= 1, got {count}")
        taken: dict[str, int] = {}
        kept = []
        for episode in self.episodes:
            if taken.get(episode.scene_id, 0) < count:
                taken[episode.scene_id] = taken.get(episode.scene_id, 0) + 1
                kept.append(episode)
        return dataclasses.replace(self, episodes=kept)

    def episodes_for(self, scene: str) -> list[PointNavEpisode]:
        """The episodes whose scene_id is `scene` or whose scene name (file stem) is."""
        return [e for e in self.episodes if scene in (e.scene_id, e.scene_name)]

    def scene_path(self, scene_id: str) -> Path:
        return resolve_scene(scene_id, self.scenes_dir)

    def scene_paths(self) -> dict[str, Path]:
        """scene_id -> its file, resolved against scenes_dir the way Habitat does."""
        return {s: self.scene_path(s) for s in self.scene_ids}

    def check_scenes(self) -> dict[str, Path]:
        """scene_paths(), after checking that every scene file exists."""
        paths = self.scene_paths()
        missing = [f"{p} (scene_id {s!r})" for s, p in paths.items() if not p.is_file()]
        if missing:
            where = f"under scenes_dir {self.scenes_dir}" if self.scenes_dir else "(no scenes_dir)"
            raise MissingFileError(
                f"{len(missing)} of {len(paths)} scenes of {self.path or 'the dataset'} are "
                f"missing {where}: " + ", ".join(missing)
            )
        return paths


def split_file(path: str | os.PathLike) -> Path:
    """The split file for `path`: the file itself, or <dir>/<dir name>.json.gz for a folder."""
    path = Path(check_path("path", path))
    if path.is_dir():
        return path / f"{path.name}{SPLIT_SUFFIX}"
    return path


def load_pointnav(
    path: str | os.PathLike,
    scenes_dir: str | os.PathLike | None = None,
    content_scenes: Sequence[str] = (ALL_SCENES_MASK,),
) -> PointNavDataset:
    """Loads a PointNav-v1 split as PointNavDatasetV1 does.

    path: the split file <root>/<split>/<split>.json.gz, or its folder. When the split file
    lists no episodes and a content/ folder sits beside it, the episodes come from
    content/<scene>.json.gz for each scene in content_scenes ("*": every file there);
    otherwise from the split file, keeping those whose scene name is in content_scenes.
    """
    file = split_file(path)
    scenes = _scene_list(content_scenes)
    document = read_json_gz(file)
    episodes = parse_episodes(document, str(file))
    content = _content_template(document, file)
    content_dir = Path(content.split("{scene}")[0].format(data_path=file.parent))
    if content_dir.is_dir():
        if episodes:
            raise FormatError(
                f"{file}: lists {len(episodes)} episodes and {content_dir} exists too; Habitat "
                "versions disagree on which to read, so give one or the other"
            )
        episodes = _load_content(content, file.parent, content_dir, scenes)
    elif ALL_SCENES_MASK not in scenes:
        episodes = [e for e in episodes if e.scene_name in scenes]
    return PointNavDataset(episodes, None if scenes_dir is None else Path(scenes_dir), file)


def _scene_list(content_scenes: Sequence[str]) -> list[str]:
    if isinstance(content_scenes, str):  # a lone name, not its characters
        content_scenes = [content_scenes]
    scenes = list(content_scenes)
    if not all(isinstance(s, str) for s in scenes):
        raise InvalidArgumentError(f"content_scenes: expected scene names, got {scenes!r}")
    return scenes


def _content_template(document: dict, file: Path) -> str:
    template = document.get(CONTENT_SCENES_PATH_FIELD, CONTENT_SCENES_PATH)
    try:  # the two fields Habitat fills, and no others
        ok = isinstance(template, str) and bool(template.format(data_path="", scene=""))
    except (KeyError, IndexError, ValueError):
        ok = False
    if not ok or "{scene}" not in template:
        raise FormatError(
            f"{file}: {CONTENT_SCENES_PATH_FIELD}: expected a string with {{scene}}, "
            f"got {template!r}"
        )
    return template


def _load_content(
    template: str, data_path: Path, content_dir: Path, scenes: list[str]
) -> list[PointNavEpisode]:
    suffix = template.split("{scene}")[1]
    if ALL_SCENES_MASK in scenes:
        names = (p.name for p in content_dir.iterdir() if p.name.endswith(suffix))
        scenes = sorted(n[: -len(suffix)] if suffix else n for n in names)
    episodes: list[PointNavEpisode] = []
    for scene in scenes:
        file = Path(template.format(data_path=data_path, scene=scene))
        episodes += parse_episodes(read_json_gz(file), str(file))
    return episodes


def write_pointnav(
    root: str | os.PathLike,
    split: str,
    episodes_by_scene: Mapping[str, Iterable[PointNavEpisode]],
    use_content: bool = True,
) -> Path:
    """Writes a split in Habitat's layout and returns the split file's path.

    episodes_by_scene: scene name or scene_id -> that scene's episodes. use_content: one
    content/<scene name>.json.gz per scene and {"episodes": []} in the split file (Habitat's
    Gibson/MP3D layout); otherwise every episode in the split file. Files are deterministic
    (equal episodes give equal bytes) and written atomically. content/*.json.gz files left
    by an earlier write of this split are removed, since Habitat would read them.
    """
    if not isinstance(split, str) or not split or split != os.path.basename(split):
        raise InvalidArgumentError(f"split: expected a plain folder name, got {split!r}")
    folder = Path(root) / split
    scenes = _checked_scenes(episodes_by_scene)
    content_dir = folder / "content"
    if use_content:
        for name, records in scenes.items():
            write_atomic(content_dir / f"{name}{SPLIT_SUFFIX}", _document(records))
        content_dir.mkdir(parents=True, exist_ok=True)
    _remove_stale_content(content_dir, set(scenes) if use_content else set())
    everything = [] if use_content else [r for records in scenes.values() for r in records]
    file = folder / f"{split}{SPLIT_SUFFIX}"
    write_atomic(file, _document(everything))
    return file


def _document(records: list[dict]) -> bytes:
    return encode_json_gz({"episodes": records})


def _checked_scenes(episodes_by_scene: Mapping[str, Iterable[PointNavEpisode]]) -> dict:
    """scene name -> the episodes' JSON, each checked by the reader's own rules so that what
    is written always loads."""
    if not isinstance(episodes_by_scene, Mapping):
        raise InvalidArgumentError(
            f"episodes_by_scene: expected a dict of scene -> episodes, "
            f"got {type(episodes_by_scene).__name__}"
        )
    scenes: dict[str, list[dict]] = {}
    for key, episodes in episodes_by_scene.items():
        name = scene_name(key)
        if not name or name in scenes:
            raise InvalidArgumentError(f"episodes_by_scene: scene {key!r} is empty or repeated")
        scenes[name] = [_checked_json(e, key, name, i) for i, e in enumerate(episodes)]
    return scenes


def _checked_json(episode: PointNavEpisode, key: str, name: str, index: int) -> dict:
    where = f"episodes_by_scene[{key!r}][{index}]"
    if not isinstance(episode, PointNavEpisode):
        raise InvalidArgumentError(
            f"{where}: expected a PointNavEpisode, got {type(episode).__name__}"
        )
    if episode.scene_name != name:
        raise InvalidArgumentError(f"{where}: scene_id {episode.scene_id!r} is not scene {name!r}")
    record = episode.to_json()
    try:
        parse_episode(record, where, index)
    except FormatError as exc:
        raise InvalidArgumentError(str(exc)) from None
    return record


def _remove_stale_content(content_dir: Path, keep: set[str]) -> None:
    if not content_dir.is_dir():
        return
    for file in content_dir.glob(f"*{SPLIT_SUFFIX}"):
        if file.name[: -len(SPLIT_SUFFIX)] not in keep:
            file.unlink()
    if not keep and not any(content_dir.iterdir()):
        content_dir.rmdir()
