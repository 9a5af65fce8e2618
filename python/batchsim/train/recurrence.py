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


def by_segments(rnn: nn.RNNBase, x: torch.Tensor, state, masks: torch.Tensor):
    steps, n = masks.shape
    begins = (masks == 0).t().contiguous()  # [N, T]: env-major, so segments are contiguous
    begins[:, 0] = True
    begins = begins.flatten()
    segment = torch.cumsum(begins, 0) - 1  # the segment of each (env, t)
    first = torch.nonzero(begins).squeeze(1)  # [S] each segment's first (env, t)
    count = first.numel()
    position = torch.arange(n * steps, device=x.device) - first[segment]
    lengths = torch.bincount(segment, minlength=count)

    padded = x.new_zeros(steps, count, x.shape[-1])
    padded[position, segment] = x.transpose(0, 1).reshape(n * steps, -1)
    env, start = first // steps, first % steps
    # A segment at t = 0 carries the rollout's state (zeroed if the episode begins there);
    # the others begin an episode, from zero.
    keep = (start == 0).to(masks.dtype) * masks[0, env]
    initial = _masked(_columns(state, env), keep)
    packed = pack_padded_sequence(padded, lengths.cpu(), enforce_sorted=False)
    out, final = rnn(packed, initial)
    out, _ = pad_packed_sequence(out, total_length=steps)
    outputs = out[position, segment].view(n, steps, -1).transpose(0, 1).contiguous()
    last = segment.view(n, steps)[:, -1]  # each environment's last segment ends at T - 1
    return outputs, _columns(final, last)
