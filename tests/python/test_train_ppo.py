"""The trainer's pieces on synthetic data: preprocessing, both policies' shapes and state
resets, LAMB's trust ratio, the learning-rate recipe, GAE against a plain loop, and a PPO
update that raises the probability of rewarded actions."""

from __future__ import annotations

import math

import pytest

torch = pytest.importorskip("torch")

from batchsim.env import POINTGOAL  # noqa: E402
from batchsim.train.lamb import Lamb  # noqa: E402
from batchsim.train.models import Policy, preprocess  # noqa: E402
from batchsim.train.ppo import PPOSettings, update  # noqa: E402
from batchsim.train.schedule import lr_factor, scaled_lr  # noqa: E402
from batchsim.train.storage import RolloutStorage  # noqa: E402


def test_preprocess_clamps_scales_and_bins_depth():
    depth = torch.tensor([0.0, 2.5, 9.99, 40.0]).view(1, 1, 2, 2)
    x = preprocess({"depth": depth}, max_depth=10.0, depth_bins=4)
    assert x.shape == (1, 5, 2, 2)
    torch.testing.assert_close(x[0, 0].flatten(), torch.tensor([0.0, 0.25, 0.999, 1.0]))
    assert x[0, 1:].sum(0).eq(1).all()  # one bin per pixel
    assert x[0, 1:].argmax(0).flatten().tolist() == [0, 1, 3, 3]


@pytest.mark.parametrize(
    ("encoder", "rnn", "layers"), [("se_resnet9", "lstm", 2), ("simple_cnn", "gru", 1)]
)
def test_policies_run_sequences_and_reset_state(encoder, rnn, layers):
    torch.manual_seed(0)
    policy = Policy(encoder, in_channels=1, hidden=64, layers=layers, rnn=rnn)
    steps, n = 3, 5
    visual = torch.rand(steps * n, 1, 64, 64)
    goal = torch.rand(steps * n, 2)
    previous = torch.randint(0, 5, (steps * n,))
    state = torch.randn(policy.state_layers, n, 64)
    masks = torch.ones(steps, n)
    logits, values, final, _ = policy(visual, goal, previous, state, masks)
    assert logits.shape == (steps * n, 4) and values.shape == (steps * n,)
    assert final.shape == state.shape and torch.isfinite(logits).all()
    # A zero mask at step 0 makes the outputs independent of the incoming state.
    masks[0] = 0
    a = policy(visual, goal, previous, state, masks)[0]
    b = policy(visual, goal, previous, torch.randn_like(state), masks)[0]
    torch.testing.assert_close(a, b)


def test_lamb_scales_each_update_by_the_trust_ratio():
    weight = torch.nn.Parameter(torch.full((4,), 2.0))
    optimizer = Lamb([weight], lr=0.1)
    weight.grad = torch.tensor([1.0, -1.0, 1.0, -1.0])
    optimizer.step()
    # Adam's first update is sign(grad) (norm 2); ||w|| = 4: the step is 0.1 * 2 * sign.
    torch.testing.assert_close(weight.detach(), torch.tensor([1.8, 2.2, 1.8, 2.2]))


@pytest.mark.parametrize("weight_decay", [0.0, 0.01])
def test_lamb_foreach_steps_match_the_per_parameter_reference(weight_decay):
    """Both groups, a zero-initialised bias (trust 1), a parameter without a gradient, five
    steps of fresh random gradients: the multi-tensor step equals the reference."""
    from batchsim.train.lamb import lamb_groups

    torch.manual_seed(4)
    models = [Policy("se_resnet9", 1, hidden=32, layers=1, rnn="lstm") for _ in range(2)]
    models[1].load_state_dict(models[0].state_dict())
    initial = {k: v.clone() for k, v in models[0].state_dict().items()}
    optimizers = [
        Lamb(lamb_groups(m, ("actor", "critic")), lr=0.01, weight_decay=weight_decay, foreach=f)
        for m, f in zip(models, (False, True), strict=True)
    ]
    for _ in range(5):
        grads = [torch.randn_like(p) for p in models[0].parameters()]
        for model, optimizer in zip(models, optimizers, strict=True):
            for p, g in zip(model.parameters(), grads, strict=True):
                p.grad = g.clone()
            model.goal.weight.grad = None  # skipped by both
            optimizer.step()
    reference, fused = (dict(m.named_parameters()) for m in models)
    assert not torch.equal(reference["actor.weight"], initial["actor.weight"])
    assert torch.equal(reference["goal.weight"], initial["goal.weight"])  # had no gradient
    for name, value in reference.items():
        # rtol 1e-5: the norms' reductions run in a different order in the two paths.
        torch.testing.assert_close(fused[name], value, rtol=1e-5, atol=1e-7, msg=name)


