"""Benchmark of the env step: batchsim.bench.env, also `batchsim bench env`."""

from batchsim.bench.env import main

if __name__ == "__main__":
    raise SystemExit(main())
