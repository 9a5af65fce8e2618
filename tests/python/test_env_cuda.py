"""BatchNavEnv on cuda:0 (GPU machine only): CUDA tensors, the pipelined API, and that no
step's results are read while the GPU still writes them. Every observation is cloned on
the current stream the moment step() returns; with correct stream ordering each clone
equals what a CPU-export twin (same seed, same actions) computed for that step."""

from __future__ import annotations

import numpy as np
import pytest

torch = pytest.importorskip("torch")
pytest.importorskip("gymnasium")

import batchsim  # noqa: E402
from batchsim.env import POINTGOAL  # noqa: E402

N, STEPS = 64, 40
FLAGS = ("reward", "terminated", "truncated")


@pytest.fixture(scope="module")
def dataset(procgen_dataset):
    root, _ = procgen_dataset
    return root / "pointnav" / "train" / "train.json.gz"


def actions(steps: int, n: int) -> np.ndarray:
    return np.random.default_rng(7).choice(4, (steps, n), p=[0.02, 0.68, 0.15, 0.15])


def trajectory(env, plan: np.ndarray) -> list[dict[str, torch.Tensor]]:
    """Clones of every step's outputs, taken on the current stream as soon as step() returns."""
    obs, _ = env.reset(seed=11)
    out = []
    for step_actions in plan:
        obs, reward, terminated, truncated, _ = env.step(torch.from_numpy(step_actions))
        out.append(
            {
                **{k: v.clone() for k, v in obs.items()},
                "reward": reward.clone(),
                "done": (terminated | truncated).clone(),
            }
        )
    return [{k: v.cpu() for k, v in step.items()} for step in out]


def assert_same_steps(gpu, cpu) -> None:
    for t, (a, b) in enumerate(zip(gpu, cpu, strict=True)):
        torch.testing.assert_close(a["reward"], b["reward"], msg=f"step {t}")
        assert torch.equal(a["done"], b["done"]), f"step {t}"
        torch.testing.assert_close(a[POINTGOAL], b[POINTGOAL], msg=f"step {t}")
        close = (a["depth"] - b["depth"]).abs() <= 1e-3
        assert close.float().mean() >= 0.999, f"step {t}: depth agrees on {close.float().mean()}"
        if "rgb" in a:
            assert (a["rgb"].int() - b["rgb"].int()).abs().float().mean() <= 1.0, f"step {t}"


def test_cuda_env_steps_are_ordered(dataset, cuda_context):
    plan = actions(STEPS, N)
    options = dict(sensors=("depth", "rgb"), resolution=(32, 32), seed=3, scenes_resident=1)
    gpu_env = batchsim.BatchNavEnv(dataset, N, context=cuda_context, **options)
    assert gpu_env.device.type == "cuda"
    obs, _ = gpu_env.reset(seed=11)
    assert all(v.is_cuda for v in obs.values())
    gpu = trajectory(gpu_env, plan)
    cpu = trajectory(batchsim.BatchNavEnv(dataset, N, device="cpu", **options), plan)
    assert_same_steps(gpu, cpu)
    gpu_env.close()


def test_cuda_env_on_a_side_stream(dataset, cuda_context):
    plan = actions(10, N)
    options = dict(resolution=(32, 32), seed=4)
    env = batchsim.BatchNavEnv(dataset, N, context=cuda_context, **options)
    side = torch.cuda.Stream()
    with torch.cuda.stream(side):  # results are ordered on the stream current at step()
        gpu = trajectory(env, plan)
    cpu = trajectory(batchsim.BatchNavEnv(dataset, N, device="cpu", **options), plan)
    assert_same_steps(gpu, cpu)
    env.close()


