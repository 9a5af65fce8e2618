"""Inverse dynamics and temporal distance: each loss against a per-pair loop, pairs across
an episode's end excluded, the losses at initialisation, gradients reaching the encoder, and
that inverse dynamics learns a world where actions change the views."""

from __future__ import annotations

import itertools
import math

import pytest

torch = pytest.importorskip("torch")

from torch.nn import functional as F  # noqa: E402

from batchsim.train.inverse_dynamics import InverseDynamics  # noqa: E402
from batchsim.train.models import Policy  # noqa: E402
from batchsim.train.temporal_distance import TemporalDistance, segment_bounds  # noqa: E402
from test_train_auxiliary import ring_world  # noqa: E402


def episode_masks(steps: int, n: int) -> torch.Tensor:
    """Env 0 one episode, env 1 a new one at step 3, env 2 new ones at 0, 2 and 5."""
    masks = torch.ones(steps, n)
    masks[3, 1] = 0
    masks[[0, 2, 5], 2] = 0
    return masks


def test_inverse_dynamics_matches_a_loop_over_valid_pairs():
    torch.manual_seed(0)
    steps, n, hidden = 7, 3, 8
    head = InverseDynamics(hidden, actions=4, width=6)
    embeddings = torch.randn(steps, n, hidden)
    actions = torch.randint(0, 4, (steps, n))
    masks = episode_masks(steps, n)
    losses = []
    for t in range(steps - 1):
        for env in range(n):
            if masks[t + 1, env] == 0:
                continue  # step t + 1 is another episode's first view
            hidden_layer = F.relu(
                head.before(embeddings[t, env]) + head.after(embeddings[t + 1, env])
            )
            logits = head.classify(hidden_layer)
            losses.append(F.cross_entropy(logits[None], actions[t, env][None]))
    assert len(losses) == (steps - 1) * n - 3  # the pairs (2, 3) of env 1, (1, 2), (4, 5) of env 2
    got = head(embeddings, actions, masks)
    torch.testing.assert_close(got, torch.stack(losses).mean())
    # The labels of the masked pairs and of the last step (no next view) do not count.
    relabelled = actions.clone()
    relabelled[2, 1] = (actions[2, 1] + 1) % 4
    relabelled[[1, 4], 2] = (actions[[1, 4], 2] + 1) % 4
    relabelled[-1] = (actions[-1] + 1) % 4
    torch.testing.assert_close(head(embeddings, relabelled, masks), got)
    relabelled[0, 0] = (actions[0, 0] + 1) % 4  # a valid pair's label does
    assert not torch.allclose(head(embeddings, relabelled, masks), got)


def test_inverse_dynamics_without_a_valid_pair_costs_nothing_and_stays_in_the_graph():
    head = InverseDynamics(8, actions=4)
    embeddings = torch.randn(5, 2, 8, requires_grad=True)
    loss = head(embeddings, torch.zeros(5, 2).long(), torch.zeros(5, 2))
    assert loss.item() == 0.0
    loss.backward()
    assert head.before.weight.grad is not None


def policy_inputs(steps: int, n: int):
    return (
        torch.rand(steps * n, 1, 16, 16),
        torch.rand(steps * n, 2) + 0.5,
        torch.randint(0, 5, (steps * n,)),
    )


