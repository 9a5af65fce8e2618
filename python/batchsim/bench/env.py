"""Environment step throughput: frames/s of BatchNavEnv.step() (one frame = one environment
step, rendering included) against its own batchsim.Simulator's step(), and the Python
overhead the env adds to the C++ step.

For each batch size N, one BatchNavEnv (K resident scenes of the procedural training split,
built and cached on first use) is reset, then, for each `--actions` mode, both paths are
stepped `--warmup` times and timed over `--runs` runs of `--steps` steps, the env's runs
alternating with the Simulator's (so that drift in the machine affects both alike). Actions
are drawn beforehand with a fixed seed (2% STOP, 68% MOVE_FORWARD, 15% each turn) as a
torch tensor on the env's device, so drawing them is not timed. The modes:

- drawn: env.step() is given the drawn tensor (numpy with `--host-actions`); the Simulator
  has the actions written in place into `sim.actions` (host memory) and calls `sim.step()`.
- same: both get the same drawn tensor (`env.step(a)`, `sim.step(a)`), so both pay the same
  hand-over of device actions (numpy for both with `--host-actions`).
- policy: closed loop, as a policy would drive them: each step's actions are computed on
  the device from the current observation (the drawn row plus a term that reads the
  rendered view and is always 0), so they depend on the last step's render; both paths.

`--halves [own|shared]` adds the half-batch pipeline (`bench/env_halves.py`: two envs of N / 2,
each half's actions handed over while the other half's step is waited for; each half on a
context of its own, or both on one) as `env_halves`,
given the env's actions (closed loop per half in the policy mode), with
`halves_over_simulator`; its C++ figures are the first half's, and `gpu_renders` says how
the halves' renders fell on the GPU in the timed runs (`render_timeline`: the median
render's GPU ms and its passes', its overlap with the other half's, the GPU's idle ms
between renders; null without GPU timestamps).

`--double-buffer` adds a third path to every mode, in the same alternation: a twin Simulator
with RenderOptions.double_buffer (half the batch simulates while the GPU renders the other
half), given the Simulator's actions; reported as `simulator_double_buffer` and
`double_buffer_over_simulator`.

Every step records the wall time of the step call, the C++ wall time of that step
(`sim.last_step_seconds`: simulation, scene uploads and rendering) and the time the C++
step waited for device actions' copy (`sim.last_action_wait_seconds`); wall minus C++ is
the overhead (action checks, the hand-over to the C++ step, the info dict; waits for the GPU).

JSON: per N and mode one entry of `results`: `num_envs`, `actions` (the mode), `backend`,
`env_over_simulator` (ratio of frames/s), `overhead_below_goal` (the env's overhead under
GOAL_OVERHEAD_PCT), `stats` (the simulator's), `env_profile` (with `--profile`: the first
mode's env path under cProfile, the top functions per step), and for each path (`env`,
`simulator`): `frames_per_s` (median over runs; `min`, `max`), `step_ms`, `cxx_step_ms`,
`cxx_submit_ms` (of the C++ step, handing the renders to the GPU: `last_submit_seconds`),
`overhead_us`, `overhead_pct` (medians per step), `action_wait_us` (the step waited for
device actions), `overhead_less_wait_us` (overhead less that wait), and `spread`: [min, max]
over the runs of each run's median `step_ms`, `cxx_step_ms` and `overhead_us`.

CUDA export: each timed run ends with torch.cuda.synchronize(), so frames/s counts
finished frames; but `last_step_seconds` then covers the CPU work and the render
submission only (the GPU renders asynchronously), so the overhead is an upper bound of
Python's share. CPU export (lavapipe): the render completes inside the C++ step.
`--plot PNG` draws frames/s against N, one colour per mode.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from pathlib import Path

import numpy as np
import torch

import batchsim
from batchsim.bench import data, report
from batchsim.bench.env_halves import HalvesPipeline, render_timeline
from batchsim.env import visual_observations
from batchsim.simulator import make_context

ACTION_MIX = [0.02, 0.68, 0.15, 0.15]  # STOP, MOVE_FORWARD, TURN_LEFT, TURN_RIGHT
GOAL_OVERHEAD_PCT = 5.0
MODES = ("drawn", "same", "policy")


def draw_actions(n: int, args, device: torch.device) -> torch.Tensor:
    """[runs, steps, n] int32 actions on `device`, drawn once with a fixed seed."""
    generator = torch.Generator().manual_seed(args.seed)
    mix = torch.tensor(ACTION_MIX)
    count = args.runs * args.steps * n
    drawn = torch.multinomial(mix, count, replacement=True, generator=generator)
    return drawn.to(torch.int32).reshape(args.runs, args.steps, n).to(device)


def synchronizer(device: torch.device):
    if device.type == "cuda":
        return lambda: torch.cuda.synchronize(device)
    return lambda: None


def warm_up(step, actions, warmup: int, sync) -> None:
    for t in range(warmup):
        step(actions[t % len(actions)])
    sync()


def time_run(step, sim, actions, sync) -> dict:
    """One timed run of step(row) over the rows of actions: its seconds (synchronised at
    the end) and, per step, the wall time of step(), the C++ time of the step and the time
    the step waited for its actions."""
    run = {"wall": [], "cxx": [], "submit": [], "action_wait": []}
    started = time.perf_counter()
    for row in actions:
        before = time.perf_counter()
        step(row)
        run["wall"].append(time.perf_counter() - before)
        run["cxx"].append(sim.last_step_seconds)
        run["submit"].append(sim.last_submit_seconds)
        run["action_wait"].append(sim.last_action_wait_seconds)
    sync()
    return {"seconds": time.perf_counter() - started, **run}


def summarize(n: int, runs: list[dict]) -> dict:
    rates = [n * len(run["wall"]) / run["seconds"] for run in runs]
    wall = np.concatenate([run["wall"] for run in runs])
    cxx = np.concatenate([run["cxx"] for run in runs])
    action_wait = np.concatenate([run["action_wait"] for run in runs])
    overhead = wall - cxx
    return {
        "frames_per_s": statistics.median(rates),
        "min": min(rates),
        "max": max(rates),
        "step_ms": float(np.median(wall)) * 1e3,
        "cxx_step_ms": float(np.median(cxx)) * 1e3,
        "cxx_submit_ms": float(np.median(np.concatenate([r["submit"] for r in runs]))) * 1e3,
        "overhead_us": float(np.median(overhead)) * 1e6,
        "overhead_pct": float(np.median(overhead / wall)) * 100,
        "action_wait_us": float(np.median(action_wait)) * 1e6,
        "overhead_less_wait_us": float(np.median(overhead - action_wait)) * 1e6,
        "spread": {  # [min, max] over the runs of each run's median
            "step_ms": _spread_over_runs(runs, lambda r: r["wall"], 1e3),
            "cxx_step_ms": _spread_over_runs(runs, lambda r: r["cxx"], 1e3),
            "overhead_us": _spread_over_runs(runs, lambda r: np.subtract(r["wall"], r["cxx"]), 1e6),
        },
    }


def _spread_over_runs(runs: list[dict], times, scale: float) -> list[float]:
    """[min, max] over the runs of the median of times(run) (per-step seconds) x scale."""
    return report.spread([float(np.median(times(run))) * scale for run in runs])


def simulator_step(sim):
    def step(row: np.ndarray) -> None:
        np.copyto(sim.actions, row)
        sim.step()

    return step


def closed_loop(step, sim):
    """step(actions) driven as a policy would: each row of drawn actions plus a term read
    off the current view on its device (always 0: views are never negative), so the actions
    wait for the last step's render as a policy's output does."""
    view = next(iter(visual_observations(sim).values())).flatten(1)[:, 0]
    return lambda row: step(row + (view < 0).to(row.dtype))


def double_buffered_twin(dataset, context, sim, seed: int):
    """A Simulator like `sim` but double-buffered, reset with `seed`."""
    render = sim.render_options.replace(double_buffer=True)
    twin = batchsim.Simulator(dataset, config=sim.config, render=render, context=context)
    twin.reset(seed=seed)
    return twin


def simulator_path(sim, mode: str, drawn: torch.Tensor, host_actions: bool) -> tuple:
    """(step function, actions of each run, sim) of a Simulator in `mode`."""
    host = drawn.cpu().numpy()
    if mode == "drawn":
        return simulator_step(sim), host, sim
    if mode == "same":
        return sim.step, host if host_actions else drawn, sim
    return closed_loop(sim.step, sim), drawn, sim


def action_paths(
    env, mode: str, drawn: torch.Tensor, host_actions: bool, twin=None, halves=None
) -> dict:
    """name: (step function, actions of each run, the Simulator it steps) of the env, its
    Simulator and, unless None, the double-buffered twin and the halves' pipelines (by
    whether closed-loop), in `mode`."""
    env_actions = drawn.cpu().numpy() if host_actions and mode != "policy" else drawn
    if mode == "policy":
        env_path = (closed_loop(env.step, env.sim), drawn, env.sim)
    else:
        env_path = (env.step, env_actions, env.sim)
    paths = {"env": env_path, "simulator": simulator_path(env.sim, mode, drawn, host_actions)}
    if twin is not None:
        paths["simulator_double_buffer"] = simulator_path(twin, mode, drawn, host_actions)
    if halves is not None:
        pipeline = halves[mode == "policy"]
        paths["env_halves"] = (pipeline.step, env_actions, pipeline.sim)
    return paths


def measure(dataset, context, n: int, args) -> list[dict]:
    env = batchsim.BatchNavEnv(
        dataset,
        n,
        sensors=args.sensors,
        resolution=args.resolution,
        context=context,
        seed=args.seed,
        num_threads=args.threads,
        scenes_resident=args.scenes_resident,
        backend=args.backend,
    )
    env.reset(seed=args.seed)
    drawn = draw_actions(n, args, env.device)
    twin = (
        double_buffered_twin(dataset, context, env.sim, args.seed) if args.double_buffer else None
    )
    halves = make_halves(dataset, context, n, args) if args.halves else None
    results = [measure_mode(env, twin, halves, n, mode, drawn, args) for mode in args.actions]
    if twin is not None:
        twin.close()
    for pipeline in halves or ():
        pipeline.close()
    if args.profile:  # after the timed runs, so that it slows none of them
        step, path_actions, _ = action_paths(env, args.actions[0], drawn, args.host_actions)["env"]
        results[0]["env_profile"] = report.profile_steps(step, path_actions[0])
        synchronizer(env.device)()
    stats = env.sim.stats()
    env.close()
    return [{**result, "stats": stats} for result in results]


def make_halves(dataset, context, n: int, args) -> tuple[HalvesPipeline, HalvesPipeline]:
    """The halves' pipelines, open-loop and closed-loop, on contexts as `--halves` says
    (`context`'s device), reset with the bench's seed."""
    options = dict(sensors=args.sensors, resolution=args.resolution, seed=args.seed)
    options |= dict(num_threads=args.threads, scenes_resident=args.scenes_resident)
    options |= dict(backend=args.backend)
    options |= dict(device=context.torch_device, shared_context=args.halves == "shared")
    pipelines = tuple(HalvesPipeline(dataset, n, closed, **options) for closed in (False, True))
    for pipeline in pipelines:
        pipeline.reset(args.seed)
    return pipelines


def measure_mode(env, twin, halves, n: int, mode: str, drawn: torch.Tensor, args) -> dict:
    """The figures of every path with the actions of `mode`, runs alternated."""
    paths = action_paths(env, mode, drawn, args.host_actions, twin, halves)
    sync = synchronizer(env.device)
    syncs = {name: sync for name in paths}
    pipeline = halves[mode == "policy"] if halves is not None else None
    if pipeline is not None:  # a run ends with both halves' steps done
        syncs["env_halves"] = lambda: (pipeline.finish(), sync())
    for name, (step, path_actions, _) in paths.items():
        warm_up(step, path_actions[0], args.warmup, syncs[name])
    if pipeline is not None:
        pipeline.forget_renders()  # the timed runs' only
    timed = {name: [] for name in paths}
    for run in range(args.runs):
        for name, (step, path_actions, sim) in paths.items():
            timed[name].append(time_run(step, sim, path_actions[run], syncs[name]))
            seconds = timed[name][-1]["seconds"]
            print(
                f"  N={n} {mode} {name} run {run + 1}/{args.runs}: {seconds:.2f} s", file=sys.stderr
            )
    result = {
        "num_envs": n,
        "actions": mode,
        **{name: summarize(n, runs) for name, runs in timed.items()},
    }
    result["backend"] = env.sim.renderer.backend
    result["env_over_simulator"] = (
        result["env"]["frames_per_s"] / result["simulator"]["frames_per_s"]
    )
    result["overhead_below_goal"] = result["env"]["overhead_pct"] < GOAL_OVERHEAD_PCT
    if pipeline is not None:
        result["env_halves"]["gpu_renders"] = render_timeline(*pipeline.renders)
        result["halves_over_simulator"] = (
            result["env_halves"]["frames_per_s"] / result["simulator"]["frames_per_s"]
        )
    if twin is not None:
        result["double_buffer_over_simulator"] = (
            result["simulator_double_buffer"]["frames_per_s"] / result["simulator"]["frames_per_s"]
        )
    print(_summary(result), file=sys.stderr)
    return result


_RATIOS = {"double_buffer_over_simulator": "double-buffered", "halves_over_simulator": "halves"}


def _summary(result: dict) -> str:
    env, sim = result["env"], result["simulator"]
    ratios = "".join(
        f"; {name} / Simulator {result[key]:.3f}" for key, name in _RATIOS.items() if key in result
    )
    return (
        f"N={result['num_envs']} ({result['actions']} actions): "
        f"env {env['frames_per_s']:,.0f} frames/s "
        f"[{env['min']:,.0f}-{env['max']:,.0f}], step {env['step_ms']:.2f} ms, "
        f"Python overhead {env['overhead_us']:,.0f} us ({env['overhead_pct']:.3g}%); "
        f"Simulator {sim['frames_per_s']:,.0f} frames/s, overhead {sim['overhead_us']:,.0f} us "
        f"({sim['overhead_pct']:.3g}%); env / Simulator {result['env_over_simulator']:.3f}{ratios}"
    )


def parse_args(argv: list[str] | None, prog: str | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        prog=prog, description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--envs", type=int, nargs="+", default=[1024, 4096])
    parser.add_argument("--sensors", nargs="+", choices=["depth", "rgb"], default=["depth"])
    parser.add_argument("--resolution", type=int, default=64, help="square views, pixels")
    parser.add_argument("--device", help="'cpu', 'cuda:N'; default: CUDA on NVIDIA, else CPU")
    parser.add_argument("--threads", type=int, default=os.cpu_count() or 1, help="sim threads")
    parser.add_argument("--scenes-resident", type=int, default=4)
    parser.add_argument("--backend", choices=["auto", "raster", "compute"], default="auto")
    parser.add_argument("--steps", type=int, default=100, help="steps per timed run")
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--warmup", type=int, default=10)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument(
        "--actions",
        nargs="+",
        choices=MODES,
        default=list(MODES),
        help="how both paths get their actions (the module docstring): one result per mode",
    )
    parser.add_argument(
        "--host-actions",
        action="store_true",
        help="hand the env numpy actions (no device-to-host copy, which waits for the GPU)",
    )
    parser.add_argument(
        "--double-buffer",
        action="store_true",
        help="also time a double-buffered Simulator (simulator_double_buffer in the JSON)",
    )
    parser.add_argument(
        "--halves",
        nargs="?",
        const="shared",
        choices=["own", "shared"],
        help="also time the half-batch pipeline (env_halves in the JSON; N must be even), each "
        "half on its own context (own) or both on one (shared, as make_env_halves makes them)",
    )
    parser.add_argument(
        "--profile",
        action="store_true",
        help="add env_profile: one more env run under cProfile, the top functions per step",
    )
    parser.add_argument("--data", type=Path, help=data.DATA_HELP)
    return report.parse_sweep_args(parser, argv)


def main(argv: list[str] | None = None, prog: str | None = None) -> int:
    args = parse_args(argv, prog)
    folder, manifest = data.ensure(args.data)
    dataset = batchsim.datasets.load_pointnav(folder / "pointnav" / "train")
    context = make_context(args.device)
    results = [result for n in args.envs for result in measure(dataset, context, n, args)]
    record = {
        "benchmark": "env",
        **report.header(args, context),
        "cores": os.cpu_count(),
        "device": context.device_info,
        "export": context.torch_device,
        "dataset": data.describe(folder, manifest),
        "sensors": args.sensors,
        "resolution": args.resolution,
        "threads": args.threads,
        "scenes_resident": args.scenes_resident,
        "steps_per_run": args.steps,
        "runs": args.runs,
        "warmup": args.warmup,
        "action_mix": ACTION_MIX,
        "actions": args.actions,
        "host_actions": args.host_actions,
        "double_buffer": args.double_buffer,
        "halves": args.halves,
        "goal_overhead_pct": GOAL_OVERHEAD_PCT,
        "results": results,
    }
    report.emit(record, args.out, args.plot)
    return 0
