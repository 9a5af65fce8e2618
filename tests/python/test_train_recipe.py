"""The recipe candidates' switches (issue 38): their defaults leave the policy and the update
as they were, bad values are refused by name, the entropy schedule's values, and a
checkpoint must have the heads a resumed run asks for."""

from __future__ import annotations

import dataclasses

import pytest

torch = pytest.importorskip("torch")

from batchsim.errors import InvalidArgumentError  # noqa: E402
from batchsim.train.checkpoint import check_compatible  # noqa: E402
from batchsim.train.config import TrainConfig  # noqa: E402
from batchsim.train.models import build_policy  # noqa: E402
from batchsim.train.presets import make_config  # noqa: E402
from batchsim.train.schedule import anneal  # noqa: E402
from batchsim.train.trainer import Trainer  # noqa: E402


def test_the_defaults_build_the_policy_of_before():
    """No new parameters or buffers unless asked for: checkpoints of earlier runs load."""
    config = make_config("pointnav-depth", overrides=NO_HEADS)
    names = set(build_policy(config).state_dict())
    assert not any(
        n.startswith(("value_norm.", "inverse_dynamics.", "temporal_distance.")) for n in names
    )
    defaults = TrainConfig()
    assert defaults.entropy_coef_final is None and not defaults.value_normalization
    assert defaults.inverse_dynamics_coef == 0.0 and defaults.temporal_distance_coef == 0.0
    on = make_config("pointnav-depth", overrides=["hidden_size=32", "entropy_coef_final=0.001"])
    assert on.value_normalization and on.entropy_coef_final == 0.001
    added = set(build_policy(on).state_dict()) - names
    assert {n.split(".")[0] for n in added} == {
        "value_norm",
        "inverse_dynamics",
        "temporal_distance",
    }


# The GPU presets without the candidates that won the 1-GPU ablation (issue 38).
NO_HEADS = [
    "hidden_size=32",
    "value_normalization=false",
    "inverse_dynamics_coef=0",
    "temporal_distance_coef=0",
]


@pytest.mark.parametrize("preset", ["pointnav-depth", "pointnav-rgb"])
def test_the_gpu_presets_keep_what_won_the_ablation(preset):
    config = make_config(preset)
    assert config.value_normalization and config.cpca_steps == 16
    assert (config.inverse_dynamics_coef, config.temporal_distance_coef) == (0.1, 0.1)
    assert config.curriculum_start_m in (None, 0)  # lost: no gain on one GPU
    assert make_config("demo").inverse_dynamics_coef == 0.0  # the CPU demo stays small


@pytest.mark.parametrize(
    ("override", "message"),
    [
        (
            "inverse_dynamics_coef=-0.1",
            r"inverse_dynamics_coef: expected a finite number >= 0 \(0: off\), got -0\.1",
        ),
        (
            "temporal_distance_coef=nan",
            r"temporal_distance_coef: expected a finite number >= 0 \(0: off\), got nan",
        ),
        ("value_norm_decay=1", r"value_norm_decay: expected a number in \(0, 1\), got 1\.0"),
        ("value_norm_decay=0", r"value_norm_decay: expected a number in \(0, 1\), got 0\.0"),
        (
            "entropy_coef_final=-1",
            r"entropy_coef_final: expected None or a finite number >= 0, got -1\.0",
        ),
        (
            "entropy_coef_final=inf",
            r"entropy_coef_final: expected None or a finite number >= 0, got inf",
        ),
    ],
)
def test_bad_values_are_refused_by_name(override, message):
    with pytest.raises(ValueError, match=message):
        make_config("demo", overrides=[override])


def test_the_heads_need_pairs_of_steps():
    with pytest.raises(ValueError, match=r"inverse_dynamics_coef: expected rollout_steps >= 2"):
        make_config("demo", overrides=["rollout_steps=1", "inverse_dynamics_coef=0.1"])
    assert make_config("demo", overrides=["rollout_steps=1"]).rollout_steps == 1  # off: fine


def test_anneal_values():
    assert anneal(0.01, 0.001, 0.0) == pytest.approx(0.01)
    assert anneal(0.01, 0.001, 0.5) == pytest.approx(0.0055)
    assert anneal(0.01, 0.001, 1.0) == pytest.approx(0.001)
    assert anneal(0.01, 0.001, 1.7) == pytest.approx(0.001)  # past the end: the final value
    assert anneal(0.01, 0.001, -0.2) == pytest.approx(0.01)
    assert anneal(0.0, 0.02, 0.25) == pytest.approx(0.005)  # upward too


@pytest.mark.parametrize("final", [None, 0.0])
def test_the_trainer_anneals_the_entropy_weight_over_the_frames(
    exact_train_config, tmp_path, final
):
    """4 updates of 32 frames from entropy_coef 0.05: 0.05, 0.0375, 0.025, 0.0125 (each
    update by the frames before it); None keeps 0.05 and the settings untouched."""
    extra = {} if final is None else {"entropy_coef_final": final}
    trainer = Trainer(exact_train_config(tmp_path, total_frames=128, **extra))
    weights = [trainer.train_step()["entropy_coef"] for _ in range(4)]
    expected = [0.05] * 4 if final is None else [0.05, 0.0375, 0.025, 0.0125]
    assert weights == pytest.approx(expected)
    assert trainer.settings.entropy_coef == pytest.approx(expected[-1])
    trainer.close()


def test_a_checkpoint_must_have_the_heads_and_value_scale_the_run_asks_for():
    saved = TrainConfig(inverse_dynamics_coef=0.1)
    check_compatible(
        saved, dataclasses.replace(saved, inverse_dynamics_coef=0.3)
    )  # weights may change
    wanted = dataclasses.replace(saved, inverse_dynamics_coef=0.0, temporal_distance_coef=0.2)
    wanted.value_normalization = True
    with pytest.raises(InvalidArgumentError) as error:
        check_compatible(saved, wanted)
    message = str(error.value)
    assert "value_normalization: checkpoint has False, this run asks for True" in message
    assert (
        "inverse_dynamics_coef: checkpoint has 0.1 (a head), this run asks for 0.0 (no head)"
        in message
    )
    assert (
        "temporal_distance_coef: checkpoint has 0.0 (no head), this run asks for 0.2 (a head)"
        in message
    )
