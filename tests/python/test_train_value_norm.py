"""Value normalisation (PopArt): the running statistics against numpy, the de-normalised
predictions unchanged across a statistics step, the value loss on the normalised scale, and
the same statistics and weights on every rank under DDP (2 ranks, Gloo on the CPU)."""

from __future__ import annotations

import json
import math
import os
import socket
import subprocess
import sys

import numpy as np
import pytest

torch = pytest.importorskip("torch")

from batchsim.env import POINTGOAL  # noqa: E402
from batchsim.train.models import Policy, preprocess  # noqa: E402
from batchsim.train.ppo import PPOSettings, update  # noqa: E402
from batchsim.train.value_norm import MIN_STD, ValueNormalizer  # noqa: E402
from test_train_ppo import random_rollout  # noqa: E402


def numpy_statistics(batches: list[np.ndarray], decay: float) -> tuple[float, float]:
    """The debiased exponential moving averages of each batch's mean and mean square."""
    first = second = weight = 0.0
    for batch in batches:
        first = decay * first + (1 - decay) * batch.mean()
        second = decay * second + (1 - decay) * (batch**2).mean()
        weight = decay * weight + (1 - decay)
    mean = first / weight
    return mean, math.sqrt(max(second / weight - mean**2, MIN_STD**2))


@pytest.mark.parametrize("decay", [0.5, 0.99])
def test_running_statistics_match_numpy(decay):
    rng = np.random.default_rng(0)
    norm = ValueNormalizer(decay)
    assert float(norm.mean) == 0.0 and float(norm.std) == 1.0  # identity before any data
    batches = []
    for step in range(6):  # moving returns: the mean drifts, the spread grows
        batch = rng.normal(3.0 * step - 2.0, 1.0 + step, size=(8, 5)).astype(np.float32)
        batches.append(batch.astype(np.float64))
        norm.update(torch.from_numpy(batch))
        mean, std = numpy_statistics(batches, decay)
        assert float(norm.mean) == pytest.approx(mean, rel=1e-6, abs=1e-6)
        assert float(norm.std) == pytest.approx(std, rel=1e-6)
    values = torch.randn(7)
    torch.testing.assert_close(norm.denormalize(norm.normalize(values)), values)


def test_the_first_batch_gives_its_own_moments_and_a_constant_one_the_floor():
    norm = ValueNormalizer(0.99)
    norm.update(torch.tensor([1.0, 3.0, 5.0, 7.0]))
    assert float(norm.mean) == pytest.approx(4.0)  # debiased: not 0.01 * 4
    assert float(norm.std) == pytest.approx(math.sqrt(5.0), rel=1e-6)
    constant = ValueNormalizer(0.99)
    constant.update(torch.full((10,), -0.01))
    assert float(constant.std) == pytest.approx(MIN_STD)


def test_a_statistics_step_leaves_the_de_normalised_prediction_unchanged():
    """PopArt's invariant on a policy: the same values before and after its critic's
    statistics move by a lot (shift and scale), to float tolerance."""
    torch.manual_seed(0)
    policy = Policy("simple_cnn", 1, hidden=32, layers=1, rnn="gru", value_normalization=True)
    inputs = (
        torch.rand(12, 1, 16, 16),
        torch.rand(12, 2) + 0.5,
        torch.randint(0, 5, (12,)),
        policy.initial_state(4, "cpu"),
        torch.ones(3, 4),
    )
    before = policy(*inputs).values
    for returns in (torch.randn(64) * 20 + 15, torch.randn(64) * 0.1 - 3):
        old_mean = float(policy.value_norm.mean)
        policy.value_norm.update(returns, policy.critic)
        assert abs(float(policy.value_norm.mean) - old_mean) > 1.0  # the statistics moved
        torch.testing.assert_close(policy(*inputs).values, before, rtol=1e-5, atol=1e-5)
    normalised = policy.critic(torch.zeros(1, 32)).squeeze()  # the raw output: another scale
    assert not torch.allclose(policy.value_norm.denormalize(normalised), normalised)


def tiny_update(value_normalization: bool, reward_scale: float):
    """One full-batch update at learning rate 0 on returns of the given scale."""
    torch.manual_seed(3)
    steps, n = 4, 6
    policy = Policy(
        "simple_cnn", 1, hidden=16, layers=1, rnn="gru", value_normalization=value_normalization
    )
    storage = random_rollout(steps, n, size=16)
    storage.rewards.copy_(reward_scale * (torch.rand(steps, n) + 0.5))
    storage.compute_returns(torch.zeros(n), gamma=0.0, lam=0.0)
    settings = PPOSettings(minibatches=1, entropy_coef=0.0)
    optimizer = torch.optim.SGD(policy.parameters(), lr=0.0)
    return policy, storage, update(policy, optimizer, storage, settings)


