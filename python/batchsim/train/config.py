"""The trainer's configuration: one dataclass, a docstring per field, named presets, and
overrides from files (JSON) and the command line (``key=value``)."""

from __future__ import annotations

import dataclasses
import json
from dataclasses import dataclass, field
from pathlib import Path

from batchsim.train.curriculum import check_curriculum


@dataclass
class TrainConfig:
    """Large-batch PPO for PointNav (the paper's recipe by default)."""

    dataset: str = "data/procgen/pointnav/train"
    """Training split: a PointNav-v1 split directory or .json.gz file."""
    val_dataset: str = "data/procgen/pointnav/val"
    """Validation split for `batchsim eval` and the learning curve."""
    scenes_dir: str | None = None
    """Folder the splits' scene_ids resolve against, as Habitat's SCENES_DIR (a leading
    "data/scene_datasets/" is replaced by it), e.g. OUT of `batchsim import-dataset`; None:
    scene_ids as they are, or batchsim's layout beside the split."""
    num_envs: int = 1024
    """Environments stepped together (N)."""
    sensors: tuple[str, ...] = ("depth",)
    """Visual sensors the policy sees: "depth" and/or "rgb"."""
    resolution: int = 64
    """Square views, pixels."""
    backend: str = "auto"
    """Renderer backend: "raster", "compute" (ray casting) or "auto" (see batchsim doctor)."""
    device: str | None = None
    """"cpu", "cuda:N" or None (CUDA where the Vulkan device is an NVIDIA GPU)."""
    max_episode_steps: int = 500
    """Steps before an episode is truncated (Habitat: 500)."""
    curriculum_start_m: float | None = None
    """Curriculum over geodesic distance: train first on episodes of at most this many metres,
    where successes by chance come early, a limit that grows geometrically to the split's
    longest over curriculum_frames (batchsim.train.curriculum). None or 0: off."""
    curriculum_frames: int = 20_000_000
    """Frames of all ranks over which the curriculum's limit grows; then it is lifted."""
    scenes_resident: int = 4
    """Scenes in memory at once (K) per simulator (each pipelined half has its own)."""
    steps_per_scene: int = 2000
    """Steps before each scene slot moves on to its next scene (SimConfig.steps_per_scene;
    more than max_episode_steps + 1): the two pipelined halves' 2 K slots load about
    2 K / steps_per_scene new scenes per step of all N environments."""
    pipeline: bool = True
    """Two half-batch simulators, one simulating while the policy acts for the other."""
    num_threads: int = 0
    """Simulation threads; 0: every core."""
    total_frames: int = 50_000_000
    """Environment steps to train for, over all environments."""
    rollout_steps: int = 32
    """Steps per rollout (T)."""
    epochs: int = 1
    """PPO epochs per rollout."""
    minibatches: int = 2
    """Minibatches per epoch (environments split into groups)."""
    gamma: float = 0.99
    """Discount."""
    gae_lambda: float = 0.95
    """GAE's lambda."""
    clip: float = 0.2
    """PPO's ratio clip."""
    value_coef: float = 0.5
    """Weight of the value loss."""
    entropy_coef: float = 0.01
    """Weight of the entropy bonus."""
    max_grad_norm: float = 1.0
    """Gradient norm clip."""
    normalize_advantage: bool = False
    """Standardise each rollout's advantages (mean 0, std 1) before the policy loss. Off, as
    in Habitat's DD-PPO and bps-nav: standardising blows the early, tiny advantages up to
    unit size, and the policy collapsed onto STOP on generator v6 (benchmarks/RESULTS.md)."""
    optimizer: str = "lamb"
    """"lamb" or "adam"."""
    base_lr: float = 2.5e-4
    """Learning rate at 256 frames per minibatch; scaled by sqrt(frames per minibatch / 256)."""
    plain_lr: float | None = None
    """LAMB only: the rate of the parameters it steps as plain Adam, without the trust ratio
    (biases, scalars, the actor and critic heads); None: base_lr, unscaled. Adam moves each
    element by about the rate, so a 512-wide actor at the scaled 4e-3 shifts its logits by
    ~1 per step and collapses onto STOP within 30 updates (benchmarks/RESULTS.md)."""
    warmup_updates: int = 50
    """Linear learning-rate warm-up, in updates; a cosine decay to zero follows."""
    encoder: str = "se_resnet9"
    """"se_resnet9" (SE-ResNet9, Fixup, no normalisation) or "simple_cnn"."""
    rnn: str = "lstm"
    """"lstm" or "gru"."""
    hidden_size: int = 512
    """Width of the encoder output and the recurrent core."""
    rnn_layers: int = 2
    """Recurrent layers."""
    max_depth: float = 10.0
    """Depth is clamped to this many metres, then scaled to [0, 1]."""
    depth_bins: int = 0
    """One-hot depth-bin channels added to the depth channel (0: none)."""
    cpca_steps: int = 0
    """Horizon k of the CPC|A auxiliary loss (batchsim.train.auxiliary): the recurrent
    core's belief, rolled forward by the actions taken, must recognise the next k steps'
    views. 0: no auxiliary loss."""
    cpca_coef: float = 0.1
    """Weight of the CPC|A loss beside the PPO losses."""
    # Randomisation of the training environments only (evaluation stays noiseless); 0: off.
    forward_noise: float = 0.0
    """Std dev (m) of Gaussian noise on each forward step (TaskConfig.forward_noise)."""
    turn_noise: float = 0.0
    """Std dev (degrees) of Gaussian noise on each turn (TaskConfig.turn_noise)."""
    camera_height_jitter: float = 0.0
    """Camera height drawn per episode in 1.25 m +- this (TaskConfig.camera_height_jitter)."""
    depth_noise: float = 0.0
    """Multiplicative Gaussian depth noise, std dev (batchsim.SensorNoise)."""
    depth_edge_dropout: float = 0.0
    """Probability that a depth-edge pixel reads 0 (batchsim.SensorNoise)."""
    rgb_jitter: float = 0.0
    """Brightness, contrast, saturation factors in 1 +- this per episode (SensorNoise)."""
    fov_jitter_degrees: float = 0.0
    """Horizontal field of view drawn per episode in 90 +- this degrees (SensorNoise)."""
    precision: str = "bf16"
    """"bf16", "fp16" or "fp32" (mixed precision on CUDA; the CPU always uses fp32)."""
    cuda_graphs: bool = True
    """On CUDA, rollout inference replays one captured CUDA graph per pipelined half instead
    of launching the policy's kernels one by one (batchsim.train.acting): 1.55x the frames
    per second of the eager path on an H100 (benchmarks/RESULTS.md, "rollout inference as
    CUDA graphs"). No effect on the CPU."""
    compile_encoder: str = "off"
    """torch.compile the visual encoder (Inductor fuses the SE-ResNet's elementwise work):
    "on", "off" or "auto" (on where CUDA and a working Inductor are, checked at start with a
    tiny kernel; else eager). ~35 s of compiling at the start; updates 1.3x faster on an
    H100, but in two seeds of 600 updates it learned more slowly than eager (val success 0.24
    and 0.26 against 0.49 and 0.39), so it is off until that is understood
    (benchmarks/RESULTS.md, "the learner: segments packed by one gather, torch.compile")."""
    overlap_update: bool = False
    """Run each PPO update on a worker thread while the next rollout is collected with the
    weights from before it (batchsim.train.overlap): the behaviour policy lags the learner by
    one update. False: strictly on-policy, collection and update in turn."""
    seed: int = 0
    """Seeds the simulator and torch."""
    log_dir: str = "runs/pointnav"
    """TensorBoard logs, checkpoints and the final curve go here."""
    eval_every: int = 0
    """Updates between validations over val_dataset (every episode once; 0: never)."""
    eval_envs: int = 64
    """Environments of the evaluation simulator."""
    real_buildings: str | None = None
    """A folder for `batchsim zero-shot`'s real-building split (made there on first use,
    seed 0), evaluated with val_dataset at every validation; val.csv gets its measures as
    real_success, real_spl, ... (None: no real-building curve)."""
    real_episodes: int = 1000
    """Episodes of that split (the zero-shot protocol's 1,000 by default)."""
    checkpoint_every: int = 100
    """Updates between checkpoints (0: only at the end). Each begins a new segment: every
    environment starts a fresh episode, so that resuming is exact."""
    extra: dict = field(default_factory=dict)
    """Free-form notes recorded with the run."""

    def validate(self) -> None:
        choices = {
            "optimizer": ("lamb", "adam"),
            "encoder": ("se_resnet9", "simple_cnn"),
            "rnn": ("lstm", "gru"),
            "precision": ("bf16", "fp16", "fp32"),
            "backend": ("auto", "raster", "compute"),
            "compile_encoder": ("auto", "on", "off"),
        }
        for name, allowed in choices.items():
            if getattr(self, name) not in allowed:
                raise ValueError(
                    f"{name}: expected one of {list(allowed)}, got {getattr(self, name)!r}"
                )
        positive = (
            "num_envs",
            "resolution",
            "total_frames",
            "rollout_steps",
            "epochs",
            "minibatches",
            "hidden_size",
            "rnn_layers",
            "scenes_resident",
            "max_episode_steps",
        )
        for name in positive:
            if getattr(self, name) < 1:
                raise ValueError(f"{name}: expected >= 1, got {getattr(self, name)}")
        if self.steps_per_scene <= self.max_episode_steps + 1:
            raise ValueError(
                f"steps_per_scene: expected more than max_episode_steps + 1 "
                f"({self.max_episode_steps + 1}), got {self.steps_per_scene}"
            )
        if self.pipeline and self.num_envs % 2:
            raise ValueError(
                f"num_envs: expected an even number with pipeline=True, got {self.num_envs}"
            )
        self.training_task()  # each checks its own randomisation fields
        self.sensor_noise()
        check_curriculum(self.curriculum_start_m, self.curriculum_frames)
        if self.cpca_steps < 0 or self.cpca_steps >= self.rollout_steps:
            raise ValueError(
                f"cpca_steps: expected 0 (off) up to rollout_steps - 1 "
                f"({self.rollout_steps - 1}), got {self.cpca_steps}"
            )
        if self.cpca_steps and not self.cpca_coef > 0:
            raise ValueError(f"cpca_coef: expected > 0 with cpca_steps, got {self.cpca_coef}")
        if self.plain_lr is not None and not self.plain_lr > 0:
            raise ValueError(f"plain_lr: expected None or > 0, got {self.plain_lr}")
        if self.minibatches > self.num_envs:
            raise ValueError(
                f"minibatches: expected at most num_envs ({self.num_envs}), got {self.minibatches}"
            )

    def training_task(self):
        """The training environments' TaskConfig: the episode limit and actuation noise."""
        from batchsim.options import TaskConfig

        return TaskConfig(
            max_episode_steps=self.max_episode_steps,
            forward_noise=self.forward_noise,
            turn_noise=self.turn_noise,
            camera_height_jitter=self.camera_height_jitter,
        )

    def sensor_noise(self):
        """The training environments' batchsim.SensorNoise."""
        from batchsim.sensor_noise import SensorNoise

        return SensorNoise(
            depth_noise=self.depth_noise,
            depth_edge_dropout=self.depth_edge_dropout,
            rgb_jitter=self.rgb_jitter,
            fov_jitter_degrees=self.fov_jitter_degrees,
        )

    def load_split(self, path: str):
        """The PointNav split at `path` with its scenes resolved against scenes_dir."""
        from batchsim.datasets import load_pointnav

        return load_pointnav(path, scenes_dir=self.scenes_dir)

    @property
    def frames_per_update(self) -> int:
        return self.num_envs * self.rollout_steps

    @property
    def total_updates(self) -> int:
        return max(1, self.total_frames // self.frames_per_update)


# The GPU presets' recipe. Policy inference is launch-bound on an H100: a rollout step
# costs the same ~6 ms at N = 1,024 and 4,096, so N = 4,096 gives 4x the frames per second
# for the same number of updates (benchmarks/RESULTS.md, "the recipe's batch size"). 16 slots
# per half moving on every 600 steps let a rollout see 32 scenes and 10M frames ~130 new ones.
# CPC|A-16: the real-building targets were met with it, at 1% of the update's time
# (RESULTS.md, "CPC|A and CUDA-graph inference").
GPU_RECIPE = {"num_envs": 4096, "scenes_resident": 16, "steps_per_scene": 600, "cpca_steps": 16}

PRESETS = {
    "pointnav-depth": GPU_RECIPE,
    "pointnav-rgb": GPU_RECIPE | {"sensors": ("rgb",)},
    # Minutes on a laptop CPU with lavapipe: small views, a small network, a short run.
    "demo": {
        "dataset": "data/procgen-demo/pointnav/train",
        "val_dataset": "data/procgen-demo/pointnav/val",
        "num_envs": 32,
        "resolution": 32,
        "scenes_resident": 2,
        "max_episode_steps": 150,
        "total_frames": 250_000,
        "rollout_steps": 32,
        "encoder": "simple_cnn",
        "rnn": "gru",
        "hidden_size": 128,
        "rnn_layers": 1,
        "optimizer": "adam",
        "base_lr": 1e-3,
        "warmup_updates": 5,
        "precision": "fp32",
        "eval_envs": 32,
        "log_dir": "runs/demo",
        "checkpoint_every": 0,
    },
}


_OPTIONAL_NUMBERS = {"float | None": float, "int | None": int}


def _coerce(current, text: str, declared: str = ""):
    """`text` as the type of the field's current value (or, for None, its declared type)."""
    if current is None and declared in _OPTIONAL_NUMBERS and text.lower() != "none":
        return _OPTIONAL_NUMBERS[declared](text)
    if isinstance(current, bool):
        return text.lower() in ("1", "true", "yes")
    if isinstance(current, tuple):
        return tuple(s for s in text.split(",") if s)
    if current is None or isinstance(current, str):
        return None if text.lower() == "none" else text
    return type(current)(text)


def make_config(
    preset: str = "pointnav-depth",
    file: str | Path | None = None,
    overrides: list[str] | None = None,
) -> TrainConfig:
    """A preset, then a JSON file's fields, then ``key=value`` overrides; validated."""
    if preset not in PRESETS:
        raise ValueError(f"preset: expected one of {sorted(PRESETS)}, got {preset!r}")
    config = dataclasses.replace(TrainConfig(), **PRESETS[preset])
    declared = {f.name: str(f.type) for f in dataclasses.fields(TrainConfig)}
    names = set(declared)
    if file is not None:
        values = json.loads(Path(file).read_text())
        unknown = sorted(set(values) - names)
        if unknown:
            raise ValueError(f"{file}: unknown fields {unknown}")
        values = {k: tuple(v) if isinstance(v, list) else v for k, v in values.items()}
        config = dataclasses.replace(config, **values)
    for item in overrides or []:
        key, sep, value = item.partition("=")
        if not sep or key not in names:
            raise ValueError(
                f"override: expected field=value with a field of TrainConfig, got {item!r}"
            )
        config = dataclasses.replace(
            config, **{key: _coerce(getattr(config, key), value, declared[key])}
        )
    config.validate()
    return config
