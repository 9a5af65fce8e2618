"""A folder of scene models (Gibson, MP3D, HM3D, ...) into packed scenes, in parallel, with
the layout kept: SRC/gibson/Adrian.glb -> OUT/gibson/Adrian.bsscene, so that Habitat
episodes whose scene_id is "data/scene_datasets/gibson/Adrian.glb" load with
load_pointnav(split, scenes_dir=OUT).

>>> results = import_dataset("data/scene_datasets", "data/batchsim_scenes", workers=8)
>>> [r.scene for r in results if r.status == "failed"]

A Habitat .navmesh beside a model (same stem) is embedded as it is, so that paths match
Habitat's exactly; other models get one baked. Scenes whose inputs (model, the files it
references, the navmesh, the settings, the packed format version) hash as in OUT's manifest
are reused; where every input file still has the size and mtime the manifest recorded, they
are reused without hashing (rehash=True hashes them all). A broken scene fails alone and
leaves no file behind.
"""

from __future__ import annotations

import dataclasses
import math
import os
import time
from collections.abc import Callable, Sequence
from pathlib import Path

from batchsim._progress import progress
from batchsim.datasets.import_manifest import load_manifest, save_manifest
from batchsim.datasets.import_settings import ImportSettings
from batchsim.datasets.import_workers import DEFAULT_MODEL_TIME_LIMIT_S, run_with_time_limit
from batchsim.datasets.scene_sources import (
    DEFAULT_EXCLUDE,
    find_models,
    input_stats,
    sibling_navmesh,
    source_hash,
    source_inputs,
    unchanged_inputs,
)
from batchsim.errors import Error, FormatError, InvalidArgumentError
from batchsim.scenes import import_scene, navmesh_settings

PACKED_SUFFIX = ".bsscene"
STATUSES = ("imported", "reused", "failed")


@dataclasses.dataclass(frozen=True)
class SceneJob:
    """One model to import, as a worker process receives it."""

    scene: str  # the model's path relative to SRC (posix), the manifest's key
    model: Path
    output: Path
    navmesh: Path | None  # Habitat's .navmesh beside the model, else None (bake)
    settings: ImportSettings
    cache_key: str
    previous: dict | None  # the manifest's entry from an earlier run


@dataclasses.dataclass(frozen=True)
class SceneResult:
    """What became of one scene; `error` says why when status is "failed"."""

    scene: str
    status: str  # one of STATUSES
    output: str  # relative to OUT
    navmesh: str  # "habitat" (the .navmesh beside the model, as is) or "baked"
    triangles: int = 0
    textures: int = 0
    file_bytes: int = 0
    seconds: float = 0.0
    error: str = ""
    hash: str = ""
    hashed: bool = False  # imported or reused: this run hashed the inputs (else their stats
    # matched the manifest's: scene_sources.unchanged_inputs)
    inputs: dict | None = None  # the inputs' sizes and mtimes (scene_sources.input_stats)

    def manifest_entry(self) -> dict:
        fields = ("hash", "output", "navmesh", "triangles", "textures", "file_bytes", "seconds")
        entry = {name: getattr(self, name) for name in fields} | {"seconds": round(self.seconds, 3)}
        return entry if self.inputs is None else entry | {"inputs": self.inputs}


def output_name(scene: Path) -> Path:
    """Where a model's packed scene goes, relative to OUT: beside the model's mirror, as
    batchsim.datasets.packed_scene_path looks for it (x.basis.glb -> x.basis.bsscene)."""
    return scene.with_suffix(PACKED_SUFFIX)


def import_dataset(
    src: str | os.PathLike,
    out: str | os.PathLike,
    *,
    workers: int | None = None,
    settings: ImportSettings | None = None,
    exclude: Sequence[str] = DEFAULT_EXCLUDE,
    force: bool = False,
    rehash: bool = False,
    show_progress: bool = True,
    on_result: Callable[[SceneResult], None] | None = None,
    model_time_limit_s: float | None = DEFAULT_MODEL_TIME_LIMIT_S,
) -> list[SceneResult]:
    """Imports every model under `src` into `out` (see the module docstring); returns one
    SceneResult per model in SRC order. workers: processes (default os.cpu_count()).
    exclude: globs of relative paths to skip. force: import even scenes the manifest says
    are current. rehash: hash every scene's inputs, even where their sizes and mtimes are
    as the manifest recorded. on_result: called in this process as each scene finishes.
    model_time_limit_s: a model still importing after this many seconds (None: no limit)
    has its worker stopped and is listed as failed, so one hung import cannot stop the run."""
    settings = settings or ImportSettings()
    settings.validate()
    if workers is not None and workers < 1:
        raise InvalidArgumentError(f"workers must be >= 1, got {workers}")
    if model_time_limit_s is not None and not 0 < model_time_limit_s < math.inf:
        raise InvalidArgumentError(
            f"model_time_limit_s: expected seconds > 0 (or None: no limit), got "
            f"{model_time_limit_s!r}"
        )
    manifest = _earlier_manifest(Path(out), force)
    jobs = plan_jobs(Path(src), Path(out), settings, exclude, {} if force else manifest)

    def record(result: SceneResult) -> None:
        if _record(manifest, result):
            save_manifest(Path(out), manifest)  # after each scene: an interrupted run keeps them
        if on_result is not None:
            on_result(result)

    results = {} if rehash else _reused_unchanged(jobs)
    for result in results.values():
        record(result)
    pending = [job for job in jobs if job.scene not in results]
    workers = workers or os.cpu_count() or 1
    results |= run_jobs(pending, workers, show_progress, record, model_time_limit_s)
    return [results[job.scene] for job in jobs]


