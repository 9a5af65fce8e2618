"""Benchmark of procedural generation: batchsim.bench.procgen, also `batchsim bench procgen`."""

from batchsim.bench.procgen import main

if __name__ == "__main__":
    raise SystemExit(main())
