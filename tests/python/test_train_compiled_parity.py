"""The compiled encoder (TrainConfig.compile_encoder) computes what the eager one does, as
the trainer calls it: rollout inference by halves and the bootstrap with all environments
(`acting.act`, no grad), then PPO's minibatch loss (`ppo.minibatch_loss`, through
`ppo.evaluate`) and every gradient, then a LAMB step that the compiled graphs must see.

Each case is a policy compiled by `compiled.compile_encoder` and its eager twin with the same
weights: fp32 (tight tolerances) and bf16 autocast with channels-last, as the trainer runs on
CUDA (bf16 tolerances, below). CPU cases run Inductor's C++ backend in CI: each compiles
its three graphs once, ~1 min of CPU time a case on the 2-core VM (seconds again from
Inductor's on-disk cache). CUDA cases (Triton, cuDNN, the CUDA-graph capture of acting) run
where a GPU is, through scripts/gpu-check.sh (with test_train_compiled_trainer.py)."""

from __future__ import annotations

import statistics
from dataclasses import dataclass

import pytest

torch = pytest.importorskip("torch")

from batchsim.env import POINTGOAL  # noqa: E402
from batchsim.train import compiled  # noqa: E402
from batchsim.train.acting import GraphedAct, act  # noqa: E402
from batchsim.train.lamb import Lamb, lamb_groups  # noqa: E402
from batchsim.train.models import Policy, preprocess  # noqa: E402
from batchsim.train.ppo import PPOSettings, minibatch_loss  # noqa: E402
from batchsim.train.storage import RolloutStorage  # noqa: E402

