"""The Python fuzz harnesses (fuzz/fuzz_*.py) on their checked-in seeds and regressions: only
batchsim's typed errors may escape the episode-JSON reader and `batchsim train`'s config
parsing (issue 40, part C). `make fuzz-smoke` fuzzes them further; these run in the suite."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import pytest

pytest.importorskip("atheris")

FUZZ = Path(__file__).resolve().parents[2] / "fuzz"
HARNESSES = sorted(p.stem.removeprefix("fuzz_") for p in FUZZ.glob("fuzz_*.py"))


def _harness(name: str):
    spec = importlib.util.spec_from_file_location(f"fuzz_{name}", FUZZ / f"fuzz_{name}.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


@pytest.mark.parametrize("name", HARNESSES)
def test_harness_passes_its_corpus(name: str) -> None:
    seeds = sorted((FUZZ / "corpus" / name).iterdir())
    assert seeds, f"fuzz/corpus/{name} has no seeds"
    run = _harness(name).test_one_input
    for seed in seeds:
        try:
            run(seed.read_bytes())
        except Exception as exc:
            raise AssertionError(f"fuzz/corpus/{name}/{seed.name}: {exc!r} escaped") from exc