def test_cuda_halves_pipelined(dataset, cuda_context):
    halves = batchsim.make_env_halves(dataset, N, context=cuda_context, resolution=(32, 32))
    twins = batchsim.make_env_halves(dataset, N, device="cpu", resolution=(32, 32))
    plan = actions(12, N // 2)
    obs = [env.reset(seed=0)[0] for env in halves]
    expected = [env.reset(seed=0)[0] for env in twins]
    seen = {0: [], 1: []}
    halves[0].step_async(torch.from_numpy(plan[0]).cuda())
    for t in range(1, len(plan)):
        # Half 1 steps while half 0's step runs in the background, then half 0 is collected.
        halves[1].step_async(torch.from_numpy(plan[t - 1]).cuda())
        obs[0], *_ = halves[0].step_wait()
        seen[0].append(obs[0]["depth"].clone())
        obs[1], *_ = halves[1].step_wait()
        seen[1].append(obs[1]["depth"].clone())
        halves[0].step_async(torch.from_numpy(plan[t]).cuda())
    halves[0].step_wait()
    for half in (0, 1):
        for t, depth in enumerate(seen[half]):
            reference, *_ = twins[half].step(plan[t])
            close = (depth.cpu() - reference["depth"]).abs() <= 1e-3
            assert close.float().mean() >= 0.999, f"half {half} step {t}"
    for env in (*halves, *twins):
        env.close()
    del expected


def test_cuda_actions_step_like_the_same_actions_as_numpy(dataset, cuda_context):
    # CUDA actions reach the step through pinned memory after an event, in any integer dtype:
    # every result is bit-identical to a twin stepped with the same actions as numpy.
    options = dict(resolution=(32, 32), seed=5, scenes_resident=1)
    device_env = batchsim.BatchNavEnv(dataset, N, context=cuda_context, **options)
    host_env = batchsim.BatchNavEnv(dataset, N, device="cuda:0", **options)
    device_env.reset(seed=2)
    host_env.reset(seed=2)
    dtypes = (torch.int64, torch.int32, torch.uint8)
    for t, step_actions in enumerate(actions(STEPS, N)):
        on_gpu = torch.from_numpy(step_actions).to("cuda", dtypes[t % len(dtypes)])
        obs, *flags, _ = device_env.step(on_gpu)
        expected_obs, *expected_flags, _ = host_env.step(step_actions)
        np.testing.assert_array_equal(device_env.sim.actions, step_actions)
        for key in obs:
            assert torch.equal(obs[key], expected_obs[key]), f"step {t}: {key}"
        for name, a, b in zip(FLAGS, flags, expected_flags, strict=True):
            assert torch.equal(a, b), f"step {t}: {name}"
    for env in (device_env, host_env):
        env.close()


def test_cuda_actions_do_not_hold_up_step_async(dataset, cuda_context):
    env = batchsim.BatchNavEnv(dataset, N, context=cuda_context, resolution=(16, 16))
    env.reset(seed=0)
    torch.cuda._sleep(2_000_000_000)  # about a second of GPU work before the actions exist
    queued = torch.ones(N, dtype=torch.int64, device="cuda")
    env.step_async(queued)
    assert not torch.cuda.current_stream().query()  # returned with the GPU still busy
    env.step_wait()
    np.testing.assert_array_equal(env.sim.actions, np.ones(N))
    assert env.sim.last_action_wait_seconds > 0
    env.close()


def test_cuda_actions_on_a_given_stream(dataset, cuda_context):
    side = torch.cuda.Stream()
    sim = batchsim.Simulator(dataset, N, context=cuda_context, resolution=(16, 16), seed=1)
    twin = batchsim.Simulator(dataset, N, device="cpu", resolution=(16, 16), seed=1)
    sim.reset()
    twin.reset()
    for step_actions in actions(10, N):
        with torch.cuda.stream(side):
            on_gpu = torch.from_numpy(step_actions).cuda()
        sim.step(on_gpu, stream=side.cuda_stream)
        twin.step(step_actions)
        np.testing.assert_array_equal(sim.actions, twin.actions)
        np.testing.assert_array_equal(sim.reward, twin.reward)
        np.testing.assert_array_equal(sim.pointgoal, twin.pointgoal)
    sim.close()
    twin.close()


def test_cuda_actions_out_of_range_raise_at_step_wait(dataset, cuda_context):
    env = batchsim.BatchNavEnv(dataset, 4, context=cuda_context, resolution=(16, 16))
    env.reset(seed=0)
    env.step_async(torch.tensor([1, 1, 9, 1], device="cuda"))  # values unseen until the event
    with pytest.raises(ValueError, match=r"actions\[2\] is 9; expected 0 \(STOP\), 1 "):
        env.step_wait()
    with pytest.raises(ValueError, match=r"actions\[0\] is -1; expected"):
        env.step(torch.tensor([-1, 1, 1, 1], dtype=torch.int8, device="cuda"))
    with pytest.raises(ValueError, match=r"expected an integer dtype .*got torch.float32"):
        env.step_async(torch.ones(4, device="cuda"))  # metadata: raised at once
    assert not env.sim.stepping
    env.step(torch.full((4,), 2, dtype=torch.int32, device="cuda"))  # steps on after errors
    np.testing.assert_array_equal(env.sim.actions, [2, 2, 2, 2])
    env.close()
