"""A few PPO updates on the procedural dataset with a tiny batch: the trainer runs end to
end, its statistics are finite, and the policy moves."""

from __future__ import annotations

import math

import pytest

torch = pytest.importorskip("torch")

from batchsim.train.presets import make_config  # noqa: E402
from batchsim.train.trainer import Trainer  # noqa: E402


@pytest.fixture(scope="module")
def split(procgen_dataset):
    root, _ = procgen_dataset
    return root / "pointnav" / "train" / "train.json.gz"


@pytest.mark.parametrize("cpca", [0, 4])
def test_a_few_updates_run_and_change_the_policy(split, cpca):
    config = make_config(
        "demo",
        overrides=[
            f"dataset={split}",
            "sim.num_envs=4",
            "render.width=16",
            "render.height=16",
            "rollout_steps=8",
            "hidden_size=32",
            "total_frames=96",
            "device=cpu",
            "sim.num_threads=1",
            f"cpca_steps={cpca}",
        ],
    )
    trainer = Trainer(config)
    before = [p.detach().clone() for p in trainer.policy.parameters()]
    for _ in range(3):
        stats = trainer.train_step()
    assert trainer.frames == 96 and trainer.updates == 3
    assert all(math.isfinite(v) for v in stats.values())
    assert stats["frames_per_s"] > 0 and stats["lr"] > 0
    moved = sum(
        not torch.equal(a, b) for a, b in zip(before, trainer.policy.parameters(), strict=True)
    )
    assert moved > len(before) // 2
    if cpca:  # the auxiliary head trains too (its own weights are among the policy's)
        assert 0 < stats["cpca_loss"] < 2 and trainer.policy.cpca.steps == cpca
    else:
        assert "cpca_loss" not in stats
    trainer.close()


def test_config_presets_files_and_overrides(tmp_path):
    config = make_config("pointnav-depth", overrides=["sim.num_envs=2048", "render.rgb=on"])
    assert config.num_envs == 2048 and config.sensors == ("depth", "rgb")
    assert config.encoder == "se_resnet9" and config.rnn_layers == 2
    assert config.frames_per_update == 2048 * 32
    for gpu_preset in ("pointnav-depth", "pointnav-rgb"):  # the recipe: N, slots, rotation
        config = make_config(gpu_preset)
        sim = config.sim
        assert (sim.num_envs, sim.scenes_resident, sim.steps_per_scene) == (4096, 16, 600)
        assert config.cpca_steps == 16 and config.cuda_graphs
    assert make_config("demo").cpca_steps == 0  # the CPU preset stays plain PPO
    file = tmp_path / "c.json"
    file.write_text('{"rollout_steps": 16, "render": {"depth": false, "rgb": true}}')
    config = make_config("demo", file=file)
    assert config.rollout_steps == 16 and config.sensors == ("rgb",)
    with pytest.raises(ValueError, match="preset: expected one of"):
        make_config("huge")
    with pytest.raises(ValueError, match="'speed' is not a TrainConfig field"):
        make_config(overrides=["speed=11"])
    with pytest.raises(ValueError, match="encoder: expected one of"):
        make_config(overrides=["encoder=vit"])
    with pytest.raises(
        ValueError, match=r"cpca_steps: expected 0 \(off\) up to rollout_steps - 1 \(31\), got 32"
    ):
        make_config(overrides=["cpca_steps=32"])
    with pytest.raises(ValueError, match=r"cpca_coef: expected > 0 with cpca_steps, got 0\.0"):
        make_config(overrides=["cpca_steps=8", "cpca_coef=0"])
    file.write_text('{"colour": 1}')
    with pytest.raises(ValueError, match="'colour' is not a TrainConfig field"):
        make_config(file=file)


