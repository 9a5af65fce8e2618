"""Hash of BatchNavEnv's episodes over a fixed run, to show that a change altered no episode.

Steps a numpy-mode BatchNavEnv (depth and RGB rendered on this machine's Vulkan device)
`--steps` times with seeded actions and prints one SHA-256 over every observation, reward,
termination, truncation and the named info entries (`--info`: the episode measures by
default, which both builds have) after every step. Run it with two builds on the same
split and compare the lines:

    PYTHONPATH=python python3 scripts/env_hash.py /tmp/hashdata/pointnav/train
"""

from __future__ import annotations

import argparse
import hashlib

import numpy as np

import batchsim

MIX = [0.02, 0.68, 0.15, 0.15]  # STOP, MOVE_FORWARD, TURN_LEFT, TURN_RIGHT, as a policy's


def update(digest, value) -> None:
    """Feeds `value` (an array, a number or a nested dict/list of them) into `digest`."""
    if isinstance(value, dict):
        for key in sorted(value):
            digest.update(key.encode())
            update(digest, value[key])
    elif isinstance(value, list | tuple):
        for item in value:
            update(digest, item)
    else:
        digest.update(np.ascontiguousarray(np.asarray(value)).tobytes())


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("split", help="a PointNav split (directory or .json.gz)")
    parser.add_argument("--num-envs", type=int, default=32)
    parser.add_argument("--steps", type=int, default=300)
    parser.add_argument("--resolution", type=int, default=32)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument(
        "--info", nargs="*", default=["success", "spl", "softspl", "distance_to_goal"]
    )
    args = parser.parse_args()
    env = batchsim.BatchNavEnv(
        args.split,
        args.num_envs,
        array="numpy",
        device="cpu",
        sensors=("depth", "rgb"),
        resolution=args.resolution,
        seed=args.seed,
    )
    rng = np.random.default_rng(args.seed)
    steps = hashlib.sha256()
    obs, info = env.reset(seed=args.seed)
    update(steps, obs)
    for _ in range(args.steps):
        actions = rng.choice(4, size=args.num_envs, p=MIX).astype(np.int32)
        obs, reward, terminated, truncated, info = env.step(actions)
        update(steps, [obs, reward, terminated, truncated])
        update(steps, {key: info[key] for key in args.info if key in info})
    env.close()
    print("steps", steps.hexdigest()[:16])
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
