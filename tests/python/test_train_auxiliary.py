"""CPC|A: the batched loss against a per-pair loop, that it learns a world where actions
predict the views (and not one where they do not), and the policy's wiring."""

from __future__ import annotations

import pytest

torch = pytest.importorskip("torch")

from torch.nn import functional as F  # noqa: E402

from batchsim.train.auxiliary import ActionCPC  # noqa: E402
from batchsim.train.models import Policy  # noqa: E402


def reference_loss(cpca: ActionCPC, embeddings, beliefs, actions, masks, start, negative):
    """One (start, horizon) pair at a time: step the GRU while the episode goes on."""
    steps, n = masks.shape
    flat = embeddings.flatten(0, 1)
    total, count = 0.0, 0
    for s, index in enumerate(start.tolist()):
        t0, env = divmod(index, n)
        hidden = beliefs[t0, env][None, None]
        for j in range(1, negative.shape[1] + 1):
            t = t0 + j
            if t >= steps or masks[t, env] == 0:
                break  # past the rollout, or a new episode: nothing further counts
            taken = cpca.action(actions[t - 1, env])[None, None]
            _, hidden = cpca.imagine(taken, hidden)
            predicted = cpca.predicted(hidden[0, 0])

            def score(embedding, predicted=predicted):
                return cpca.score(F.relu(predicted + cpca.observed(embedding)))[0]

            negatives = [F.softplus(score(flat[m])) for m in negative[s, j - 1].tolist()]
            total = total + F.softplus(-score(embeddings[t, env])) + sum(negatives) / len(negatives)
            count += 1
    return total / count


def test_the_batched_loss_matches_a_loop_over_pairs():
    torch.manual_seed(0)
    steps, n, hidden, horizon = 7, 3, 8, 3
    cpca = ActionCPC(hidden, actions=4, steps=horizon, width=6)
    embeddings, beliefs = torch.randn(steps, n, hidden), torch.randn(steps, n, hidden)
    actions = torch.randint(0, 4, (steps, n))
    masks = torch.ones(steps, n)
    masks[0] = 0
    masks[3, 1] = 0  # env 1 begins an episode at step 3
    masks[5, 2] = 0
    start = torch.arange((steps - 1) * n)  # every start point
    negative = torch.randint(0, steps * n, (len(start), horizon, 2))
    got = cpca.loss(embeddings, beliefs, actions, masks, start, negative)
    want = reference_loss(cpca, embeddings, beliefs, actions, masks, start, negative)
    torch.testing.assert_close(got, want)


def ring_world(n: int, steps: int, cells: int, views_follow_actions: bool):
    """Agents on a ring: action 1 steps +1, 2 steps -1, others stay; the view is the cell
    (one-hot), or noise unrelated to where the agent is."""
    actions = torch.randint(0, 4, (steps, n))
    moves = (actions == 1).long() - (actions == 2).long()
    position = torch.randint(0, cells, (n,))
    positions = [position]
    for t in range(steps - 1):
        position = (position + moves[t]) % cells
        positions.append(position)
    where = F.one_hot(torch.stack(positions), cells).float()
    views = where if views_follow_actions else F.one_hot(torch.randint(0, cells, (steps, n)), cells)
    masks = torch.ones(steps, n)
    masks[0] = 0
    return views.float(), where, actions, masks


def trained_loss(views_follow_actions: bool) -> float:
    torch.manual_seed(1)
    cells = 8
    cpca = ActionCPC(cells, actions=4, steps=3, width=32)
    optimizer = torch.optim.Adam(cpca.parameters(), lr=1e-2)
    for _ in range(300):
        views, where, actions, masks = ring_world(32, 8, cells, views_follow_actions)
        loss = cpca(views, where, actions, masks)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
    with torch.no_grad():
        return cpca(*ring_world(256, 8, cells, views_follow_actions)).item()


def test_it_learns_views_the_actions_predict_and_not_unrelated_ones():
    # Chance is 2 ln 2 = 1.39. Where the views follow the actions only the negatives that
    # happen to show the same cell (1 in 8) stay ambiguous; unrelated views stay at chance.
    learned, unrelated = trained_loss(True), trained_loss(False)
    assert learned < 0.6, learned
    assert unrelated > 1.2, unrelated


def test_a_rollout_without_a_future_or_a_continuing_episode_costs_nothing():
    cpca = ActionCPC(8, actions=4, steps=4)
    embeddings = torch.randn(5, 2, 8, requires_grad=True)
    one_step = cpca(
        embeddings[:1], torch.randn(1, 2, 8), torch.zeros(1, 2).long(), torch.ones(1, 2)
    )
    assert one_step.item() == 0.0
    every_step_new = cpca(
        embeddings, torch.randn(5, 2, 8), torch.zeros(5, 2).long(), torch.zeros(5, 2)
    )
    assert every_step_new.item() == 0.0 and torch.isfinite(every_step_new)
    every_step_new.backward()  # still part of the graph: the update can add it unconditionally


def test_the_policy_returns_the_loss_only_with_the_head_and_the_actions():
    torch.manual_seed(2)
    steps, n = 4, 3
    inputs = (
        torch.rand(steps * n, 1, 16, 16),
        torch.rand(steps * n, 2) + 0.5,
        torch.randint(0, 5, (steps * n,)),
    )
    masks = torch.ones(steps, n)
    actions = torch.randint(0, 4, (steps * n,))
    with_head = Policy("simple_cnn", 1, hidden=32, layers=1, rnn="gru", cpca_steps=2)
    state = with_head.initial_state(n, "cpu")
    out = with_head(*inputs, state, masks, actions=actions)
    assert list(out.auxiliary_losses) == ["cpca"]
    loss = out.auxiliary_losses["cpca"]
    assert loss.ndim == 0 and torch.isfinite(loss)
    loss.backward()
    encoder_grad = with_head.encoder.out.weight.grad
    assert encoder_grad is not None and encoder_grad.abs().sum() > 0  # it shapes the encoder
    assert with_head(*inputs, state, masks).auxiliary_losses == {}
    without = Policy("simple_cnn", 1, hidden=32, layers=1, rnn="gru")
    assert without.cpca is None
    assert without(*inputs, state, masks, actions=actions).auxiliary_losses == {}
