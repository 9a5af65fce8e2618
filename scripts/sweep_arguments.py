"""Calls every public constructor, function, method and property setter of batchsim._core
(and the package's Python classes) with a wrong-typed argument and an unknown keyword, and
lists what each answers. A pybind11 "incompatible ... arguments" dump, or an exception that
is not a TypeError/ValueError, is a finding (issue 40, part C).

    PYTHONPATH=python python scripts/sweep_arguments.py \
        --split build/test-data/procgen/pointnav/train
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable, Iterator
from pathlib import Path

import batchsim
from batchsim import _core

DUMP_MARKS = ("incompatible function", "incompatible constructor", "Invoked with")
SKIPPED = {"wait_idle", "close"}  # they take no arguments; a wrong one changes nothing to test


class Wrong:
    """An argument of no type any binding takes."""

    def __repr__(self) -> str:
        return "Wrong()"


def instances(split: Path) -> dict[str, object]:
    """One live object of each class whose methods the sweep calls."""
    context = _core.Context(export="cpu")
    scene_path = next((split.parents[1] / "scene_datasets").rglob("*.bsscene"))
    scene = _core.Scene.load(scene_path)
    sim = batchsim.Simulator(split, 2, context=context, sensors=("depth",), resolution=8)
    sim.reset(seed=0)
    config = batchsim.RendererConfig(views=1, width=8, height=8, places=1, rgb=False)
    return {
        "Context": context,
        "Scene": scene,
        "NavMesh": scene.navmesh(),
        "BatchRenderer": _core.BatchRenderer(context, config),
        "Simulator": sim._core,
        "BatchSim": sim._core.sim,
        "Tensor": sim.depth,
        "PatternFill": _core.PatternFill(context),
        "EpisodeSet": sim.sim.episode_set if hasattr(sim.sim, "episode_set") else None,
        "SimConfig": _core.SimConfig(),
        "TaskConfig": _core.TaskConfig(),
        "RenderOptions": _core.RenderOptions(),
        "RendererConfig": _core.RendererConfig(),
        "NavMeshSettings": batchsim.NavMeshSettings(),
    }


def calls(objects: dict[str, object]) -> Iterator[tuple[str, Callable[[], object]]]:
    """(label, call) for each wrong call the sweep makes."""
    for name in sorted(n for n in dir(_core) if not n.startswith("_")):
        member = getattr(_core, name)
        if isinstance(member, type):
            yield f"{name}(Wrong())", lambda m=member: m(Wrong())
            yield f"{name}(bogus=1)", lambda m=member: m(bogus=1)
            yield from _member_calls(name, member, objects.get(name))
        elif callable(member):
            yield f"{name}(Wrong())", lambda m=member: m(Wrong())
            yield f"{name}(bogus=1)", lambda m=member: m(bogus=1)


def _member_calls(name: str, cls: type, instance: object) -> Iterator[tuple[str, Callable]]:
    for attr, raw in vars(cls).items():
        if attr.startswith("_") or attr in SKIPPED:
            continue
        if isinstance(raw, property):
            if raw.fset is not None and instance is not None:
                yield f"{name}.{attr} = Wrong()", lambda a=attr: setattr(instance, a, Wrong())
            continue
        if isinstance(raw, staticmethod):
            target = getattr(cls, attr)
        elif instance is not None and callable(raw):
            target = getattr(instance, attr)
        else:
            continue
        yield f"{name}.{attr}(Wrong())", lambda t=target: t(Wrong())
        yield f"{name}.{attr}(bogus=1)", lambda t=target: t(bogus=1)


def answer(call: Callable[[], object]) -> tuple[str, str]:
    try:
        call()
    except Exception as exc:  # the sweep records every answer
        return type(exc).__name__, str(exc).splitlines()[0] if str(exc) else ""
    return "accepted", ""


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--split", type=Path, required=True, help="a PointNav split")
    args = parser.parse_args()
    findings = 0
    for label, call in calls(instances(args.split)):
        kind, message = answer(call)
        bad = any(mark in message for mark in DUMP_MARKS) or kind not in (
            "accepted",
            *(e.__name__ for e in (TypeError, ValueError)),
            *batchsim.errors.__all__,
        )
        findings += bad
        print(f"{'FINDING ' if bad else ''}{label}: {kind}: {message[:160]}")
    print(f"{findings} finding(s)")
    return 1 if findings else 0


if __name__ == "__main__":
    sys.exit(main())
