"""Smoke test of the built wheel as a user gets it: installed in a fresh virtual environment
that cannot see the source tree, run from a folder outside it.

    python3 scripts/wheel_smoke.py [--wheel-dir dist] [--venv /tmp/bs-wheel-venv]

Steps: `batchsim doctor`; import a small OBJ written here (Assimp) and bake its navmesh
(Recast); `batchsim procgen` a tiny dataset; step a BatchNavEnv; run the quickstart notebook
(examples/quickstart.ipynb) in a Jupyter kernel; one PPO update on the CPU. With
`--without-torch` (for a Python without a CPU torch at hand): no torch in the venv, so
batchsim must import without it; Simulator steps read through DLPack by numpy, no
notebook or update.
The driver uses only the standard library; the checks that need batchsim run inside the venv
(`--inside`), from a copy of this file in the work folder.
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
# A CPU build of PyTorch that installs quickly (scripts/setup.sh pins the same one).
TORCH = os.environ.get("BATCHSIM_TORCH", "torch==2.13.0")
# What running the quickstart notebook needs beside the wheel.
NOTEBOOK_TOOLS = ["nbclient>=0.7", "nbformat>=5", "ipykernel>=6"]
RUN_NOTEBOOK = (
    "import sys, nbclient, nbformat; nb = nbformat.read(sys.argv[1], as_version=4); "
    "nbclient.NotebookClient(nb, timeout=300, kernel_name='python3').execute(); "
    "print('quickstart notebook ran:', sum(c.cell_type == 'code' for c in nb.cells), 'cells')"
)
# One update of the demo preset, shrunk: 4 envs x 8 steps = 32 frames.
TINY_TRAIN = [
    "sim.num_envs=4",
    "render.width=16",
    "render.height=16",
    "rollout_steps=8",
    "hidden_size=32",
    "total_frames=32",
    "device=cpu",
    "sim.num_threads=1",
    "sim.task.max_episode_steps=30",
    "eval_envs=4",
]
# A 6 m x 6 m floor with a 1 m box on it: enough for Assimp to read and Recast to bake.
TINY_OBJ = """\
v -3 0 -3
v 3 0 -3
v 3 0 3
v -3 0 3
v -0.5 0 -0.5
v 0.5 0 -0.5
v 0.5 1 -0.5
v -0.5 1 -0.5
v -0.5 0 0.5
v 0.5 0 0.5
v 0.5 1 0.5
v -0.5 1 0.5
f 1 4 3 2
f 5 6 7 8
f 10 9 12 11
f 9 5 8 12
f 6 10 11 7
f 8 7 11 12
"""


def find_wheel(wheel_dir: Path) -> Path:
    tag = f"cp{sys.version_info[0]}{sys.version_info[1]}"
    wheels = sorted(wheel_dir.glob(f"batchsim-*-{tag}-{tag}-manylinux*.whl"), key=os.path.getmtime)
    if not wheels:
        sys.exit(f"wheel smoke: no {tag} manylinux wheel in {wheel_dir}: run `make wheel`")
    return wheels[-1]


def run(cmd: list, cwd: Path, env: dict) -> None:
    print("$", " ".join(map(str, cmd)), flush=True)
    if subprocess.run([str(c) for c in cmd], cwd=cwd, env=env).returncode != 0:
        sys.exit(f"wheel smoke: FAILED: {Path(cmd[0]).name} {' '.join(map(str, cmd[1:3]))}")


def venv_env(venv: Path) -> dict:
    # Nothing of the caller's Python setup leaks in: no PYTHONPATH, the venv first on PATH.
    env = {k: v for k, v in os.environ.items() if not k.startswith("PYTHON")}
    env["PATH"] = f"{venv / 'bin'}{os.pathsep}{env.get('PATH', '')}"
    env["VIRTUAL_ENV"] = str(venv)
    return env


def drive(args: argparse.Namespace) -> None:
    start = time.monotonic()
    wheel = find_wheel(Path(args.wheel_dir).resolve())
    print(f"wheel under test: {wheel}", flush=True)
    venv = Path(args.venv).resolve()
    shutil.rmtree(venv, ignore_errors=True)
    # A plain venv: no system site-packages, where a from-source batchsim may be installed.
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
    env = venv_env(venv)
    python = venv / "bin" / "python"
    pip = [python, "-m", "pip", "install", "--disable-pip-version-check", "-q"]
    extras = [] if args.without_torch else [TORCH, *NOTEBOOK_TOOLS]
    run([*pip, wheel, *extras], cwd=venv, env=env)
    print(f"installed in fresh venv {venv} ({time.monotonic() - start:.0f} s)", flush=True)

    work = Path(tempfile.mkdtemp(prefix="bs-wheel-smoke-"))
    if work.is_relative_to(ROOT) or venv.is_relative_to(ROOT):
        sys.exit("wheel smoke: the venv and work folder must lie outside the source tree")

    def batchsim(*cli_args) -> None:  # the console script, as a user calls it
        run([venv / "bin" / "batchsim", *cli_args], cwd=work, env=env)

    batchsim("--version")
    batchsim("doctor")
    data = work / "procgen"
    # The smallest dataset procgen makes: a scene per split, 10 episodes each.
    tiny = ["--num-scenes", 3, "--triangle-budget", 10000, "--episodes-per-scene", 10]
    batchsim("procgen", "--out", data, *tiny)
    shutil.copy(__file__, work / "wheel_smoke.py")
    inside = ["--inside", work, "--source", ROOT, *(["--without-torch"] * args.without_torch)]
    run([python, work / "wheel_smoke.py", *inside], cwd=work, env=env)
    if args.without_torch:  # the notebook and training need torch
        shutil.rmtree(work)
        print(f"smoke test without torch passed ({time.monotonic() - start:.0f} s)", flush=True)
        return
    # The notebook as a user opens it: a copy outside the tree, the kernel in the venv.
    notebook = shutil.copy(ROOT / "examples" / "quickstart.ipynb", work)
    notebook_env = {**env, "BATCHSIM_QUICKSTART_DATA": str(data)}
    run([python, "-c", RUN_NOTEBOOK, notebook], cwd=work, env=notebook_env)
    splits = [f"dataset={data / 'pointnav' / 'train'}", f"val_dataset={data / 'pointnav' / 'val'}"]
    batchsim("train", "--preset", "demo", "--quiet", *splits, *TINY_TRAIN, f"log_dir={work}/run")
    shutil.rmtree(work)
    print(f"smoke test passed ({time.monotonic() - start:.0f} s)", flush=True)


def check_inside(work: Path, source: Path, with_torch: bool) -> None:
    """Runs in the venv: batchsim comes from the wheel and its bundled libraries, the Vulkan
    loader from the system. Without torch, a Simulator steps (BatchNavEnv needs torch)."""
    import numpy as np

    import batchsim

    assert with_torch or "torch" not in sys.modules  # torch is an optional extra

    assert Path(batchsim.__file__).is_relative_to(sys.prefix), batchsim.__file__
    assert not any(Path(p or ".").resolve().is_relative_to(source) for p in sys.path), sys.path
    maps = Path("/proc/self/maps").read_text().split()
    loaded = {Path(p).name.split("-")[0].split(".so")[0]: p for p in maps if ".so" in p}
    assert "batchsim.libs" in loaded["libassimp"], loaded["libassimp"]
    assert "batchsim.libs" not in loaded["libvulkan"], loaded["libvulkan"]
    print(f"batchsim from {Path(batchsim.__file__).parent}; Vulkan loader {loaded['libvulkan']}")

    model = work / "tiny.obj"
    model.write_text(TINY_OBJ)
    scene = batchsim.import_scene(model, work / "tiny.bsscene")
    assert scene.triangle_count == 12 and scene.has_navmesh, scene
    print(f"imported {model.name}: {scene.triangle_count} triangles, navmesh baked")

    split = work / "procgen" / "pointnav" / "train"
    actions = np.random.default_rng(0).integers(1, 4, (5, 4))
    if not with_torch:  # BatchNavEnv needs torch; the Simulator and its DLPack views do not
        sim = batchsim.Simulator(split, 4, device="cpu", resolution=16)
        sim.reset(seed=0)
        for step_actions in actions:
            sim.step(step_actions.astype(np.int32))
        depth = np.from_dlpack(sim.depth)
        assert depth.shape == (4, 1, 16, 16) and np.isfinite(depth).all(), depth.shape
        assert np.isfinite(sim.reward).all() and "torch" not in sys.modules
        sim.close()
        print("Simulator without torch: 5 steps of 4 envs, depth through DLPack")
        return
    import torch

    env = batchsim.BatchNavEnv(split, 4, device="cpu", resolution=(16, 16))
    obs, _ = env.reset(seed=0)
    for step_actions in actions:
        obs, reward, *_ = env.step(torch.from_numpy(step_actions))
    assert obs["depth"].shape == (4, 1, 16, 16) and torch.isfinite(reward).all()
    env.close()
    print("BatchNavEnv: 5 steps of 4 envs")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--wheel-dir", default="dist")
    parser.add_argument("--venv", default="/tmp/bs-wheel-venv")
    parser.add_argument("--inside", type=Path, help=argparse.SUPPRESS)
    parser.add_argument("--source", type=Path, help=argparse.SUPPRESS)
    parser.add_argument(
        "--without-torch",
        action="store_true",
        help="install no torch (none at hand for this Python): Simulator steps, no notebook "
        "or training update; checks that batchsim imports without torch",
    )
    args = parser.parse_args()
    if args.inside:
        check_inside(args.inside, args.source, with_torch=not args.without_torch)
    else:
        drive(args)


if __name__ == "__main__":
    main()