def test_the_update_learns_normalised_returns():
    policy, storage, stats = tiny_update(True, reward_scale=100.0)
    returns = storage.returns.flatten().double().numpy()
    mean, std = numpy_statistics([returns], 0.99)
    assert stats["value_norm_mean"] == pytest.approx(mean, rel=1e-5)
    assert stats["value_norm_std"] == pytest.approx(std, rel=1e-5)
    # The loss the update reports, recomputed from the (unchanged, lr 0) critic's output.
    obs = {k: v[: storage.steps].flatten(0, 1) for k, v in storage.obs.items()}
    with torch.no_grad():
        out = policy(
            preprocess(obs, 10.0, 0),
            obs[POINTGOAL],
            storage.previous_action[: storage.steps].flatten(),
            storage.initial_state,
            storage.masks[: storage.steps],
        )
    normalised = (out.values.double().numpy() - mean) / std
    expected = 0.5 * np.mean(((returns - mean) / std - normalised) ** 2)
    assert stats["value_loss"] == pytest.approx(expected, rel=1e-4)
    # Raw returns of ~100 give a loss of ~5,000; normalised, the untrained critic's output
    # (kept by the rescale: ~0 on the returns' scale) is ~mean / std = 3.5 std off.
    _, _, raw = tiny_update(False, reward_scale=100.0)
    assert raw["value_loss"] > 1000.0 and "value_norm_mean" not in raw
    assert stats["value_loss"] < raw["value_loss"] / 100


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


# One rank: the same policy (DDP broadcasts rank 0's weights anyway), its own rollout, an
# update through DDP with value normalisation and both auxiliary heads; dumps the result.
RANK_SCRIPT = r"""
import json, sys, torch, torch.distributed as dist
from batchsim.train import distributed
from batchsim.train.models import Policy
from batchsim.train.ppo import PPOSettings, update
sys.path.insert(0, sys.argv[2])
from test_train_ppo import random_rollout
rank, world = distributed.rank_and_world("cpu")
torch.manual_seed(0)
policy = Policy("simple_cnn", 1, hidden=16, layers=1, rnn="gru", cpca_steps=2,
                inverse_dynamics=True, temporal_distance=True, value_normalization=True)
wrapped = distributed.wrap(policy, torch.device("cpu"))
torch.manual_seed(10 + rank)
storage = random_rollout(4, 6, size=16)
storage.masks[2, 1] = 0
storage.rewards.copy_((rank + 1) * 5.0 * torch.rand(4, 6))
storage.compute_returns(torch.zeros(6), gamma=0.9, lam=0.9)
optimizer = torch.optim.Adam(policy.parameters(), lr=1e-3)
settings = PPOSettings(minibatches=2, inverse_dynamics_coef=0.1, temporal_distance_coef=0.1)
stats = update(wrapped, optimizer, storage, settings)
json.dump({"returns": storage.returns.flatten().tolist(), "stats": stats,
           "weights": [p.detach().flatten().tolist() for p in policy.parameters()],
           "mean": float(policy.value_norm.mean), "std": float(policy.value_norm.std)},
          open(sys.argv[1], "w"))
distributed.shutdown()
"""


def test_under_ddp_every_rank_has_the_statistics_of_all_ranks_returns(tmp_path):
    script = tmp_path / "rank.py"
    script.write_text(RANK_SCRIPT)
    tests = os.path.dirname(os.path.abspath(__file__))
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(p for p in sys.path if p)}
    env |= {"WORLD_SIZE": "2", "MASTER_ADDR": "127.0.0.1", "MASTER_PORT": str(free_port())}
    ranks = [
        subprocess.Popen(
            [sys.executable, str(script), str(tmp_path / f"rank{r}.json"), tests],
            env=env | {"RANK": str(r), "LOCAL_RANK": str(r)},
        )
        for r in range(2)
    ]
    assert [p.wait(timeout=120) for p in ranks] == [0, 0]
    out = [json.loads((tmp_path / f"rank{r}.json").read_text()) for r in range(2)]
    union = np.concatenate([np.asarray(o["returns"]) for o in out])
    mean, std = numpy_statistics([union], 0.99)
    assert not np.allclose(out[0]["returns"], out[1]["returns"])  # the ranks saw other data
    for o in out:
        assert o["mean"] == pytest.approx(mean, rel=1e-5)
        assert o["std"] == pytest.approx(std, rel=1e-5)
        assert {"id_loss", "td_loss", "cpca_loss"} <= set(o["stats"])
    for a, b in zip(out[0]["weights"], out[1]["weights"], strict=True):
        assert a == b  # the rescaled critic and the averaged step: the same on both ranks


@pytest.mark.skipif(not torch.cuda.is_available(), reason="needs a CUDA GPU")
def test_the_rollouts_cuda_graph_reads_the_statistics_in_place():
    from batchsim.train.acting import GraphedAct, act
    from test_train_acting import inputs

    device = torch.device("cuda")
    torch.manual_seed(0)
    policy = Policy("simple_cnn", 1, hidden=64, layers=2, rnn="lstm", value_normalization=True)
    policy, settings = policy.to(device), PPOSettings()
    graphed = GraphedAct(policy, settings, *inputs(device))
    fresh = inputs(device, seed=1)
    value = graphed(*fresh)[2]
    policy.value_norm.update(torch.randn(256, device=device) * 10 + 20, policy.critic)
    torch.testing.assert_close(graphed(*fresh)[2], value, atol=1e-4, rtol=1e-5)  # PopArt
    with torch.no_grad():
        policy.value_norm.mean += 1.0  # the statistics alone move: so do the replayed values
    torch.testing.assert_close(graphed(*fresh)[2], act(policy, settings, *fresh)[2])
    torch.testing.assert_close(graphed(*fresh)[2], value + 1.0, atol=1e-4, rtol=1e-5)