def _record(manifest: dict[str, dict], result: SceneResult) -> bool:
    """Updates the manifest for one result; whether it changed. A reused scene's entry stays
    as its import wrote it, but for the sizes and mtimes of its inputs when they were hashed."""
    if result.status == "reused":
        entry = manifest[result.scene]
        if not result.hashed or entry.get("inputs") == result.inputs:
            return False
        entry.pop("inputs", None)
        if result.inputs is not None:
            entry["inputs"] = result.inputs
        return True
    manifest.pop(result.scene, None)
    if result.status == "imported":
        manifest[result.scene] = result.manifest_entry()
    return True


def _reused_unchanged(jobs: list[SceneJob]) -> dict[str, SceneResult]:
    """The scenes reused without hashing: their manifest entry records the sizes and mtimes
    of their inputs, and every input file still has them (see scene_sources.input_stats)."""
    reused = {}
    for job in jobs:
        started = time.perf_counter()
        entry = job.previous
        try:
            unchanged = entry is not None and unchanged_inputs(
                entry.get("inputs"), job.model, job.navmesh, job.cache_key
            )
        except OSError:  # a worker hashes it and reports what is wrong
            unchanged = False
        if unchanged and _output_intact(job):
            seconds = time.perf_counter() - started
            reused[job.scene] = _reused(job, entry["hash"], seconds, False, entry["inputs"])
    return reused


def _earlier_manifest(out: Path, force: bool) -> dict[str, dict]:
    if not out.is_dir():
        return {}
    try:
        return load_manifest(out)
    except FormatError:
        if force:  # every scene is imported again, so an unreadable manifest is just rewritten
            return {}
        raise


def plan_jobs(
    src: Path, out: Path, settings: ImportSettings, exclude: Sequence[str], previous: dict
) -> list[SceneJob]:
    """One job per model under src, each with its entry in `previous` (the manifest);
    InvalidArgumentError when two models would write the same packed scene (Adrian.glb and
    Adrian.obj side by side) or OUT is a file."""
    models = find_models(src, exclude)
    if out.exists() and not out.is_dir():
        raise InvalidArgumentError(f"OUT: {out} is a file; expected a folder")
    _check_distinct_outputs(models)
    jobs = []
    for scene in models:
        navmesh = sibling_navmesh(src / scene)
        jobs.append(
            SceneJob(
                scene=scene.as_posix(),
                model=src / scene,
                output=out / output_name(scene),
                navmesh=navmesh,
                settings=settings,
                cache_key=settings.cache_key(bakes=navmesh is None),
                previous=previous.get(scene.as_posix()),
            )
        )
    return jobs


def _check_distinct_outputs(models: list[Path]) -> None:
    seen: dict[Path, Path] = {}
    for scene in models:
        other = seen.setdefault(output_name(scene), scene)
        if other != scene:
            raise InvalidArgumentError(
                f"{other} and {scene} would both become {output_name(scene)}; leave one out "
                "with --exclude (exclude= in Python)"
            )


def run_jobs(
    jobs: list[SceneJob],
    workers: int,
    show_progress: bool,
    record: Callable[[SceneResult], None],
    model_time_limit_s: float | None = DEFAULT_MODEL_TIME_LIMIT_S,
) -> dict[str, SceneResult]:
    """Runs every job in `workers` fresh processes (spawned, not forked: the caller may
    hold Vulkan devices and threads), largest models first so that no big one starts last;
    a model still importing after model_time_limit_s (None: no limit) is stopped and fails."""
    results: dict[str, SceneResult] = {}
    if not jobs:
        return results
    order = sorted(jobs, key=lambda job: _size(job.model), reverse=True)
    finished = run_with_time_limit(
        import_one, order, min(workers, len(jobs)), model_time_limit_s, _failure
    )
    if show_progress:
        finished = progress(finished, total=len(order), desc="import-dataset")
    for _job, result in finished:
        results[result.scene] = result
        record(result)
    return results


