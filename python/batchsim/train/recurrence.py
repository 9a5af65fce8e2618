"""The recurrent core over T steps of N environments whose episodes end and begin inside
the rollout: the state is reset to zero where masks[t, n] is 0.

- ``stepwise``: one RNN call per step, the state masked in between (2 T small calls for a
  forward and backward pass: launch-bound on a GPU).
- ``by_segments``: every environment's steps cut at its episode starts; the segments,
  each starting from the carried state or from zero, run as one packed batch of sequences
  in a single cuDNN call. Same results up to float rounding (tests/python/test_train_ppo.py).

Both take x [T, N, F], the state as the RNN module wants it (a tensor, or (h, c) for an
LSTM), masks [T, N]; both return the outputs [T, N, H] and the state after step T - 1.
"""

from __future__ import annotations

import torch
from torch import nn
from torch.nn.utils.rnn import pack_padded_sequence, pad_packed_sequence


def _masked(state, keep: torch.Tensor):
    if isinstance(state, tuple):
        return tuple(part * keep.view(1, -1, 1) for part in state)
    return state * keep.view(1, -1, 1)


def _columns(state, index: torch.Tensor):
    if isinstance(state, tuple):
        return tuple(part[:, index] for part in state)
    return state[:, index]


def stepwise(rnn: nn.RNNBase, x: torch.Tensor, state, masks: torch.Tensor):
    outputs = []
    for t in range(x.shape[0]):
        out, state = rnn(x[t : t + 1], _masked(state, masks[t]))
        outputs.append(out)
    return torch.cat(outputs, 0), state


def _segment_plan(masks: torch.Tensor):
    """Where the segments of masks [T, N] lie: each (env, t)'s segment and position in it,
    each segment's environment and start step, and the lengths (on the masks' device)."""
    steps, n = masks.shape
    begins = (masks == 0).t().contiguous()  # [N, T]: env-major, so segments are contiguous
    begins[:, 0] = True
    begins = begins.flatten()
    segment = torch.cumsum(begins, 0) - 1  # the segment of each (env, t)
    first = torch.nonzero(begins).squeeze(1)  # [S] each segment's first (env, t)
    position = torch.arange(n * steps, device=masks.device) - first[segment]
    lengths = torch.bincount(segment, minlength=first.numel())
    return segment, position, first // steps, first % steps, lengths


def _plan_on(device: torch.device, host_masks: torch.Tensor):
    """The plan of host masks, its index tensors sent to `device` in one copy that waits for
    nothing on the stream (pinned memory); the lengths stay on the host for packing."""
    segment, position, env, start, lengths = _segment_plan(host_masks)
    if device.type != "cuda":
        return segment.to(device), position.to(device), env.to(device), start.to(device), lengths
    sizes = [segment.numel(), position.numel(), env.numel(), start.numel()]
    packed = torch.cat([segment, position, env, start]).pin_memory()
    return (*packed.to(device, non_blocking=True).split(sizes), lengths)


def by_segments(rnn: nn.RNNBase, x: torch.Tensor, state, masks: torch.Tensor, host_masks=None):
    """`host_masks`: a CPU copy of masks, if the caller has one: cuDNN wants the segment
    lengths on the host, and planning there spares two device-to-host waits per call."""
    steps, n = masks.shape
    if host_masks is not None:
        segment, position, env, start, lengths = _plan_on(x.device, host_masks)
    else:
        segment, position, env, start, lengths = _segment_plan(masks)
        lengths = lengths.cpu()
    count = env.numel()
    padded = x.new_zeros(steps, count, x.shape[-1])
    padded[position, segment] = x.transpose(0, 1).reshape(n * steps, -1)
    # A segment at t = 0 carries the rollout's state (zeroed if the episode begins there);
    # the others begin an episode, from zero.
    keep = (start == 0).to(masks.dtype) * masks[0, env]
    initial = _masked(_columns(state, env), keep)
    packed = pack_padded_sequence(padded, lengths, enforce_sorted=False)
    out, final = rnn(packed, initial)
    out, _ = pad_packed_sequence(out, total_length=steps)
    outputs = out[position, segment].view(n, steps, -1).transpose(0, 1).contiguous()
    last = segment.view(n, steps)[:, -1]  # each environment's last segment ends at T - 1
    return outputs, _columns(final, last)
