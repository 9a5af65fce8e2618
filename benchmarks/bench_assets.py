"""Benchmark of the scene assets: batchsim.bench.assets, also `batchsim bench assets`."""

from batchsim.bench.assets import main

if __name__ == "__main__":
    raise SystemExit(main())
