"""Rollout inference: the eager act() and its CUDA-graph replay (GraphedAct) agree, the replay
sees the optimizer's in-place parameter updates, and capture leaves the random stream alone."""

import pytest
import torch

from batchsim.env import POINTGOAL
from batchsim.train.acting import Actor, GraphedAct, act, sample
from batchsim.train.models import Policy
from batchsim.train.ppo import PPOSettings

N = 64


def inputs(device, n=N, seed=0):
    generator = torch.Generator().manual_seed(seed)
    obs = {
        "depth": (torch.rand(n, 1, 32, 32, generator=generator) * 12).to(device),
        POINTGOAL: (torch.rand(n, 2, generator=generator) * 5).to(device),
    }
    previous = torch.randint(0, 5, (n,), generator=generator).to(device)
    state = torch.randn(4, n, 64, generator=generator).to(device)
    masks = (torch.rand(1, n, generator=generator) > 0.2).float().to(device)
    return obs, previous, state, masks


def small_policy(device):
    torch.manual_seed(0)
    return Policy("simple_cnn", 1, hidden=64, layers=2, rnn="lstm").to(device)


def test_an_actor_on_the_cpu_acts_eagerly_as_act_does():
    policy, settings = small_policy("cpu"), PPOSettings()
    actor = Actor(policy, settings, graphs=True)
    torch.manual_seed(5)
    got = actor(*inputs("cpu"))
    torch.manual_seed(5)
    want = act(policy, settings, *inputs("cpu"))
    assert actor.graphed is None
    for g, w in zip(got, want, strict=True):
        assert torch.equal(g, w)
    action, log_prob, value, state = got
    assert action.shape == (N,) and set(action.tolist()) <= {0, 1, 2, 3}
    assert (log_prob <= 0).all() and value.shape == (N,) and state.shape == (4, N, 64)


def test_sample_draws_from_the_softmax():
    torch.manual_seed(0)
    logits = torch.tensor([0.0, 1.0, -1.0, 2.0]).repeat(200_000, 1)
    action, log_prob = sample(logits)
    frequency = torch.bincount(action, minlength=4).float() / len(action)
    # the standard error of each frequency is at most 0.0011: 0.005 is 4.5 of them
    torch.testing.assert_close(frequency, torch.softmax(logits[0], 0), atol=0.005, rtol=0)
    torch.testing.assert_close(log_prob, torch.log_softmax(logits[0], 0)[action])


@pytest.mark.skipif(not torch.cuda.is_available(), reason="needs a CUDA GPU")
@pytest.mark.parametrize("autocast_dtype", [None, torch.bfloat16])
def test_the_graph_replays_act_and_sees_parameter_updates(autocast_dtype):
    device = torch.device("cuda")
    policy, settings = small_policy(device), PPOSettings(autocast_dtype=autocast_dtype)
    before = torch.cuda.get_rng_state(device)
    graphed = GraphedAct(policy, settings, *inputs(device))
    assert torch.equal(torch.cuda.get_rng_state(device), before)  # capture draws nothing

    fresh = inputs(device, seed=1)  # other values than the capture's
    _, _, value, state = graphed(*fresh)
    _, _, want_value, want_state = act(policy, settings, *fresh)
    tolerance = 1e-5 if autocast_dtype is None else 2e-2  # bf16: 8 bits of mantissa
    torch.testing.assert_close(value, want_value, atol=tolerance, rtol=tolerance)
    torch.testing.assert_close(state.float(), want_state.float(), atol=tolerance, rtol=tolerance)

    with torch.no_grad():
        policy.critic.bias += 1.0  # as an optimizer steps: in place
    _, _, moved, _ = graphed(*fresh)
    torch.testing.assert_close(moved, value + 1.0, atol=tolerance, rtol=tolerance)

    first, second = graphed(*fresh)[0], graphed(*fresh)[0]
    assert not torch.equal(first, second)  # each replay draws new samples
