"""Benchmark of the end-to-end training: batchsim.bench.train, also `batchsim bench train`."""

from batchsim.bench.train import main

if __name__ == "__main__":
    raise SystemExit(main())
