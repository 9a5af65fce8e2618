"""The trainer's configuration: one dataclass with a docstring per field, and its checks.
The simulator's settings are its own value types, composed (sim: SimConfig with its task,
render: RenderOptions, sensor_noise: SensorNoise; batchsim.train.sim_parts): their defaults
and each field's own checks live with those types. Each trainer field declares what it takes
once, beside it (batchsim.train.fields: the type from the annotation, the range or choices
from its rule); validate() checks every field that way, then what relates fields. Named
presets and overrides from files and the command line: batchsim.train.presets."""

from __future__ import annotations

from dataclasses import dataclass, field

from batchsim.errors import InvalidArgumentError
from batchsim.options import (
    RenderOptions,
    SimConfig,
    check_resolution,
    check_sensors,
    sensors_of,
)
from batchsim.sensor_noise import SensorNoise
from batchsim.simulator import DEVICE_PATTERN, DEVICE_WORDS
from batchsim.train.curriculum import check_curriculum
from batchsim.train.fields import (
    INT32_MAX,
    above,
    at_least,
    check_fields,
    checked,
    matching,
    one_of,
    path,
    within,
)

SEED_MAX = 2**32 - 1  # segment seeds multiply the seed into the simulator's 64 bits


def _training_sim() -> SimConfig:
    """SimConfig's defaults but for the batch: 1,024 environments keep a GPU busy, and 4
    scenes per half give a rollout variety (SimConfig's 1 and 1 suit one environment)."""
    return SimConfig(num_envs=1024, scenes_resident=4)


