"""batchsim.SensorNoise: each option changes what it should (against plain arithmetic and,
for the field-of-view crop, against a render made at that field of view), the draws hold
for an episode, and nothing changes when off."""

from __future__ import annotations

import math

import pytest
import torch

import batchsim
from batchsim.sensor_noise import SensorNoise
from batchsim.sensor_randomizer import SensorRandomizer, depth_edges
from batchsim.train.config import TrainConfig
from batchsim.train.presets import make_config

N = 6


@pytest.fixture(scope="module")
def dataset(procgen_dataset):
    root, _ = procgen_dataset
    return root / "pointnav" / "train" / "train.json.gz"


@pytest.fixture(scope="module")
def context():
    return batchsim.Context(export="cpu")


def randomizer(**noise) -> SensorRandomizer:
    r = SensorRandomizer(SensorNoise(**noise), N, "cpu", hfov=90.0, seed=1)
    r.new_episodes(torch.arange(N))
    return r


def test_depth_noise_is_multiplicative_gaussian():
    depth = torch.full((N, 1, 64, 64), 4.0)
    noisy = randomizer(depth_noise=0.05).apply({"depth": depth})["depth"]
    relative = (noisy / depth - 1).flatten()
    assert relative.mean().abs() < 0.003 and relative.std() == pytest.approx(0.05, rel=0.03)
    zero = randomizer(depth_noise=0.05).apply({"depth": torch.zeros_like(depth)})["depth"]
    assert zero.eq(0).all()  # no reading stays no reading


def test_edge_dropout_zeroes_only_edge_pixels_at_the_asked_rate():
    depth = torch.full((N, 1, 32, 32), 2.0)
    depth[..., 16:] = 5.0  # a vertical step: columns 15 and 16 are edges
    edges = depth_edges(depth)
    assert edges.sum() == N * 32 * 2 and edges[..., 15:17].all()
    out = randomizer(depth_edge_dropout=0.5).apply({"depth": depth})["depth"]
    dropped = out.eq(0)
    assert not (dropped & ~edges).any()
    assert dropped.sum() / edges.sum() == pytest.approx(0.5, abs=0.1)


def test_rgb_jitter_holds_within_an_episode_and_changes_with_it():
    rgb = torch.randint(0, 256, (N, 3, 16, 16), dtype=torch.uint8)
    r = randomizer(rgb_jitter=0.4)
    first, again = r.apply({"rgb": rgb})["rgb"], r.apply({"rgb": rgb})["rgb"]
    assert first.dtype == torch.uint8 and torch.equal(first, again)
    assert not torch.equal(first, rgb)
    r.new_episodes(torch.tensor([0, 1, 2, 3, 4, 99]))  # only the last env has a new episode
    after = r.apply({"rgb": rgb})["rgb"]
    assert torch.equal(after[:5], first[:5]) and not torch.equal(after[5], first[5])
    # Brightness alone, exactly: a contrast and saturation of 1 leave it.
    r.colour[:] = torch.tensor([1.2, 1.0, 1.0])
    expected = (rgb.float() * 1.2).clamp(0, 255).round()
    assert (r.apply({"rgb": rgb})["rgb"].float() - expected).abs().max() <= 1


def test_field_of_view_crop_matches_a_render_at_that_field_of_view(dataset, context):
    common = dict(context=context, seed=4, resolution=(48, 48), sensors=("depth", "rgb"))
    wide = batchsim.BatchNavEnv(
        dataset, N, sensor_noise=SensorNoise(fov_jitter_degrees=10.0), **common
    )
    narrow = batchsim.BatchNavEnv(dataset, N, hfov_degrees=80.0, **common)
    assert wide.sim.render_options.hfov_degrees == 100.0
    wide.reset()
    reference, _ = narrow.reset()
    views = batchsim.env.visual_observations(wide.sim)

    def errors(zoom: float) -> tuple[torch.Tensor, torch.Tensor]:
        wide._noise.zoom[:] = zoom
        cropped = wide._noise.apply(views)
        depth = (cropped["depth"] - reference["depth"]).abs() / reference["depth"].clamp_min(0.1)
        return depth, (cropped["rgb"].float() - reference["rgb"].float()).abs()

    # The crop samples between the wide view's pixels (nearest for depth: up to half a pixel
    # off, ~1% on slanted floors), so it matches to about a percent, not exactly...
    depth_error, rgb_error = errors(math.tan(math.radians(40)) / math.tan(math.radians(50)))
    assert depth_error.median() < 0.02 and (depth_error < 0.05).float().mean() > 0.9
    assert rgb_error.mean() < 6
    # ... while the uncropped wide view is far off.
    wrong_depth, wrong_rgb = errors(1.0)
    assert (
        wrong_depth.median() > 3 * depth_error.median() and wrong_rgb.mean() > 2 * rgb_error.mean()
    )
    for env in (wide, narrow):
        env.close()


def test_off_means_the_views_untouched(dataset, context):
    env = batchsim.BatchNavEnv(dataset, N, context=context, seed=4, sensor_noise=SensorNoise())
    plain = batchsim.BatchNavEnv(dataset, N, context=context, seed=4)
    obs, _ = env.reset()
    assert env._noise is None and obs["depth"].data_ptr() == env._observations["depth"].data_ptr()
    torch.testing.assert_close(obs["depth"], plain.reset()[0]["depth"])
    noisy = batchsim.BatchNavEnv(
        dataset, N, context=context, seed=4, sensor_noise=SensorNoise(depth_noise=0.02)
    )
    assert not torch.equal(noisy.reset()[0]["depth"], obs["depth"])
    for e in (env, plain, noisy):
        e.close()


@pytest.mark.parametrize(
    "fields",
    [{"depth_noise": -0.1}, {"rgb_jitter": 1.5}, {"fov_jitter_degrees": float("nan")}],
)
def test_bad_noise_is_refused(fields):
    with pytest.raises(batchsim.InvalidArgumentError, match="SensorNoise"):
        SensorNoise(**fields)
    # Through the trainer: SensorNoise's own limits, named with the override's path.
    name, value = next(iter(fields.items()))
    with pytest.raises(batchsim.InvalidArgumentError, match=f"sensor_noise.*{name}"):
        make_config("demo", None, [f"sensor_noise.{name}={value}"])


def test_train_config_builds_the_training_noise():
    overrides = ["sim.task.forward_noise=0.03", "sim.task.turn_noise=1.5"]
    overrides += ["sensor_noise.depth_noise=0.01", "sensor_noise.rgb_jitter=0.2"]
    config = make_config("demo", None, overrides)
    task = config.sim.task
    assert (task.forward_noise, task.turn_noise) == pytest.approx((0.03, 1.5))  # float32
    assert task.max_episode_steps == 150  # the demo preset's
    assert config.sensor_noise == SensorNoise(depth_noise=0.01, rgb_jitter=0.2)
    assert not TrainConfig().sensor_noise.active
    evaluated = config.eval_task()  # evaluation stays noiseless, the rest of the task kept
    assert (evaluated.forward_noise, evaluated.turn_noise) == (0.0, 0.0)
    assert evaluated.max_episode_steps == 150
