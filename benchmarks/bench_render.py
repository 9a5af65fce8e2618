"""Benchmark of the renderer: batchsim.bench.render, also `batchsim bench render`."""

from batchsim.bench.render import main

if __name__ == "__main__":
    raise SystemExit(main())