@dataclass
class TrainConfig:
    """Large-batch PPO for PointNav (the paper's recipe by default)."""

    dataset: str = checked("data/procgen/pointnav/train", path())
    """Training split: a PointNav-v1 split directory or .json.gz file."""
    val_dataset: str = checked("data/procgen/pointnav/val", path())
    """Validation split for `batchsim eval` and the learning curve."""
    scenes_dir: str | None = checked(None, path())
    """Folder the splits' scene_ids resolve against, as Habitat's SCENES_DIR (a leading
    "data/scene_datasets/" is replaced by it), e.g. OUT of `batchsim import-dataset`; None:
    scene_ids as they are, or batchsim's layout beside the split."""
    sim: SimConfig = field(default_factory=_training_sim)
    """The simulation (batchsim.SimConfig; its task a TaskConfig: episode limit, actuation
    noise): num_envs is the environments each process steps (N, split between the pipelined
    halves), scenes_resident the scenes each half keeps in memory (K, at most its
    environments), seed seeds the simulators and torch (at most 2**32 - 1: segment seeds
    multiply it into the simulator's 64 bits). The task's noise randomises training only."""
    render: RenderOptions = field(default_factory=RenderOptions)
    """The views the policy sees (batchsim.RenderOptions: depth and/or rgb, width x height,
    backend "raster", "compute" or "auto" (see batchsim doctor))."""
    sensor_noise: SensorNoise = field(default_factory=SensorNoise)
    """Randomisation of the training views (batchsim.SensorNoise; evaluation stays noiseless)."""
    device: str | None = checked(None, matching(DEVICE_PATTERN, DEVICE_WORDS))
    """"cpu", "cuda:N" or None (CUDA where the Vulkan device is an NVIDIA GPU): the trainer's
    own, where the policy, rollouts and learner live and the process count comes from; its
    simulators are handed it, to export their views there."""
    curriculum_start_m: float | None = checked(None, at_least(0, note="0: off"))
    """Curriculum over geodesic distance: train first on episodes of at most this many metres,
    where successes by chance come early, a limit that grows geometrically to the split's
    longest over curriculum_frames (batchsim.train.curriculum). None or 0: off."""
    curriculum_frames: int = checked(20_000_000, at_least(1))
    """Frames of all ranks over which the curriculum's limit grows; then it is lifted."""
    pipeline: bool = checked(True)
    """Two half-batch simulators, one simulating while the policy acts for the other."""
    num_gpus: int = checked(0, at_least(0, 65536, note="0: every GPU"))
    """Training processes, one per GPU, started by torch.distributed.run
    (batchsim.train.launch): 0 = every GPU torch can see; without CUDA or with device="cpu",
    1 unless set (then N CPU processes with Gloo). An outer torchrun or Slurm decides instead."""
    auto_threads: bool = checked(True)
    """Simulation threads per process from the cores this process may run on (its affinity)
    shared among the processes on this node, less cores other programs keep busy
    (batchsim.train.cpus); False: sim.num_threads. Setting sim.num_threads in a --config file
    or an override turns it off."""
    total_frames: int = checked(50_000_000, at_least(1))
    """Environment steps to train for, over all environments of all processes; the learning
    rate's cosine ends there (batchsim.train.schedule)."""
    rollout_steps: int = checked(32, at_least(1))
    """Steps per rollout (T)."""
    epochs: int = checked(1, at_least(1))
    """PPO epochs per rollout."""
    minibatches: int = checked(2, at_least(1))
    """Minibatches per epoch (environments split into groups)."""
    gamma: float = checked(0.99, within(0, 1))
    """Discount."""
    gae_lambda: float = checked(0.95, within(0, 1))
    """GAE's lambda."""
    clip: float = checked(0.2, above(0))
    """PPO's ratio clip."""
    value_coef: float = checked(0.5, at_least(0))
    """Weight of the value loss."""
    entropy_coef: float = checked(0.01, at_least(0))
    """Weight of the entropy bonus (at the start, with entropy_coef_final)."""
    entropy_coef_final: float | None = checked(None, at_least(0))
    """Weight of the entropy bonus at total_frames, reached linearly from entropy_coef over
    the frames trained (batchsim.train.schedule.anneal): much exploration early, a sharper
    policy late. None: entropy_coef throughout."""
    max_grad_norm: float = checked(1.0, above(0))
    """Gradient norm clip."""
    normalize_advantage: bool = checked(False)
    """Standardise each rollout's advantages (mean 0, std 1) before the policy loss. Off, as
    in Habitat's DD-PPO and bps-nav: standardising blows the early, tiny advantages up to
    unit size, and the policy collapsed onto STOP on generator v6."""
    value_normalization: bool = checked(False)
    """PopArt (batchsim.train.value_norm): the critic learns returns normalised by running
    statistics, its values are de-normalised wherever used (rollout, bootstrap, GAE), and its
    last layer is rescaled when the statistics move so that they do not jump. Returns grow
    from ~0 to 15-20 over training; normalised, the value loss keeps one scale beside the
    policy loss under the clipped gradient norm. False: raw returns."""
    value_norm_decay: float = checked(0.99, within(0, 1, open_=True))
    """Per-update decay of value normalisation's moving averages of the returns' first and
    second moments (0.99: mostly the last ~100 updates)."""
    optimizer: str = checked("lamb", one_of("lamb", "adam"))
    """"lamb" or "adam"."""
    base_lr: float = checked(2.5e-4, above(0))
    """Learning rate at 256 frames per minibatch; scaled by sqrt(global frames per minibatch /
    256), the minibatch summed over processes (batchsim.train.schedule)."""
    plain_lr: float | None = checked(None, above(0))
    """LAMB only: the rate of the parameters it steps as plain Adam, without the trust ratio
    (biases, scalars, the actor and critic heads); None: base_lr, unscaled. Adam moves each
    element by about the rate, so a 512-wide actor at the scaled 4e-3 shifts its logits by
    ~1 per step and collapses onto STOP within 30 updates."""
    warmup_frames: int = checked(6_553_600, at_least(0))
    """Linear learning-rate warm-up over this many global frames (50 updates of the GPU
    presets on one GPU); a cosine decay to zero at total_frames follows."""
    encoder: str = checked("se_resnet9", one_of("se_resnet9", "simple_cnn"))
    """"se_resnet9" (SE-ResNet9, Fixup, no normalisation) or "simple_cnn"."""
    rnn: str = checked("lstm", one_of("lstm", "gru"))
    """"lstm" or "gru"."""
    hidden_size: int = checked(512, at_least(1))
    """Width of the encoder output and the recurrent core."""
    rnn_layers: int = checked(2, at_least(1))
    """Recurrent layers."""
    max_depth: float = checked(10.0, above(0))
    """Depth is clamped to this many metres, then scaled to [0, 1]."""
    depth_bins: int = checked(0, at_least(0, note="0: none"))
    """One-hot depth-bin channels added to the depth channel (0: none)."""
    cpca_steps: int = checked(0, at_least(0, note="0: off"))
    """Horizon k of the CPC|A auxiliary loss (batchsim.train.auxiliary): the recurrent
    core's belief, rolled forward by the actions taken, must recognise the next k steps'
    views. 0: no auxiliary loss."""
    cpca_coef: float = checked(0.1, at_least(0))
    """Weight of the CPC|A loss beside the PPO losses."""
    inverse_dynamics_coef: float = checked(0.0, at_least(0, note="0: off"))
    """Weight of the inverse-dynamics auxiliary loss (batchsim.train.inverse_dynamics): a
    head predicts each action from the visual embeddings before and after it, teaching the
    encoder what moving and turning change in the view. 0: no head."""
    temporal_distance_coef: float = checked(0.0, at_least(0, note="0: off"))
    """Weight of the temporal-distance auxiliary loss (batchsim.train.temporal_distance): a
    head regresses the step distance between two views of an episode from them and the
    belief, teaching the recurrent core how long ago it passed what it saw. 0: no head."""
    precision: str = checked("bf16", one_of("bf16", "fp16", "fp32"))
    """"bf16", "fp16" or "fp32" (mixed precision on CUDA; the CPU always uses fp32)."""
    cuda_graphs: bool = checked(True)
    """On CUDA, rollout inference replays one captured CUDA graph per pipelined half instead
    of launching the policy's kernels one by one (batchsim.train.acting): 1.55x the frames
    per second of the eager path on an H100. No effect on the
    CPU."""
    compile_encoder: str = checked("off", one_of("auto", "on", "off"))
    """torch.compile the visual encoder (Inductor fuses the SE-ResNet's elementwise work):
    "on", "off" or "auto" (on where CUDA and a working Inductor are, checked at start with a
    tiny kernel; else eager). ~35 s of compiling at the start; updates 1.3x faster on an
    H100, but in two seeds of 600 updates it learned more slowly than eager (val success 0.24
    and 0.26 against 0.49 and 0.39), so it is off until that is understood."""
    overlap_update: bool = checked(False)
    """Run each PPO update on a worker thread while the next rollout is collected with the
    weights from before it (batchsim.train.overlap): the behaviour policy lags the learner by
    one update. False: strictly on-policy, collection and update in turn."""
    log_dir: str = checked("runs/pointnav", path())
    """TensorBoard logs, checkpoints and the final curve go here."""
    eval_every: int = checked(0, at_least(0, note="0: never"))
    """Updates between validations over val_dataset (every episode once; 0: never)."""
    eval_envs: int = checked(64, at_least(1, INT32_MAX))
    """Environments of the evaluation simulator."""
    eval_episodes_per_scene: int = checked(0, at_least(0, note="0: all"))
    """Evaluation (validation here, and `batchsim eval --episodes-per-scene`) runs the first
    K episodes of each scene of a split, in its order (0: all): 10 per scene of the 100 val
    or test scenes of a 1,000-scene procgen dataset are the protocol's 1,000 episodes."""
    real_buildings: str | None = checked(None, path())
    """A folder for `batchsim zero-shot`'s real-building split (made there on first use,
    seed 0), evaluated with val_dataset at every validation; val.csv gets its measures as
    real_success, real_spl, ... (None: no real-building curve)."""
    real_episodes: int = checked(1000, at_least(1))
    """Episodes of that split (the zero-shot protocol's 1,000 by default)."""
    checkpoint_every: int = checked(100, at_least(0, note="0: only at the end"))
    """Updates between checkpoints (0: only at the end). Each begins a new segment: every
    environment starts a fresh episode, so that resuming is exact."""
    snapshot_every_s: float = checked(0.0, at_least(0, note="0: no snapshots"))
    """Seconds of elapsed time (since the command started) between policy snapshots for
    held-out curves, log_dir/snapshots/ (batchsim.train.snapshots; `batchsim eval
    --snapshots` evaluates them afterwards, costing the run no training time); also one at
    the start and at the end. 0: none."""
    extra: dict = field(default_factory=dict)
    """Free-form notes recorded with the run."""

    def validate(self) -> None:
        """InvalidArgumentError (a ValueError) naming the first field that breaks its own
        rule or a rule between fields."""
        check_fields(self)
        check_sensors(sensors_of(self.render))  # the owner's rules RenderOptions() leaves out
        check_resolution((self.render.height, self.render.width))
        if self.sim.seed > SEED_MAX:
            raise InvalidArgumentError(
                f"sim.seed: expected at most {SEED_MAX}, got {self.sim.seed}"
            )
        if self.render.final_views:
            raise InvalidArgumentError(
                "render.final_views: expected False (the trainer reads no final views: each "
                "would be a second render for nothing), got True"
            )
        if self.pipeline and self.num_envs % 2:
            raise InvalidArgumentError(
                f"sim.num_envs: expected an even number with pipeline=True, got {self.num_envs}"
            )
        check_curriculum(self.curriculum_start_m, self.curriculum_frames)
        if self.cpca_steps >= self.rollout_steps:
            raise InvalidArgumentError(
                f"cpca_steps: expected 0 (off) up to rollout_steps - 1 "
                f"({self.rollout_steps - 1}), got {self.cpca_steps}"
            )
        if self.cpca_steps and not self.cpca_coef > 0:
            raise InvalidArgumentError(
                f"cpca_coef: expected > 0 with cpca_steps, got {self.cpca_coef}"
            )
        for name in ("inverse_dynamics_coef", "temporal_distance_coef"):
            if getattr(self, name) > 0 and self.rollout_steps < 2:
                raise InvalidArgumentError(
                    f"{name}: expected rollout_steps >= 2 (pairs of steps) with the head on, "
                    f"got rollout_steps={self.rollout_steps}"
                )
        if self.minibatches > self.num_envs:
            raise InvalidArgumentError(
                f"minibatches: expected at most sim.num_envs ({self.num_envs}), got "
                f"{self.minibatches}"
            )

    def eval_task(self):
        """The training task without its randomisation: evaluation stays noiseless."""
        return self.sim.task.replace(forward_noise=0.0, turn_noise=0.0, camera_height_jitter=0.0)

    @property
    def num_envs(self) -> int:
        return self.sim.num_envs

    @property
    def sensors(self) -> tuple[str, ...]:
        return sensors_of(self.render)

    @property
    def explicit_threads(self) -> int:
        """sim.num_threads, or 0 where auto_threads picks them from the cores."""
        return 0 if self.auto_threads else self.sim.num_threads

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