def test_batchsim_train_command_writes_metrics_and_a_checkpoint(split, tmp_path, capsys):
    from batchsim.cli import main

    log_dir = tmp_path / "run"
    code = main(
        [
            "train",
            "--preset",
            "demo",
            "--quiet",
            f"dataset={split}",
            "sim.num_envs=4",
            "render.width=16",
            "render.height=16",
            "rollout_steps=8",
            "hidden_size=32",
            "total_frames=64",
            "device=cpu",
            "sim.num_threads=1",
            f"log_dir={log_dir}",
        ]
    )
    assert code == 0
    assert "trained 64 frames in 2 updates" in capsys.readouterr().out
    rows = (log_dir / "metrics.csv").read_text().splitlines()
    assert rows[0].startswith("update,frames,") and len(rows) == 3
    checkpoint = torch.load(log_dir / "checkpoint.pt", weights_only=False)
    assert checkpoint["updates"] == 2 and checkpoint["config"]["sim"]["num_envs"] == 4
    assert main(["train", "--quiet", "encoder=vit"]) == 2


def test_scene_loads_count_the_slots_rotation_and_survive_a_resume(three_scene_split, tmp_path):
    """One slot per half over three scenes, moving on every 6 steps: 3 updates of 8 steps
    pass 4 slot turns per half, so each half loads its first scene, the next ones (and may
    already load one ahead)."""
    overrides = [
        f"dataset={three_scene_split}",
        "sim.num_envs=4",
        "render.width=16",
        "render.height=16",
        "rollout_steps=8",
        "hidden_size=32",
        "sim.task.max_episode_steps=4",
        "sim.steps_per_scene=6",
        "sim.scenes_resident=1",
        "device=cpu",
        "sim.num_threads=1",
    ]
    trainer = Trainer(make_config("demo", overrides=overrides))
    counts = [trainer.train_step()["scene_loads"] for _ in range(3)]
    assert counts == sorted(counts) and counts[0] >= 2  # each half's first scene
    steps = 3 * 8
    assert 2 * (1 + steps // 6 - 1) <= counts[-1] <= 2 * (2 + steps // 6), counts
    state = trainer.state_dict()
    trainer.close()
    resumed = Trainer(make_config("demo", overrides=overrides), checkpoint=state)
    assert resumed.scene_loads == counts[-1]
    assert resumed.train_step()["scene_loads"] > counts[-1]  # keeps counting from there
    resumed.close()


def test_steps_per_scene_must_outlast_an_episode():
    # SimConfig's own rule, checked once when the part is built from both overrides.
    with pytest.raises(ValueError, match=r"steps_per_scene must be greater than .* \(151\)"):
        make_config("demo", overrides=["sim.task.max_episode_steps=150", "sim.steps_per_scene=151"])


@pytest.mark.parametrize("plain_lr", [None, 3e-4])
def test_lamb_steps_its_plain_group_at_the_unscaled_rate(split, plain_lr):
    """The trust-ratio group runs at the square-root-scaled rate, the plain-Adam group
    (biases, scalars, heads) at plain_lr or base_lr, both along the same schedule."""
    overrides = [
        f"dataset={split}",
        "sim.num_envs=4",
        "render.width=16",
        "render.height=16",
        "rollout_steps=8",
        "hidden_size=32",
        "device=cpu",
        "sim.num_threads=1",
        "optimizer=lamb",
        "base_lr=1e-4",
        "warmup_frames=128",  # 4 updates of 32 frames
    ]
    if plain_lr is not None:
        overrides.append(f"plain_lr={plain_lr}")
    trainer = Trainer(make_config("demo", overrides=overrides))
    stats = trainer.train_step()
    trust, plain = trainer.optimizer.param_groups
    assert plain["trust"] is False
    scaled = 1e-4 * math.sqrt(4 * 8 / 2 / 256)  # 16 frames per minibatch
    assert trust["lr"] == pytest.approx(scaled / 4) == pytest.approx(stats["lr"])
    assert plain["lr"] == pytest.approx((plain_lr or 1e-4) / 4)
    trainer.close()
    with pytest.raises(ValueError, match=r"plain_lr: expected None or a finite number > 0, got -1"):
        make_config("demo", overrides=["plain_lr=-1"])