def test_lamb_groups_leave_heads_and_biases_to_plain_adam():
    from batchsim.train.lamb import lamb_groups

    policy = Policy("simple_cnn", 1, hidden=16, layers=1, rnn="gru")
    scaled, plain = lamb_groups(policy, ("actor", "critic"))
    assert plain["trust"] is False
    assert any(p is policy.actor.weight for p in plain["params"])
    assert any(p is policy.actor.bias for p in plain["params"])
    assert any(p is policy.rnn.weight_ih_l0 for p in scaled["params"])
    # The actor starts with gain 0.01: plain Adam moves it by lr per element, as with Adam.
    optimizer = Lamb([scaled, plain], lr=0.1)
    before = policy.actor.weight.detach().clone()
    for p in policy.parameters():
        p.grad = torch.ones_like(p)
    optimizer.step()
    torch.testing.assert_close(policy.actor.weight.detach(), before - 0.1)


def test_learning_rate_recipe():
    assert scaled_lr(2.5e-4, 1024) == pytest.approx(5e-4)
    # One frame per update: the schedule in frames reads as the old one in updates.
    assert lr_factor(0, 100, 10, 1) == pytest.approx(0.1)
    assert lr_factor(9, 100, 10, 1) == pytest.approx(1.0)
    assert lr_factor(10, 100, 10, 1) == pytest.approx(1.0)
    assert lr_factor(55, 100, 10, 1) == pytest.approx(0.5)
    assert lr_factor(100, 100, 10, 1) == pytest.approx(0.0, abs=1e-12)


def test_gae_matches_a_plain_loop():
    torch.manual_seed(1)
    storage = RolloutStorage(4, 3, {}, (1, 3, 8), "cpu")
    storage.rewards.copy_(torch.randn(4, 3))
    storage.values[:4].copy_(torch.randn(4, 3))
    storage.dones.copy_(torch.tensor([[0, 0, 1], [0, 1, 0], [0, 0, 0], [1, 0, 0]]).float())
    last = torch.randn(3)
    storage.compute_returns(last, gamma=0.9, lam=0.8)
    values = torch.cat([storage.values[:4], last[None]])
    for env in range(3):
        running = 0.0
        for t in reversed(range(4)):
            carry = 1 - storage.dones[t, env].item()
            delta = storage.rewards[t, env] + 0.9 * values[t + 1, env] * carry - values[t, env]
            running = delta + 0.9 * 0.8 * carry * running
            assert storage.advantages[t, env].item() == pytest.approx(float(running), abs=1e-5)
    torch.testing.assert_close(storage.returns, storage.advantages + storage.values[:4])


def random_rollout(steps: int, n: int, size: int) -> RolloutStorage:
    """A rollout of random depth views, goals and uniformly drawn actions, with the
    log-probabilities of a uniform policy; rewards and returns are the caller's."""
    shapes = {"depth": ((1, size, size), torch.float32), POINTGOAL: ((2,), torch.float32)}
    storage = RolloutStorage(steps, n, shapes, (1, n, size), "cpu")
    storage.obs["depth"].uniform_(0, 5)
    storage.obs[POINTGOAL].uniform_(0, 3)
    storage.masks.fill_(1.0)
    storage.actions.copy_(torch.randint(0, 4, (steps, n)))
    storage.log_probs.fill_(math.log(0.25))
    return storage


