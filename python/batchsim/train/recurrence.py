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
from torch.nn.utils.rnn import PackedSequence


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
    env, start = first // steps, first % steps
    # A segment at t = 0 carries the rollout's state (zeroed if the episode begins there);
    # the others begin an episode, from zero.
    keep = (start == 0).to(masks.dtype) * masks[0, env]
    initial = _masked(_columns(state, env), keep)
    packed, rows = _packed(x, lengths, segment, position)
    out, final = rnn(packed, initial)
    outputs = out.data.index_select(0, rows).view(steps, n, -1)
    last = segment.view(n, steps)[:, -1]  # each environment's last segment ends at T - 1
    return outputs, _columns(final, last)


def _packed(x: torch.Tensor, lengths, segment, position) -> tuple[PackedSequence, torch.Tensor]:
    """x [T, N, F] as the packed batch of its segments, built with one gather (no padded
    [T, S, F] copy: early in training S is several times N); and `rows`, the packed row of
    each (t, n), time-major, to read the outputs back in x's order."""
    steps, n = x.shape[:2]
    sorted_indices = torch.sort(lengths, descending=True, stable=True).indices
    rank = torch.empty_like(sorted_indices)
    rank[sorted_indices] = torch.arange(sorted_indices.numel(), device=x.device)
    # batch_sizes[t]: the segments longer than t, which packing lays out at step t in order.
    batch_sizes = (lengths[None, :] > torch.arange(steps, device=x.device)[:, None]).sum(1)
    offsets = torch.cumsum(batch_sizes, 0) - batch_sizes
    env_major = offsets[position] + rank[segment]  # packed row of (n, t)
    rows = env_major.view(n, steps).t().reshape(-1)
    source = torch.empty_like(rows)
    source[rows] = torch.arange(rows.numel(), device=x.device)
    data = x.reshape(steps * n, -1).index_select(0, source)
    sizes = batch_sizes.cpu()  # packing wants them on the host (a sync, as nonzero above)
    # Built directly (as pack_padded_sequence would) with segments in descending length.
    packed = PackedSequence(data, sizes[sizes > 0], sorted_indices, rank)
    return packed, rows
