"""Writes, or checks, what is generated from the C++ output table (src/sim/outputs.hpp, read
through batchsim._core.output_table()): SimOutputs' fields and SimOutputFields' annotations in
python/batchsim/sim.py (type checkers read them), docs/sim.md's table of every output and
docs/env.md's table of the env's keys. Each is the block between a `outputs:NAME:begin` and an
`outputs:NAME:end` line; tests/python/test_outputs.py runs the check in CI.

    python3 scripts/output_table.py          # check: exits 1, naming the file, if a block is stale
    python3 scripts/output_table.py --write  # rewrite the blocks
"""

from __future__ import annotations

import argparse
import sys
import textwrap
from collections.abc import Callable, Sequence
from pathlib import Path

from batchsim._files import write_bytes_atomically
from batchsim._outputs import OUTPUTS, OutputSpec

# The files written are this tree's; the table is the installed batchsim._core's (or
# PYTHONPATH's): install or build this tree's first.
ROOT = Path(__file__).resolve().parents[1]

# Where the env shows each role of an output, as docs/env.md says it.
ENV_PLACES = {
    "observation": "observation",
    "step": "step()'s return",
    "info_ended": "info, for the environments whose episode ended this step",
    "info": "info, for every environment",
}


def field_lines(specs: Sequence[OutputSpec]) -> list[str]:
    """SimOutputs' fields: an annotation and its docstring per output."""
    lines = []
    for spec in specs:
        lines.append(f"    {spec.name}: np.ndarray")
        doc = textwrap.fill(
            f'"""{spec.shape}: {spec.doc}."""', width=96, subsequent_indent="    "
        ).splitlines()
        lines += [f"    {line}" if i == 0 else line for i, line in enumerate(doc)]
    return lines


def name_lines(specs: Sequence[OutputSpec]) -> list[str]:
    return [f"    {spec.name}: np.ndarray" for spec in specs]


def sim_table(specs: Sequence[OutputSpec]) -> list[str]:
    """docs/sim.md: every output, with where it goes."""
    lines = [
        "| output | shape, dtype | in `Simulator.results` | env key | meaning |",
        "| --- | --- | --- | --- | --- |",
    ]
    for spec in specs:
        key = f"`{spec.env_key}` ({spec.env})" if spec.env != "none" else ""
        results = "yes" if spec.staged else ""
        lines.append(f"| `{spec.name}` | {spec.shape} | {results} | {key} | {md(spec.doc)} |")
    return lines


def env_table(specs: Sequence[OutputSpec]) -> list[str]:
    """docs/env.md: the env's keys that come from the output table."""
    lines = ["| key | shape, dtype | where | meaning |", "| --- | --- | --- | --- |"]
    for role, place in ENV_PLACES.items():
        for spec in specs:
            if spec.env == role:
                lines.append(f"| `{spec.env_key}` | {spec.shape} | {place} | {md(spec.doc)} |")
    return lines


def md(doc: str) -> str:
    """A doc line for a Markdown cell: rST's double backquotes as Markdown's."""
    return doc.replace("``", "`").replace("|", "\\|")


Block = tuple[Path, str, Callable[[Sequence[OutputSpec]], list[str]]]
BLOCKS: list[Block] = [
    (ROOT / "python" / "batchsim" / "sim.py", "fields", field_lines),
    (ROOT / "python" / "batchsim" / "sim.py", "names", name_lines),
    (ROOT / "docs" / "sim.md", "table", sim_table),
    (ROOT / "docs" / "env.md", "env", env_table),
]


def replace_block(text: str, name: str, body: list[str], path: Path) -> str:
    """`text` with the lines between its outputs:NAME:begin and :end lines replaced by body."""
    lines = text.split("\n")
    starts = [i for i, line in enumerate(lines) if f"outputs:{name}:begin" in line]
    ends = [i for i, line in enumerate(lines) if f"outputs:{name}:end" in line]
    if len(starts) != 1 or len(ends) != 1 or ends[0] < starts[0]:
        raise SystemExit(f"{path}: expected one outputs:{name}:begin ... outputs:{name}:end")
    return "\n".join(lines[: starts[0] + 1] + body + lines[ends[0] :])


def generated(specs: Sequence[OutputSpec] = OUTPUTS) -> dict[Path, str]:
    """Each file with its blocks as the table makes them."""
    texts: dict[Path, str] = {}
    for path, name, render in BLOCKS:
        text = texts.get(path, path.read_text())
        texts[path] = replace_block(text, name, render(specs), path)
    return texts


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--write", action="store_true", help="rewrite the generated blocks")
    args = parser.parse_args()
    texts = generated()
    stale = [path for path, text in texts.items() if path.read_text() != text]
    for path in stale:
        if args.write:
            write_bytes_atomically(path, texts[path].encode())
            print(f"updated {path.relative_to(ROOT)}")
        else:
            print(
                f"{path.relative_to(ROOT)} is stale; run: python3 scripts/output_table.py --write"
            )
    return 1 if stale and not args.write else 0


if __name__ == "__main__":
    sys.exit(main())
