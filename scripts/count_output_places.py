"""Counts, for each per-environment output of the C++ table (src/sim/outputs.hpp), the places
that name it by hand, the table's row included; prints JSON and exits 1 where one has more
than LIMIT (issue 42: an output is declared once, so adding one is the table row plus the
code that computes it).

A place names outputs where it lists them: at least MIN_LISTED different output names within
WINDOW lines (a struct, a dict of views, a result list, a field block, a table row block);
one use of an output, such as `results["reward"]`, lists nothing. Read are code (names and
one-word strings, not comments or prose) and the docs' tables. The places searched are the
layers that declare and expose outputs: src/ (C++), the Python modules that show them
(EXPOSING) and the docs pages that document them (DOCS). src/sim/, the storage and the rules
that compute the outputs, counts as one place, "the code that computes it"; the table
(src/sim/outputs.*) is one more, "table". Not counted: the blocks generated from the table
(between `outputs:NAME:begin` and `outputs:NAME:end`, scripts/output_table.py), tests, and the
consumers that read outputs by name (the trainer, the CLI, viz, benchmarks).

    python3 scripts/count_output_places.py                      # this tree
    python3 scripts/count_output_places.py --root OTHER_TREE    # another checkout, this table
"""

from __future__ import annotations

import argparse
import io
import json
import re
import sys
import tokenize
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
LIMIT = 2
WINDOW = 5  # lines
MIN_LISTED = 3  # different output names
TABLE = ("src/sim/outputs.hpp", "src/sim/outputs.cpp")
EXPOSING = [
    f"python/batchsim/{name}"
    for name in ("sim.py", "simulator.py", "env.py", "_env_views.py", "_numpy_env.py")
] + ["python/batchsim/_outputs.py", "python/batchsim/_core.pyi"]
DOCS = ["docs/sim.md", "docs/env.md", "README.md"]
GENERATED = re.compile(r"outputs:[\w-]+:(begin|end)")


def table_names(root: Path) -> list[str]:
    """The outputs the table declares: its X-macro rows and its other rows' names."""
    header = (root / TABLE[0]).read_text()
    source = (root / TABLE[1]).read_text()
    names = re.findall(r"^\s*X\((\w+),", header, re.M)
    names += re.findall(r'_row<[^>]*>\(\s*"(\w+)"', source)
    return names


def hand_written_lines(path: Path) -> list[str]:
    """The file's lines that can name an output, those of generated blocks blanked: code
    without comments, prose strings or docstrings (a string names an output when it is the
    name), and the rows of the docs' tables."""
    text = path.read_text(errors="replace")
    lines, inside = [], False
    for line in readable(path, text):
        marker = GENERATED.search(line)
        if marker:
            inside = marker.group(1) == "begin"
        lines.append("" if inside or marker else line)
    return lines


def readable(path: Path, text: str) -> list[str]:
    if path.suffix in {".py", ".pyi"}:
        return python_code(text)
    if path.suffix == ".md":  # the tables, and the generated blocks' markers
        return [
            line if line.startswith("|") or GENERATED.search(line) else ""
            for line in text.split("\n")
        ]
    return [cpp_code(line) for line in text.split("\n")]


CPP_STRING = re.compile(r'"((?:[^"\\]|\\.)*)"')


def cpp_code(line: str) -> str:
    """A C++ line without its comment, its strings kept only where one is a bare word."""
    line = CPP_STRING.sub(lambda m: m.group(0) if m.group(1).isidentifier() else '""', line)
    return line.split("//", 1)[0]


def python_code(text: str) -> list[str]:
    """Per line, the names and the one-word strings of Python code, markers kept."""
    lines = ["" for _ in text.split("\n")]
    for token in tokenize.generate_tokens(io.StringIO(text).readline):
        row = token.start[0] - 1
        if token.type == tokenize.NAME:
            lines[row] += " " + token.string
        elif token.type == tokenize.STRING and token.string.strip("\"'").isidentifier():
            lines[row] += " " + token.string.strip("\"'")
        elif token.type == tokenize.COMMENT and GENERATED.search(token.string):
            lines[row] += " " + token.string
    return lines


def listed_names(lines: list[str], patterns: dict[str, re.Pattern[str]]) -> set[str]:
    """The output names that some window of the lines lists with others."""
    found = [{name for name, p in patterns.items() if p.search(line)} for line in lines]
    listed: set[str] = set()
    for start in range(len(found)):
        window = set().union(*found[start : start + WINDOW])
        if len(window) >= MIN_LISTED:
            listed |= window
    return listed


def places(root: Path, names: list[str]) -> dict[str, list[str]]:
    """Output name -> the places (files, or src/sim/ as one) that list it by hand."""
    patterns = {name: re.compile(rf"(?<!\w){re.escape(name)}(?!\w)") for name in names}
    files = sorted(p for p in (root / "src").rglob("*") if p.suffix in {".cpp", ".hpp", ".h"})
    files += [root / rel for rel in EXPOSING + DOCS if (root / rel).exists()]
    declared = set(table_names(root)) if (root / TABLE[0]).exists() else set()
    out: dict[str, list[str]] = {name: ["table"] if name in declared else [] for name in names}
    for path in files:
        rel = path.relative_to(root).as_posix()
        if rel in TABLE:
            continue
        place = "src/sim/" if rel.startswith("src/sim/") else rel
        for name in listed_names(hand_written_lines(path), patterns):
            if place not in out[name]:
                out[name].append(place)
    return out


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--root", type=Path, default=ROOT, help="the checkout to search")
    args = parser.parse_args()
    found = places(args.root.resolve(), table_names(ROOT))
    over = sorted(name for name, where in found.items() if len(where) > LIMIT)
    report = {
        "limit": LIMIT,
        "places": {name: {"count": len(where), "where": where} for name, where in found.items()},
        "total": sum(len(where) for where in found.values()),
        "over_limit": over,
    }
    print(json.dumps(report, indent=1))
    return 1 if over else 0


if __name__ == "__main__":
    sys.exit(main())
