"""Scaling study: batchsim.bench.scaling, also `batchsim bench scaling`."""

from batchsim.bench.scaling import main

if __name__ == "__main__":
    raise SystemExit(main())
