"""A closed Simulator or BatchNavEnv answers every call with one error naming the object and
the call (batchsim.ClosedError; the env's is gymnasium's ClosedEnvironmentError too), and a
close() from another thread waits for the step in flight: the step ends or raises that same
error, never an AttributeError, KeyError or a crash (issue 40, part C)."""

from __future__ import annotations

import threading
import time

import gymnasium
import pytest

import batchsim
from batchsim.env import EnvClosedError
from batchsim.errors import ClosedError

ACTIONS = [1, 1, 2, 3]
RACES = 25  # closes racing a stepping thread, each at another moment of its steps


def _simulator(procgen_dataset, cpu_context) -> batchsim.Simulator:
    split = procgen_dataset[0] / "pointnav" / "train"
    sim = batchsim.Simulator(split, 4, context=cpu_context, sensors=("depth",), resolution=8)
    sim.reset(seed=0)
    return sim


def _refused(call, error: type[Exception], message: str) -> None:
    with pytest.raises(error) as caught:
        call()
    assert str(caught.value) == message


def _race(make) -> list[BaseException]:
    """Steps on a thread while this one closes, RACES times; what the steps raised.
    make() returns a fresh object's (step, close)."""
    raised: list[BaseException] = []

    def stepping(stepper) -> None:
        try:
            for _ in range(10_000):
                stepper()
        except BaseException as exc:  # the test inspects every escape
            raised.append(exc)

    for race in range(RACES):
        stepper, closer = make()
        thread = threading.Thread(target=stepping, args=(stepper,), daemon=True)
        thread.start()
        time.sleep(0.001 * (race % 5))
        closer()
        thread.join(timeout=60)
        assert not thread.is_alive(), "a step hung after close()"
    return raised


def test_simulator_after_close_names_the_call(procgen_dataset, cpu_context) -> None:
    sim = _simulator(procgen_dataset, cpu_context)
    sim.close()
    for name, call in {
        "step()": lambda: sim.step(ACTIONS),
        "step_async()": lambda: sim.step_async(ACTIONS),
        "step_wait()": sim.step_wait,
        "reset()": sim.reset,
        "reset_envs()": lambda: sim.reset_envs([True] * 4),
        "stats()": sim.stats,
        "set_max_episode_geodesic()": lambda: sim.set_max_episode_geodesic(3.0),
        "depth": lambda: sim.depth,
        "renderer": lambda: sim.renderer,
    }.items():
        _refused(call, ClosedError, f"Simulator is closed: {name} after close()")
    with pytest.raises(ClosedError, match=r"^Simulator is closed: \.reward after close\(\)$"):
        _ = sim.reward
    sim.close()  # a second close does nothing
    assert sim.closed and repr(sim) == "Simulator(closed, num_envs=4)"


def test_simulator_close_racing_step(procgen_dataset, cpu_context) -> None:
    def make():
        sim = _simulator(procgen_dataset, cpu_context)
        return (lambda: sim.step(ACTIONS) or sim.depth), sim.close

    raised = _race(make)
    assert raised and all(type(exc) is ClosedError for exc in raised), raised


def test_close_waits_for_an_asynchronous_step(procgen_dataset, cpu_context) -> None:
    sim = _simulator(procgen_dataset, cpu_context)
    sim.step_async(ACTIONS)
    closer = threading.Thread(target=sim.close)
    closer.start()
    closer.join(timeout=60)
    assert sim.closed
    _refused(sim.step_wait, ClosedError, "Simulator is closed: step_wait() after close()")


def test_env_after_close_raises_gymnasiums_closed_error(small_envs) -> None:
    env = small_envs()
    env.reset(seed=0)
    env.close()
    for name, call in {
        "step()": lambda: env.step(ACTIONS),
        "step_async()": lambda: env.step_async(ACTIONS),
        "step_wait()": env.step_wait,
        "reset()": env.reset,
        "render()": env.render,
        "max_episode_geodesic": lambda: env.max_episode_geodesic,
    }.items():
        _refused(call, EnvClosedError, f"BatchNavEnv is closed: {name} after close()")
    assert issubclass(EnvClosedError, gymnasium.error.ClosedEnvironmentError)
    assert issubclass(EnvClosedError, batchsim.ClosedError)
    env.close()


def test_env_close_racing_step(small_envs) -> None:
    def make():
        env = small_envs()
        env.reset(seed=0)
        return (lambda: env.step(ACTIONS)), env.close

    raised = _race(make)
    assert raised and all(type(exc) is EnvClosedError for exc in raised), raised
