"""The trainer with compile_encoder=on against the same trainer eager, end to end on CUDA
in fp32 (issue 39): rollouts replayed as CUDA graphs of the compiled encoder, the bootstrap,
the update and LAMB's steps. The pieces, on the CPU too: test_train_compiled_parity.py."""

from __future__ import annotations

import pytest

torch = pytest.importorskip("torch")

from torch._dynamo.utils import counters  # noqa: E402

from batchsim.train import compiled  # noqa: E402
from batchsim.train.trainer import Trainer  # noqa: E402
from test_train_compiled_parity import relative  # noqa: E402


def _trainer_run(exact_train_config, log_dir, compile_encoder: str, updates: int = 2) -> list:
    """Weights and stored log-probabilities after each of `updates` updates of a small
    SE-ResNet9 trainer on CUDA in fp32 (CUDA graphs, channels-last: the trainer's own)."""
    config = exact_train_config(
        log_dir,
        device="cuda",
        precision="fp32",
        encoder="se_resnet9",
        rnn="lstm",
        optimizer="lamb",
        resolution=64,
        compile_encoder=compile_encoder,
        total_frames=4 * 8 * updates,
    )
    trainer = Trainer(config)
    try:
        history = []
        for _ in range(updates):
            trainer.train_step()
            weights = {k: v.detach().clone() for k, v in trainer.policy.state_dict().items()}
            history.append((weights, trainer.storage.log_probs.clone()))
        return history
    finally:
        trainer.close()


@pytest.mark.skipif(not torch.cuda.is_available(), reason="needs a CUDA GPU")
def test_a_compiled_trainer_follows_the_eager_one_on_cuda(
    exact_train_config, tmp_path, monkeypatch
):
    """End to end on CUDA, fp32: the trainer with compile_encoder=on (rollouts by captured
    CUDA graphs of the compiled encoder, the bootstrap, the update, LAMB) collects and
    learns what the eager trainer does, from the same seed. On the CPU, the same comparison
    (Inductor forced on) agreed to 4e-7 over four updates (2-core VM)."""
    import batchsim

    if not batchsim.cuda_status()["available"]:
        pytest.skip(f"no CUDA simulator: {batchsim.cuda_status()['reason']}")
    if compiled.inductor_works("cuda") is not None:
        pytest.skip(compiled.inductor_works("cuda"))
    # fp32 means fp32: TF32 convolutions (cuDNN's default) round to 10 bits, in whichever
    # algorithm each call picks.
    monkeypatch.setattr(torch.backends.cudnn, "allow_tf32", False)
    eager = _trainer_run(exact_train_config, tmp_path / "eager", "off")
    torch._dynamo.reset()  # room for the trainer's graphs (see `pair`)
    graphs = counters["stats"]["unique_graphs"]
    got = _trainer_run(exact_train_config, tmp_path / "compiled", "on")
    assert counters["stats"]["unique_graphs"] - graphs == 3  # halves, bootstrap, update
    for (weights, log_probs), (want_weights, want_log_probs) in zip(got, eager, strict=True):
        torch.testing.assert_close(log_probs, want_log_probs, rtol=1e-4, atol=1e-5)
        for name, want in want_weights.items():
            assert relative(weights[name], want) <= 1e-3, name