def test_the_policy_s_heads_start_near_chance_and_train_the_encoder():
    torch.manual_seed(1)
    steps, n = 6, 8
    policy = Policy(
        "simple_cnn",
        1,
        hidden=32,
        layers=1,
        rnn="gru",
        inverse_dynamics=True,
        temporal_distance=True,
    )
    masks = episode_masks(steps, 3).repeat(1, 3)[:, :n]
    actions = torch.randint(0, 4, (steps * n,))
    out = policy(*policy_inputs(steps, n), policy.initial_state(n, "cpu"), masks, actions=actions)
    assert set(out.auxiliary_losses) == {"id", "td"}
    assert out.auxiliary_losses["id"].item() == pytest.approx(math.log(4), abs=0.01)
    td = out.auxiliary_losses["td"]
    assert 0.0 < td.item() < 0.5 and torch.isfinite(td)  # targets in [-1, 1], halved
    for name, loss in out.auxiliary_losses.items():
        policy.zero_grad()
        loss.backward(retain_graph=True)
        grad = policy.encoder.out.weight.grad
        assert grad is not None and grad.abs().sum() > 0, name
    without = Policy("simple_cnn", 1, hidden=32, layers=1, rnn="gru")
    assert without.inverse_dynamics is None and without.temporal_distance is None
    out = without(*policy_inputs(steps, n), without.initial_state(n, "cpu"), masks, actions=actions)
    assert out.auxiliary_losses == {}


def test_inverse_dynamics_learns_the_actions_where_views_follow_them():
    """Ring world (test_train_auxiliary): the view shows the cell; action 1 steps +1, 2
    steps -1, 0 and 3 stay. From two views 1 and 2 are certain, 0 and 3 a coin flip, so
    the best loss is ln 2 / 2 = 0.35; unrelated views stay at chance, ln 4 = 1.39."""
    losses = {}
    for follows in (True, False):
        torch.manual_seed(2)
        head = InverseDynamics(8, actions=4, width=32)
        optimizer = torch.optim.Adam(head.parameters(), lr=1e-2)
        for _ in range(200):
            views, _, actions, masks = ring_world(32, 8, 8, follows)
            loss = head(views, actions, masks)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
        with torch.no_grad():
            views, _, actions, masks = ring_world(512, 8, 8, follows)
            losses[follows] = head(views, actions, masks).item()
    assert losses[True] < 0.45, losses
    assert losses[False] > 1.3, losses


def test_segment_bounds_match_a_loop():
    masks = episode_masks(7, 3)
    masks[0, 0] = 1  # env 0 continues an episode from the previous rollout
    first, length = segment_bounds(masks)
    for env in range(3):
        begins = [0] + [t for t in range(1, 7) if masks[t, env] == 0] + [7]
        for a, b in itertools.pairwise(begins):
            for t in range(a, b):
                assert (first[t, env].item(), length[t, env].item()) == (a, b - a), (t, env)


def test_temporal_distance_matches_a_loop_and_pairs_stay_in_one_episode():
    torch.manual_seed(3)
    steps, n, hidden = 7, 3, 8
    head = TemporalDistance(hidden, width=6)
    embeddings, beliefs = torch.randn(steps, n, hidden), torch.randn(steps, n, hidden)
    masks = episode_masks(steps, n)
    anchor = torch.arange(steps * n).repeat(3)
    fraction = torch.rand(anchor.numel())
    segments = [[0] * steps, [0, 0, 0, 1, 1, 1, 1], [0, 0, 1, 1, 1, 2, 2]]
    errors, distances = [], []
    for a, u in zip(anchor.tolist(), fraction.tolist(), strict=True):
        i, env = divmod(a, n)
        members = [t for t in range(steps) if segments[env][t] == segments[env][i]]
        j = members[int(u * len(members))]
        features = (
            head.first(embeddings[i, env])
            + head.second(embeddings[j, env])
            + head.belief(beliefs[max(i, j), env])
        )
        predicted = head.regress(F.relu(features))[0]
        errors.append(0.5 * (predicted - (j - i) / (steps - 1)) ** 2)
        distances.append(j - i)
    got = head.loss(embeddings, beliefs, masks, anchor, fraction)
    torch.testing.assert_close(got, torch.stack(errors).mean())
    assert max(distances) > 0 and min(distances) < 0  # both orders are drawn
    drawn = head(embeddings, beliefs, masks)  # random draws: finite, differentiable
    drawn.backward()
    assert torch.isfinite(drawn) and head.belief.weight.grad.abs().sum() > 0