def _size(path: Path) -> int:
    try:
        return path.stat().st_size
    except OSError:
        return 0


def import_one(job: SceneJob) -> SceneResult:
    """One scene, in a worker process: reused when its hash matches the manifest and its
    packed scene is still there, imported otherwise; any error becomes a failed result."""
    started = time.perf_counter()
    try:
        inputs = source_inputs(job.model, job.navmesh)
        stats = input_stats(inputs, job.cache_key)  # before hashing: see input_stats
        digest = source_hash(job.model, job.navmesh, job.cache_key, inputs)
        if job.previous is not None and job.previous["hash"] == digest and _output_intact(job):
            return _reused(job, digest, time.perf_counter() - started, True, stats)
        return _imported(job, digest, started, stats)
    except Exception as exc:  # one broken scene must not stop the others
        return _failure(job, _reason(exc, job.model), time.perf_counter() - started)


def _output_intact(job: SceneJob) -> bool:
    """Whether the packed scene the manifest records is still there, at its size."""
    entry = job.previous
    if entry is None or not job.output.is_file():
        return False
    return job.output.stat().st_size == entry["file_bytes"]


def _reused(
    job: SceneJob, digest: str, seconds: float, hashed: bool, inputs: dict | None
) -> SceneResult:
    entry = job.previous or {}
    return SceneResult(
        scene=job.scene,
        status="reused",
        output=entry["output"],
        navmesh=entry["navmesh"],
        triangles=entry["triangles"],
        textures=entry["textures"],
        file_bytes=entry["file_bytes"],
        seconds=seconds,
        hash=digest,
        hashed=hashed,
        inputs=inputs,
    )


def _imported(job: SceneJob, digest: str, started: float, inputs: dict | None) -> SceneResult:
    """Imports into OUT (the packed scene is written atomically by the importer)."""
    job.output.parent.mkdir(parents=True, exist_ok=True)
    settings = job.settings
    scene = import_scene(
        job.model,
        job.output,
        up=settings.up,
        axes=settings.axes,
        scale=settings.scale,
        navmesh=job.navmesh,
        settings=navmesh_settings(**settings.navmesh),
        chunk_triangles=settings.chunk_triangles,
        texture_budget_mib=settings.texture_budget_mib,
        texture_format=settings.texture_format,
        compress=settings.compress,
    )
    return SceneResult(
        scene=job.scene,
        status="imported",
        output=output_name(Path(job.scene)).as_posix(),
        navmesh=_navmesh_kind(job),
        triangles=scene.triangle_count,
        textures=scene.texture_count,
        file_bytes=scene.file_bytes,
        seconds=time.perf_counter() - started,
        hash=digest,
        hashed=True,
        inputs=inputs,
    )


def _navmesh_kind(job: SceneJob) -> str:
    return "habitat" if job.navmesh is not None else "baked"


def _failure(job: SceneJob, reason: str, seconds: float) -> SceneResult:
    """A failed result (import_one's, or run_with_time_limit's for a killed worker)."""
    return SceneResult(
        scene=job.scene,
        status="failed",
        output=output_name(Path(job.scene)).as_posix(),
        navmesh=_navmesh_kind(job),
        seconds=seconds,
        error=reason,
    )


# The importer's hint when a navmesh fails to bake names `batchsim import`'s options; every
# scene of a dataset needs a navmesh, so import-dataset has no --no-navmesh to offer.
SINGLE_IMPORT_HINT = "(import it without a navmesh: --no-navmesh, bake_navmesh=False)"
DATASET_HINT = (
    "(a dataset's scenes all need a navmesh: put the scene's Habitat .navmesh beside the "
    "model, change the navmesh settings (--agent-radius, --cell-size, ...), or leave it out "
    "with --exclude)"
)


def _reason(exc: Exception, model: Path) -> str:
    """The importer's own message (its type too where it is not batchsim's), said to be about
    an empty file where it is one: Assimp's "no suitable reader" would not say so."""
    message = str(exc) if isinstance(exc, (Error, OSError)) else f"{type(exc).__name__}: {exc}"
    message = message.replace(SINGLE_IMPORT_HINT, DATASET_HINT)
    return f"empty file (0 bytes): {message}" if _size(model) == 0 else message
