"""Benchmark of the export round trip: batchsim.bench.export, also `batchsim bench export`."""

from batchsim.bench.export import main

if __name__ == "__main__":
    raise SystemExit(main())