def test_ppo_update_favours_rewarded_actions():
    torch.manual_seed(2)
    steps, n = 8, 16
    policy = Policy("simple_cnn", in_channels=1, hidden=32, layers=1, rnn="gru")
    optimizer = torch.optim.Adam(policy.parameters(), lr=3e-3)
    storage = random_rollout(steps, n, size=32)
    storage.rewards.copy_((storage.actions == 1).float())  # MOVE_FORWARD pays
    storage.compute_returns(torch.zeros(n), gamma=0.0, lam=0.0)
    settings = PPOSettings(epochs=4, minibatches=2, entropy_coef=0.0)

    def forward_probability() -> float:
        obs = {k: v[:steps].flatten(0, 1) for k, v in storage.obs.items()}
        logits, _, _, _ = policy(
            preprocess(obs, 10.0, 0),
            obs[POINTGOAL],
            storage.previous_action[:steps].flatten(),
            storage.initial_state,
            storage.masks[:steps],
        )
        return torch.softmax(logits, -1)[:, 1].mean().item()

    before = forward_probability()
    for _ in range(5):
        stats = update(policy, optimizer, storage, settings)
    assert all(math.isfinite(v) for v in stats.values())
    assert forward_probability() > before + 0.1


@pytest.mark.parametrize("normalize", [False, True])
def test_advantages_keep_their_scale_unless_normalised(normalize):
    """Ten times the rewards give ten times the policy loss with raw advantages, and the same
    loss with standardised ones (one full-batch step at lr 0, so both see the same policy)."""
    losses = []
    for scale in (1.0, 10.0):
        torch.manual_seed(3)
        steps, n = 4, 6
        policy = Policy("simple_cnn", in_channels=1, hidden=16, layers=1, rnn="gru")
        storage = random_rollout(steps, n, size=16)
        storage.rewards.copy_(scale * (torch.rand(steps, n) - 0.3))
        storage.compute_returns(torch.zeros(n), gamma=0.0, lam=0.0)
        settings = PPOSettings(minibatches=1, entropy_coef=0.0, normalize_advantage=normalize)
        optimizer = torch.optim.SGD(policy.parameters(), lr=0.0)
        losses.append(update(policy, optimizer, storage, settings)["policy_loss"])
    assert losses[0] != pytest.approx(0.0, abs=1e-4)
    # rel 1e-3: standardising adds 1e-5 to the std, which differs between the two scales.
    assert losses[1] / losses[0] == pytest.approx(1.0 if normalize else 10.0, rel=1e-3)


DEVICES = ["cpu"] + (["cuda"] if torch.cuda.is_available() else [])


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("rnn,layers", [("lstm", 2), ("gru", 1)])
@pytest.mark.parametrize("one_long_episode", [True, False])
def test_rollouts_by_segments_match_the_stepwise_reference(device, rnn, layers, one_long_episode):
    torch.manual_seed(3)
    steps, n, hidden = 9, 6, 32
    policy = Policy("simple_cnn", 1, hidden=hidden, layers=layers, rnn=rnn).to(device)
    inputs = (
        torch.rand(steps * n, 1, 16, 16, device=device),
        torch.rand(steps * n, 2, device=device) + 0.5,
        torch.randint(0, 5, (steps * n,), device=device),
        torch.randn(policy.state_layers, n, hidden, device=device),
    )
    masks = (torch.rand(steps, n, device=device) > 0.3).float()
    if one_long_episode:
        masks[:, 0] = 1  # one environment runs the whole rollout in one episode
    else:
        masks[5, :] = 0  # no segment spans the rollout: fewer packed steps than T
    masks[0, 1] = 0  # one begins an episode at step 0: its carried state is dropped
    outputs = {}
    for sequence in ("stepwise", "segments"):
        policy.sequence = sequence
        with torch.backends.cudnn.flags(allow_tf32=False):  # both in fp32: comparable
            out = policy(*inputs, masks)
            gradient = torch.autograd.grad(out.values.sum(), policy.rnn.weight_hh_l0)[0]
        outputs[sequence] = (out.logits, out.values, out.state, gradient)
    for got, want in zip(outputs["segments"], outputs["stepwise"], strict=True):
        torch.testing.assert_close(got, want, rtol=1e-4, atol=1e-5)
