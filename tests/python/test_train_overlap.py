"""overlap_update: the update of rollout k runs while rollout k+1 is collected with the
weights from before that update (one update of policy lag), reproducibly."""

from __future__ import annotations

import pytest

torch = pytest.importorskip("torch")

from batchsim.train.ppo import evaluate  # noqa: E402
from batchsim.train.trainer import Trainer  # noqa: E402


def overlapped(config, tmp_path, **extra) -> Trainer:
    return Trainer(config(tmp_path, overlap_update=True, total_frames=32 * 4, **extra))


def moved(before: list[torch.Tensor], policy) -> bool:
    return any(not torch.equal(a, p) for a, p in zip(before, policy.parameters(), strict=True))


def log_probs_under(policy, trainer: Trainer, storage) -> torch.Tensor:
    envs = torch.arange(storage.envs)
    with torch.no_grad():
        log_probs, _, _, _ = evaluate(policy, storage, envs, trainer.settings)
    return log_probs.view(storage.steps, storage.envs)


def test_the_next_rollout_is_collected_with_the_weights_before_the_update(
    exact_train_config, tmp_path
):
    trainer = overlapped(exact_train_config, tmp_path)
    before = [p.detach().clone() for p in trainer.policy.parameters()]
    trainer.train_step()
    assert trainer.updates == 1 and trainer.frames == 2 * 32  # a segment start collects two
    pending = trainer.untrained
    assert pending is not None and pending is trainer.storage and pending is not trainer.spare
    # The learner moved; the rollout still pending was sampled by the weights before it.
    assert moved(before, trainer.policy)
    stale = Trainer(exact_train_config(tmp_path / "stale"))
    with torch.no_grad():
        for mine, old in zip(stale.policy.parameters(), before, strict=True):
            mine.copy_(old)
    behaviour = log_probs_under(stale.policy, trainer, pending)
    learner = log_probs_under(trainer.policy, trainer, pending)
    torch.testing.assert_close(behaviour, pending.log_probs, rtol=1e-5, atol=1e-5)
    assert (learner - pending.log_probs).abs().max() > 1e-4
    # The acting copy now holds the learner's weights, for the rollout after.
    acting = list(trainer.acting_policy.parameters())
    assert all(torch.equal(a, p) for a, p in zip(acting, trainer.policy.parameters(), strict=True))
    for t in (trainer, stale):
        t.close()


def test_overlapped_runs_are_reproducible_and_differ_from_strict_ones(exact_train_config, tmp_path):
    def weights_after(trainer: Trainer, steps: int) -> list[torch.Tensor]:
        for _ in range(steps):
            stats = trainer.train_step()
            assert all(torch.isfinite(torch.tensor(v)) for v in stats.values())
        weights = [p.detach().clone() for p in trainer.policy.parameters()]
        trainer.close()
        return weights

    first = weights_after(overlapped(exact_train_config, tmp_path / "a", cpca_steps=3), 3)
    second = weights_after(overlapped(exact_train_config, tmp_path / "b", cpca_steps=3), 3)
    assert all(torch.equal(a, b) for a, b in zip(first, second, strict=True))
    strict = weights_after(Trainer(exact_train_config(tmp_path / "c", cpca_steps=3)), 3)
    assert any(not torch.equal(a, b) for a, b in zip(first, strict, strict=True))


def test_a_segment_start_trains_on_the_pending_rollout_first(exact_train_config, tmp_path):
    trainer = overlapped(exact_train_config, tmp_path)
    trainer.train_step()
    weights = [p.detach().clone() for p in trainer.policy.parameters()]
    trainer.begin_segment()  # what a checkpoint does
    assert trainer.untrained is None and trainer.updates == 2
    assert moved(weights, trainer.policy)
    trainer.train_step()  # collects anew: two rollouts again
    assert trainer.updates == 3 and trainer.frames == 4 * 32
    trainer.close()
