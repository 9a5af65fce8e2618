"""Re-probe of issue 40's input classes with inputs other than the issue's: each case of
scripts/probe_cases.py runs in a process of its own, in an empty folder, under a time
limit, and is classified as the issue classified its ~260 inputs.

    python3 scripts/probe_inputs.py [--out probe.json] [--markdown probe.md] [-k SUBSTRING]

Outcomes: `clear typed error` (a batchsim, gymnasium or ValueError/TypeError exception, or a
CLI error line, naming what the case says it must), `unclear error` (any other exception, a
traceback from the CLI, pybind11's argument dump, or a message missing a name), `crash` (a
signal), `hang` (past the limit), `silently accepted` / `wrong output` (it ran, where an error
was due), `handled correctly` (a case that must work, worked). Exit status 1 if any case is
a crash, hang, wrong output, silently accepted or unclear.
"""

from __future__ import annotations

import argparse
import collections
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from probe_cases import CASES, Case

HERE = Path(__file__).resolve().parent
LIMIT_S = 120
TYPED = ("batchsim.", "gymnasium.error.", "ValueError", "TypeError")
UNTYPED_TEXT = (
    "incompatible function arguments",
    "incompatible constructor arguments",
    "Traceback",
)

RUNNER = """\
import sys
sys.path.insert(0, {here!r})
from probe_prelude import *
import batchsim.cli


def cli(*argv):
    sys.exit(batchsim.cli.main([str(a) for a in argv]))


try:
{body}
except SystemExit:
    raise
except BaseException as e:
    kind = type(e).__module__ + "." + type(e).__qualname__
    print("RAISED", kind.removeprefix("builtins.") + ":", e, flush=True)
    sys.exit(3)
print("FINISHED")
"""


def make_fixtures(root: Path) -> None:
    """A three-scene procgen dataset and a two-update training run on it."""
    for command in fixture_commands(root):
        done = subprocess.run(command, capture_output=True, text=True)
        if done.returncode != 0:
            sys.exit(f"making the probe's fixtures failed: {' '.join(command)}\n{done.stderr}")


def fixture_commands(root: Path) -> list[list[str]]:
    batchsim = [sys.executable, "-m", "batchsim"]
    data, split = root / "data", root / "data" / "pointnav" / "train"
    procgen = "--num-scenes 3 --triangle-budget 10000 --episodes-per-scene 20 --max-geodesic 5"
    train = (
        "sim.num_envs=2 render.width=16 render.height=16 rollout_steps=16 hidden_size=32 "
        "total_frames=64 device=cpu sim.num_threads=1 eval_every=0 cpca_steps=0"
    )
    return [
        [*batchsim, "procgen", "--out", str(data), *procgen.split()],
        [*batchsim, "train", "--quiet", f"dataset={split}", f"val_dataset={split}",
         *train.split(), f"log_dir={root / 'run'}"],
        [sys.executable, "-c", "import sys, batchsim; from pathlib import Path; "
         "scene = sorted(Path(sys.argv[1]).rglob('*.bsscene'))[0]; "
         "batchsim.Scene.load(scene).navmesh().save(sys.argv[2])",
         str(data / "scene_datasets"), str(root / "scene.navmesh")],
    ]  # fmt: skip


def run_case(case: Case, fixtures: Path) -> dict:
    body = "\n".join("    " + line for line in case.code.splitlines())
    with tempfile.TemporaryDirectory(prefix="probe-") as folder:
        script = Path(folder) / "case.py"
        script.write_text(RUNNER.format(here=str(HERE), body=body))
        env = os.environ | {"BATCHSIM_PROBE": str(fixtures)} | dict(case.env)
        started = time.perf_counter()
        try:
            done = subprocess.run(
                [sys.executable, str(script)],
                cwd=folder,
                env=env,
                capture_output=True,
                text=True,
                timeout=LIMIT_S,
            )
        except subprocess.TimeoutExpired:
            return {"outcome": "hang", "message": f"still running after {LIMIT_S} s", "s": LIMIT_S}
    seconds = round(time.perf_counter() - started, 1)
    return {"s": seconds} | classify(case, done)


def error_text(done: subprocess.CompletedProcess) -> str:
    for line in done.stdout.splitlines():
        if line.startswith("RAISED "):
            return line.removeprefix("RAISED ")
    lines = [line for line in done.stderr.splitlines() if line.strip()]
    return "\n".join(lines[-3:])


def classify(case: Case, done: subprocess.CompletedProcess) -> dict:
    if done.returncode < 0:
        return {"outcome": "crash", "message": f"signal {-done.returncode}: {done.stderr[-300:]}"}
    if done.returncode == 0:
        if case.ok:
            return {"outcome": "handled correctly", "message": ""}
        wrong = "wrong output" if case.klass == "wrong output" else "silently accepted"
        return {"outcome": wrong, "message": done.stdout[-300:]}
    message = error_text(done)
    if case.ok:
        return {"outcome": "wrong output", "message": message}
    typed = done.returncode != 3 or message.startswith(TYPED)
    clear = typed and not any(t in done.stderr + message for t in UNTYPED_TEXT)
    missing = [name for name in case.names if name not in message]
    if clear and not missing:
        return {"outcome": "clear typed error", "message": message}
    why = f" (does not name {missing})" if missing else ""
    return {"outcome": "unclear error", "message": message + why}


def markdown(results: list[dict]) -> str:
    rows = ["| class | input | outcome | what the user sees |", "| --- | --- | --- | --- |"]
    for r in results:
        message = r["message"].replace("|", "\\|").replace("\n", " ")
        rows.append(f"| {r['class']} | {r['case']} | {r['outcome']} | {message} |")
    return "\n".join(rows) + "\n"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--out", default="", help="write every case's result here (JSON)")
    parser.add_argument("--markdown", default="", help="write the table here")
    parser.add_argument("-k", default="", help="only the cases whose name holds this")
    args = parser.parse_args()
    cases = [c for c in CASES if args.k in c.name]
    results = []
    with tempfile.TemporaryDirectory(prefix="probe-fixtures-") as fixtures:
        make_fixtures(Path(fixtures))
        for i, case in enumerate(cases, 1):
            result = {"case": case.name, "class": case.klass} | run_case(case, Path(fixtures))
            results.append(result)
            print(
                f"[{i}/{len(cases)}] {result['outcome']:18} {case.name} ({result['s']} s)",
                flush=True,
            )
    counts = collections.Counter(r["outcome"] for r in results)
    print(json.dumps({"cases": len(results), "outcomes": counts}, indent=1))
    if args.out:
        Path(args.out).write_text(json.dumps({"outcomes": counts, "results": results}, indent=1))
    if args.markdown:
        Path(args.markdown).write_text(markdown(results))
    bad = {"crash", "hang", "wrong output", "silently accepted", "unclear error"}
    return 1 if bad & set(counts) else 0


if __name__ == "__main__":
    sys.exit(main())
