"""Benchmark of the simulation core: batchsim.bench.sim, also `batchsim bench sim`."""

from batchsim.bench.sim import main

if __name__ == "__main__":
    raise SystemExit(main())
