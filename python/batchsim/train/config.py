"""The trainer's configuration: one dataclass with a docstring per field, and its checks.
Named presets and overrides from files and the command line: batchsim.train.presets."""

from __future__ import annotations

import math
from dataclasses import dataclass, field

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
    """Environments stepped together (N) by each process."""
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
    num_gpus: int = 0
    """Training processes, one per GPU, started by torch.distributed.run
    (batchsim.train.launch): 0 = every GPU torch can see; without CUDA or with device="cpu",
    1 unless set (then N CPU processes with Gloo). An outer torchrun or Slurm decides instead."""
    num_threads: int = 0
    """Simulation threads per process; 0: the cores this process may run on (its affinity)
    shared among the processes on this node, less cores other programs keep busy
    (batchsim.train.cpus)."""
    total_frames: int = 50_000_000
    """Environment steps to train for, over all environments of all processes; the learning
    rate's cosine ends there (batchsim.train.schedule)."""
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
    """Weight of the entropy bonus (at the start, with entropy_coef_final)."""
    entropy_coef_final: float | None = None
    """Weight of the entropy bonus at total_frames, reached linearly from entropy_coef over
    the frames trained (batchsim.train.schedule.anneal): much exploration early, a sharper
    policy late. None: entropy_coef throughout."""
    max_grad_norm: float = 1.0
    """Gradient norm clip."""
    normalize_advantage: bool = False
    """Standardise each rollout's advantages (mean 0, std 1) before the policy loss. Off, as
    in Habitat's DD-PPO and bps-nav: standardising blows the early, tiny advantages up to
    unit size, and the policy collapsed onto STOP on generator v6 (benchmarks/RESULTS.md)."""
    value_normalization: bool = False
    """PopArt (batchsim.train.value_norm): the critic learns returns normalised by running
    statistics, its values are de-normalised wherever used (rollout, bootstrap, GAE), and its
    last layer is rescaled when the statistics move so that they do not jump. Returns grow
    from ~0 to 15-20 over training; normalised, the value loss keeps one scale beside the
    policy loss under the clipped gradient norm. False: raw returns."""
    value_norm_decay: float = 0.99
    """Per-update decay of value normalisation's moving averages of the returns' first and
    second moments (0.99: mostly the last ~100 updates)."""
    optimizer: str = "lamb"
    """"lamb" or "adam"."""
    base_lr: float = 2.5e-4
    """Learning rate at 256 frames per minibatch; scaled by sqrt(global frames per minibatch /
    256), the minibatch summed over processes (batchsim.train.schedule)."""
    plain_lr: float | None = None
    """LAMB only: the rate of the parameters it steps as plain Adam, without the trust ratio
    (biases, scalars, the actor and critic heads); None: base_lr, unscaled. Adam moves each
    element by about the rate, so a 512-wide actor at the scaled 4e-3 shifts its logits by
    ~1 per step and collapses onto STOP within 30 updates (benchmarks/RESULTS.md)."""
    warmup_frames: int = 6_553_600
    """Linear learning-rate warm-up over this many global frames (50 updates of the GPU
    presets on one GPU); a cosine decay to zero at total_frames follows."""
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
    inverse_dynamics_coef: float = 0.0
    """Weight of the inverse-dynamics auxiliary loss (batchsim.train.inverse_dynamics): a
    head predicts each action from the visual embeddings before and after it, teaching the
    encoder what moving and turning change in the view. 0: no head."""
    temporal_distance_coef: float = 0.0
    """Weight of the temporal-distance auxiliary loss (batchsim.train.temporal_distance): a
    head regresses the step distance between two views of an episode from them and the
    belief, teaching the recurrent core how long ago it passed what it saw. 0: no head."""
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
    eval_episodes_per_scene: int = 0
    """Evaluation (validation here, and `batchsim eval --episodes-per-scene`) runs the first
    K episodes of each scene of a split, in its order (0: all): 10 per scene of the 100 val
    or test scenes of a 1,000-scene procgen dataset are the protocol's 1,000 episodes."""
    real_buildings: str | None = None
    """A folder for `batchsim zero-shot`'s real-building split (made there on first use,
    seed 0), evaluated with val_dataset at every validation; val.csv gets its measures as
    real_success, real_spl, ... (None: no real-building curve)."""
    real_episodes: int = 1000
    """Episodes of that split (the zero-shot protocol's 1,000 by default)."""
    checkpoint_every: int = 100
    """Updates between checkpoints (0: only at the end). Each begins a new segment: every
    environment starts a fresh episode, so that resuming is exact."""
    snapshot_every_s: float = 0.0
    """Seconds of elapsed time (since the command started) between policy snapshots for
    held-out curves, log_dir/snapshots/ (batchsim.train.snapshots; `batchsim eval
    --snapshots` evaluates them afterwards, costing the run no training time); also one at
    the start and at the end. 0: none."""
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
        self._validate_recipe_options()
        if self.plain_lr is not None and not self.plain_lr > 0:
            raise ValueError(f"plain_lr: expected None or > 0, got {self.plain_lr}")
        for name in ("num_gpus", "num_threads", "warmup_frames", "eval_episodes_per_scene"):
            if getattr(self, name) < 0:
                raise ValueError(f"{name}: expected >= 0, got {getattr(self, name)}")
        if not 0 <= self.snapshot_every_s < float("inf"):
            raise ValueError(
                f"snapshot_every_s: expected seconds >= 0 (0: no snapshots), "
                f"got {self.snapshot_every_s}"
            )
        if self.minibatches > self.num_envs:
            raise ValueError(
                f"minibatches: expected at most num_envs ({self.num_envs}), got {self.minibatches}"
            )

    def _validate_recipe_options(self) -> None:
        """The auxiliary heads' weights, value normalisation and the entropy schedule."""
        for name in ("inverse_dynamics_coef", "temporal_distance_coef"):
            value = getattr(self, name)
            if not (math.isfinite(value) and value >= 0):
                raise ValueError(f"{name}: expected a finite number >= 0 (0: off), got {value}")
            if value > 0 and self.rollout_steps < 2:
                raise ValueError(
                    f"{name}: expected rollout_steps >= 2 (pairs of steps) with the head on, "
                    f"got rollout_steps={self.rollout_steps}"
                )
        if not 0.0 < self.value_norm_decay < 1.0:
            raise ValueError(
                f"value_norm_decay: expected a number in (0, 1), got {self.value_norm_decay}"
            )
        final = self.entropy_coef_final
        if final is not None and not (math.isfinite(final) and final >= 0):
            raise ValueError(
                f"entropy_coef_final: expected None or a finite number >= 0, got {final}"
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

    def load_eval_split(self, path: str):
        """load_split(), cut to eval_episodes_per_scene episodes per scene if set."""
        split = self.load_split(path)
        per_scene = self.eval_episodes_per_scene
        return split.first_per_scene(per_scene) if per_scene else split

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