STEPS, ENVS, SIZE, HIDDEN = 4, 8, 64, 32  # 64x64: the presets' views
HALVES = (slice(0, ENVS // 2), slice(ENVS // 2, ENVS))
MINIBATCH = torch.arange(ENVS // 2)  # one of the update's two minibatches
# bf16 keeps 8 significant bits: one rounding moves a value by up to 2^-8 of itself. Eager
# and compiled round at different points (Inductor keeps a fused chain in fp32 on CUDA), so
# each output may differ by a few such roundings: 4 of them bound the observed differences
# (CPU: ~1 ulp of the outputs) with margin and catch anything that is not rounding.
BF16_EPS = 2.0**-8
FP32_RTOL = 1e-5  # fp32 outputs: Inductor may reorder sums (~1e-7 relative)


class CountingInductor:
    """Inductor, counting the graphs it compiles and the forward calls that run them."""

    def __init__(self):
        self.graphs, self.calls = 0, 0

    def __call__(self, graph, example_inputs):
        from torch._inductor.compile_fx import compile_fx

        self.graphs += 1
        run = compile_fx(graph, example_inputs)

        def counted(*args):
            self.calls += 1
            return run(*args)

        return counted


@dataclass
class Pair:
    compiled: Policy
    eager: Policy
    settings: PPOSettings
    backend: CountingInductor
    device: torch.device

    @property
    def bf16(self) -> bool:
        return self.settings.autocast_dtype is not None

    def sync(self) -> None:
        """The eager twin takes the compiled policy's current weights."""
        self.eager.load_state_dict(self.compiled.state_dict())


CASES = [
    ("cpu", None, False),
    ("cpu", torch.bfloat16, True),
    ("cuda", None, True),
    ("cuda", torch.bfloat16, True),
]


def _case_id(case) -> str:
    device, dtype, channels_last = case
    precision = "bf16" if dtype is not None else "fp32"
    return f"{device}-{precision}" + ("-channels_last" if channels_last else "")


def _policy(device, channels_last: bool) -> Policy:
    """The GPU recipe's heads at a small size; Fixup's zeros and the actor's small gain moved
    as training moves them (at initialisation the second convolutions are zero, which hides
    half the encoder's gradients, and the logits are all ~0)."""
    torch.manual_seed(0)
    policy = Policy(
        "se_resnet9",
        1,
        hidden=HIDDEN,
        layers=1,
        cpca_steps=2,
        inverse_dynamics=True,
        temporal_distance=True,
        value_normalization=True,
    )
    with torch.no_grad():
        for block in policy.encoder.features:
            if hasattr(block, "conv2"):
                block.conv2.weight.normal_(0, 0.05)
                block.bias.normal_(0, 0.1)
                block.scale.fill_(1.2)
        policy.actor.weight.normal_(0, 0.3)
    policy = policy.to(device)
    if channels_last:
        policy.use_channels_last()
    return policy


def _collect(policy: Policy, settings: PPOSettings, device, seed: int = 1) -> RolloutStorage:
    """A rollout as Trainer.collect makes it: each step by halves, then the bootstrap value
    with all environments; observations and episode ends from a seeded stream."""
    shapes = {"depth": ((1, SIZE, SIZE), torch.float32), POINTGOAL: ((2,), torch.float32)}
    storage = RolloutStorage(STEPS, ENVS, shapes, (policy.state_layers, ENVS, HIDDEN), device)
    stream = torch.Generator().manual_seed(seed)
    storage.obs["depth"][0] = (torch.rand(ENVS, 1, SIZE, SIZE, generator=stream) * 12).to(device)
    storage.obs[POINTGOAL][0] = (torch.rand(ENVS, 2, generator=stream) * 5).to(device)
    torch.manual_seed(seed)
    state = storage.initial_state.clone()
    for t in range(STEPS):
        for envs in HALVES:
            n = envs.stop - envs.start
            obs = {k: v[t, envs] for k, v in storage.obs.items()}
            inputs = (obs, storage.previous_action[t, envs], state[:, envs])
            action, log_prob, value, state[:, envs] = act(
                policy, settings, *inputs, storage.masks[t, envs][None]
            )
            done = (torch.rand(n, generator=stream) < 0.2).to(device)
            reward = (action == 1).float() - 0.01
            storage.insert_step(t, action, log_prob, value, reward, done.float(), envs)
            following = {
                "depth": torch.rand(n, 1, SIZE, SIZE, generator=stream).to(device) * 12,
                POINTGOAL: torch.rand(n, 2, generator=stream).to(device) * 5,
            }
            previous = torch.where(done, torch.full_like(action, 4), action)
            storage.insert_observation(t + 1, following, previous, (~done).float(), envs)
    last = {k: v[STEPS] for k, v in storage.obs.items()}
    bootstrap = (last, storage.previous_action[STEPS], state.clone(), storage.masks[STEPS][None])
    _, _, last_value, _ = act(policy, settings, *bootstrap)
    storage.compute_returns(last_value, 0.99, 0.95)
    return storage


def _loss_and_grads(policy: Policy, storage, settings):
    """The update's first minibatch: the loss's parts and every parameter's gradient. The
    auxiliary heads' draws (CPC|A's negatives, temporal distance's pairs) from a fixed seed."""
    policy.zero_grad(set_to_none=True)
    torch.manual_seed(2)
    out = minibatch_loss(policy, storage, MINIBATCH, storage.advantages, settings)
    out.loss.backward()
    grads = {name: p.grad.detach().clone() for name, p in policy.named_parameters()}
    parts = {
        "loss": out.loss,
        "log_probs": out.log_probs,
        "entropy": out.entropy,
        "ratio": out.ratio,
        **{f"aux_{name}": value for name, value in out.auxiliaries.items()},
    }
    return {k: v.detach().float() for k, v in parts.items()}, grads


@pytest.fixture(scope="module", params=CASES, ids=_case_id)
def pair(request) -> Pair:
    device, dtype, channels_last = request.param
    if device == "cuda":
        if not torch.cuda.is_available():
            pytest.skip("needs a CUDA GPU")
        if compiled.inductor_works("cuda") is not None:
            pytest.skip(compiled.inductor_works("cuda"))
    settings = PPOSettings(
        autocast_dtype=dtype, inverse_dynamics_coef=0.1, temporal_distance_coef=0.1
    )
    if device == "cuda" and dtype is None:  # fp32 means fp32: no TF32 convolutions
        tf32, torch.backends.cudnn.allow_tf32 = torch.backends.cudnn.allow_tf32, False
        request.addfinalizer(lambda: setattr(torch.backends.cudnn, "allow_tf32", tf32))
    # Dynamo keeps the graphs of all instances under SEResNet9.forward, at most
    # recompile_limit (8) in all; past it, calls run eagerly without a word. Each case (3
    # graphs) starts from an empty cache.
    torch._dynamo.reset()
    backend = CountingInductor()
    policy = _policy(device, channels_last)
    compiled.compile_encoder(policy, backend=backend)
    # The trainer's calls once (a rollout, an update's minibatch): each test finds the graphs.
    _loss_and_grads(policy, _collect(policy, settings, device), settings)
    return Pair(policy, _policy(device, channels_last), settings, backend, torch.device(device))


def relative(got: torch.Tensor, want: torch.Tensor) -> float:
    """Norm-wise relative difference (0 where both are zero)."""
    scale = want.float().norm()
    difference = (got.float() - want.float()).norm()
    return float(difference / scale) if scale > 0 else float(difference)


def _assert_close_outputs(pair: Pair, got: dict, want: dict) -> None:
    for name in want:
        if pair.bf16:
            assert relative(got[name], want[name]) <= 4 * BF16_EPS, name
        else:
            torch.testing.assert_close(got[name], want[name], rtol=FP32_RTOL, atol=1e-6)


def _assert_one_graph_per_call_pattern(pair: Pair) -> None:
    """Three graphs: a half's inference, the bootstrap's (all environments), the update's
    minibatch (with grad). More would be a graph break or a recompile (e.g. on new weights,
    were parameters baked in as constants); fewer, a call that did not run compiled."""
    assert pair.backend.graphs == 3


def test_rollouts_match_eager_and_the_first_ratio_is_one(pair):
    """The acting forward (no grad) of the compiled policy equals eager's; and the update's
    forward (with grad) gives the stored actions the log-probabilities acting gave them, so
    PPO's ratio starts at 1 (up to rounding: one step at a time and in T-step sequences are
    different batches and LSTM calls, eager too)."""
    pair.sync()
    calls = pair.backend.calls
    got = _collect(pair.compiled, pair.settings, pair.device)
    want = _collect(pair.eager, pair.settings, pair.device)
    assert pair.backend.calls - calls == 2 * STEPS + 1  # every call ran the compiled graphs
    _assert_one_graph_per_call_pattern(pair)
    agree = (got.actions == want.actions).float().mean().item()
    assert agree >= (0.95 if pair.bf16 else 1.0)
    same = got.actions == want.actions  # a flipped near-tie changes its log-probability
    if pair.bf16:
        assert relative(got.log_probs[same], want.log_probs[same]) <= 4 * BF16_EPS
        assert relative(got.values, want.values) <= 4 * BF16_EPS
    else:
        torch.testing.assert_close(got.log_probs, want.log_probs, rtol=FP32_RTOL, atol=1e-6)
        torch.testing.assert_close(got.values, want.values, rtol=FP32_RTOL, atol=1e-6)

    # PPO's first ratio, max |ratio - 1|, compiled and eager, each on its own rollout. With
    # grad, as the update calls it (a no-grad call would be a graph of its own).
    deviation = {}
    for name, policy, storage in (("compiled", pair.compiled, got), ("eager", pair.eager, want)):
        out = minibatch_loss(policy, storage, MINIBATCH, storage.advantages, pair.settings)
        deviation[name] = (out.ratio.detach() - 1).abs().max().item()
    # fp32: both equal 1 to ~1e-7. bf16: log-probabilities of O(1) logits a few roundings off.
    bound = 4 * BF16_EPS if pair.bf16 else 1e-5
    assert max(deviation.values()) <= bound, deviation


def test_the_encoder_gives_eager_dtypes_and_values(pair):
    """The embeddings themselves, as acting calls the encoder (no grad, autocast without
    its weight cache): bf16 under bf16 autocast, fp32 otherwise, both ways."""
    pair.sync()
    storage = _collect(pair.eager, pair.settings, pair.device)
    depth = {"depth": storage.obs["depth"][0, HALVES[0]]}
    visual = preprocess(depth, pair.settings.max_depth, pair.settings.depth_bins)
    if pair.compiled.channels_last:
        visual = visual.contiguous(memory_format=torch.channels_last)
    dtype = pair.settings.autocast_dtype
    context = dict(dtype=dtype or torch.float32, enabled=pair.bf16, cache_enabled=False)
    with torch.no_grad(), torch.autocast(pair.device.type, **context):
        got, want = pair.compiled.encoder(visual), pair.eager.encoder(visual)
    assert got.dtype == want.dtype == (dtype or torch.float32)
    bound = 4 * BF16_EPS if pair.bf16 else FP32_RTOL
    assert relative(got, want) <= bound
    _assert_one_graph_per_call_pattern(pair)


def test_the_update_loss_and_every_gradient_match_eager(pair):
    """PPO's minibatch loss, its parts and each parameter's gradient. fp32: compiled equals
    eager to rounding. bf16: see _assert_bf16_gradients."""
    pair.sync()
    storage = _collect(pair.eager, pair.settings, pair.device)
    got, got_grads = _loss_and_grads(pair.compiled, storage, pair.settings)
    want, want_grads = _loss_and_grads(pair.eager, storage, pair.settings)
    _assert_one_graph_per_call_pattern(pair)
    _assert_close_outputs(pair, got, want)
    if pair.bf16:
        full = PPOSettings(inverse_dynamics_coef=0.1, temporal_distance_coef=0.1)
        _, reference = _loss_and_grads(pair.eager, storage, full)
        _assert_bf16_gradients(got_grads, want_grads, reference)
    else:
        for name, grad in want_grads.items():
            assert relative(got_grads[name], grad) <= 1e-4, name


def _assert_bf16_gradients(compiled_grads: dict, eager_grads: dict, reference: dict) -> None:
    """bf16 gradients against fp32's (`reference`, same weights and batch). Per tensor,
    bf16's error is noise: eager's reaches 0.15 of the norm on the encoder's first stages
    here (0.38 on CPC|A's GRU, which is not compiled), and compiled's lands above or below
    eager's by chance (0.1x-6x per tensor, median 0.9x, over six batches on the CPU). So each
    compiled gradient must point where fp32's does (error at most 0.3, or twice eager's), and
    over all tensors compiled must be no less accurate than eager (median ratio <= 1.25)."""
    compiled_errors = {n: relative(compiled_grads[n], g) for n, g in reference.items()}
    eager_errors = {n: relative(eager_grads[n], g) for n, g in reference.items()}
    for name, error in compiled_errors.items():
        assert error <= max(0.3, 2 * eager_errors[name]), (name, error, eager_errors[name])
    ratios = [compiled_errors[n] / eager_errors[n] for n in reference if eager_errors[n] > 0]
    assert statistics.median(ratios) <= 1.25, sorted(ratios)


def test_the_compiled_graphs_see_each_optimizer_step(pair):
    """After LAMB steps the compiled graphs (with and without grad) compute with the new
    weights: not stale ones, and not recompiled for them."""
    pair.sync()
    storage = _collect(pair.eager, pair.settings, pair.device)
    before, _ = _loss_and_grads(pair.compiled, storage, pair.settings)
    optimizer = Lamb(lamb_groups(pair.compiled, ("actor", "critic")), lr=0.05)
    for _ in range(2):
        _loss_and_grads(pair.compiled, storage, pair.settings)
        optimizer.step()
    pair.sync()
    got, _ = _loss_and_grads(pair.compiled, storage, pair.settings)
    want, _ = _loss_and_grads(pair.eager, storage, pair.settings)
    assert relative(got["log_probs"], before["log_probs"]) > 0.01  # the steps moved it
    _assert_close_outputs(pair, got, want)
    # The no-grad graphs: a rollout by the stepped weights, compiled against eager.
    got_rollout = _collect(pair.compiled, pair.settings, pair.device)
    want_rollout = _collect(pair.eager, pair.settings, pair.device)
    bound = 4 * BF16_EPS if pair.bf16 else FP32_RTOL
    assert relative(got_rollout.values, want_rollout.values) <= bound
    _assert_one_graph_per_call_pattern(pair)


def test_graphed_acting_with_the_compiled_encoder_sees_the_encoders_steps(pair):
    """acting.GraphedAct captures the compiled encoder's kernels in a CUDA graph: its replays
    must read the encoder's weights where the optimizer changes them."""
    if pair.device.type != "cuda":
        pytest.skip("CUDA graphs need a CUDA GPU")
    pair.sync()
    storage = _collect(pair.eager, pair.settings, pair.device)
    envs = HALVES[0]
    inputs = (
        {k: v[1, envs] for k, v in storage.obs.items()},
        storage.previous_action[1, envs],
        torch.randn(pair.compiled.state_layers, ENVS // 2, HIDDEN, device=pair.device),
        storage.masks[1, envs][None],
    )
    graphed = GraphedAct(pair.compiled, pair.settings, *inputs)
    optimizer = Lamb(lamb_groups(pair.compiled, ("actor", "critic")), lr=0.05)
    bound = 4 * BF16_EPS if pair.bf16 else FP32_RTOL
    values = []
    for step in range(3):
        _, _, value, state = graphed(*inputs)
        _, _, want_value, want_state = act(pair.eager, pair.settings, *inputs)
        assert relative(value, want_value) <= bound, step
        assert relative(state, want_state) <= bound, step
        values.append(value)
        _loss_and_grads(pair.compiled, storage, pair.settings)
        optimizer.step()
        pair.sync()
    assert relative(values[-1], values[0]) > 10 * bound  # the steps moved the replay
    _assert_one_graph_per_call_pattern(pair)
