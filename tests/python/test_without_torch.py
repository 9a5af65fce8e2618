"""torch is an optional extra: `import batchsim` and the core (Simulator, SensorNoise, the
gymnasium id's registration, the CLI's help) work in a process where torch cannot be
imported (a sys.meta_path finder refuses it), and BatchNavEnv says what to install."""

from __future__ import annotations

import subprocess
import sys
import textwrap

import pytest

# A finder ahead of every other that refuses torch, as an environment without it would.
HIDE_TORCH = textwrap.dedent("""
    import sys

    class NoTorch:
        def find_spec(self, name, path=None, target=None):
            if name == "torch" or name.startswith("torch."):
                raise ModuleNotFoundError(f"No module named {name!r}", name=name)
            return None

    sys.meta_path.insert(0, NoTorch())
""")


def run_without_torch(code: str) -> subprocess.CompletedProcess:
    script = HIDE_TORCH + textwrap.dedent(code)
    return subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, timeout=300
    )


def test_the_blocker_hides_torch():
    result = run_without_torch("import torch")
    assert result.returncode != 0 and "No module named 'torch'" in result.stderr


def test_the_core_works_without_torch(procgen_dataset):
    split = procgen_dataset[0] / "pointnav" / "train"
    result = run_without_torch(f"""
        import numpy as np
        import gymnasium
        import batchsim

        noise = batchsim.SensorNoise(depth_noise=0.1)  # a config value: no torch needed
        assert noise.active
        assert "batchsim/PointNav-v0" in gymnasium.registry
        sim = batchsim.Simulator({str(split)!r}, 2, device="cpu", resolution=(8, 8))
        sim.reset(seed=0)
        sim.step(np.array([1, 2]))
        depth = np.from_dlpack(sim.depth)
        assert depth.shape == (2, 1, 8, 8) and np.isfinite(depth).all(), depth.shape
        assert "torch" not in sys.modules
        print("core ok")
    """)
    assert result.returncode == 0, result.stderr
    assert "core ok" in result.stdout


def test_batchnavenv_names_what_to_install():
    result = run_without_torch("""
        import batchsim
        try:
            batchsim.BatchNavEnv
        except ModuleNotFoundError as exc:
            print(exc)
    """)
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == (
        "batchsim.BatchNavEnv needs PyTorch, which is not installed: "
        "pip install 'batchsim[torch]' (or torch itself)"
    )


@pytest.mark.parametrize("args", [["--help"], ["doctor", "--help"]])
def test_the_cli_help_works_without_torch(args):
    result = run_without_torch(f"""
        import sys
        from batchsim.cli import main
        sys.argv = ["batchsim", *{args!r}]
        try:
            main()
        except SystemExit as exit:
            assert exit.code in (0, None), exit.code
    """)
    assert result.returncode == 0, result.stderr
    assert "usage: batchsim" in result.stdout
