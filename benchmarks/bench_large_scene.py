"""Benchmark of large scenes: batchsim.bench.large_scene, also `batchsim bench large-scene`."""

from batchsim.bench.large_scene import main

if __name__ == "__main__":
    raise SystemExit(main())
