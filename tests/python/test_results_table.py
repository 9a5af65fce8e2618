"""benchmarks/RESULTS.md stays a short table of today's figures that trace to their records:
every row names its command, machine, date and commit, and either a JSON record under
benchmarks/data/ whose values equal the printed figures (and whose own date and commit, where
it has them, equal the row's) or the benchmarks/LOG.md section it was taken from. Docs that
cite RESULTS.md or LOG.md name files, anchors and sections that exist; code cites neither."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
BENCH = ROOT / "benchmarks"
RESULTS = BENCH / "RESULTS.md"
LOG = BENCH / "LOG.md"
DATA = BENCH / "data"
MAX_LINES = 300
COLUMNS = ("figure", "machine", "date", "commit", "command", "json")
NUMBER = re.compile(r"(?<![\w.])(\d[\d,]*(?:\.\d+)?)([kMG](?![A-Za-z])|)")
SCALE = {"": 1.0, "k": 1e3, "M": 1e6, "G": 1e9}
NO_JSON = re.compile(r'^none kept: LOG\.md, "([^"]+)"$')


def split_row(line: str) -> list[str]:
    """A markdown table row's cells; `\\|` inside a cell is a literal bar."""
    cells = re.split(r"(?<!\\)\|", line.strip().strip("|"))
    return [cell.strip().replace("\\|", "|") for cell in cells]


def tables(text: str) -> list[tuple[list[str], list[tuple[int, list[str]]]]]:
    """Each table of `text`: its header cells and its rows (line number, cells)."""
    found, lines, i = [], text.splitlines(), 0
    while i < len(lines):
        if lines[i].startswith("|") and i + 1 < len(lines) and lines[i + 1].startswith("| ---"):
            header, rows, i = split_row(lines[i]), [], i + 2
            while i < len(lines) and lines[i].startswith("|"):
                rows.append((i + 1, split_row(lines[i])))
                i += 1
            found.append((header, rows))
        else:
            i += 1
    return found


def headings(text: str) -> list[str]:
    return [line.lstrip("#").strip() for line in text.splitlines() if re.match(r"#+ ", line)]


def lookup(record: object, path: str) -> object:
    """The value at a dotted key path: names, list indices, `[name]` for a name with dots,
    or `[key=value&...]`, the list element whose fields print as given."""
    for part in re.findall(r"\[[^\]]*\]|[^.\[\]]+", path):
        if part.startswith("[") and "=" not in part:
            part = part[1:-1]
        if part.startswith("["):
            wanted = dict(pair.split("=", 1) for pair in part[1:-1].split("&"))
            matches = [e for e in record if all(str(e.get(k)) == v for k, v in wanted.items())]
            assert len(matches) == 1, f"{path}: {part} matches {len(matches)} elements"
            record = matches[0]
        elif isinstance(record, list):
            record = record[int(part)]
        else:
            assert part in record, f"{path}: no key {part!r} (has {sorted(record)})"
            record = record[part]
    return record


def printed_numbers(figure: str) -> list[tuple[float, int, float]]:
    """Each number of a figure cell: value as printed, its decimals and its k/M/G scale."""
    out = []
    for digits, suffix in NUMBER.findall(figure.replace("**", "")):
        plain = digits.replace(",", "")
        decimals = len(plain.split(".")[1]) if "." in plain else 0
        out.append((float(plain), decimals, SCALE[suffix]))
    return out


def results_rows() -> list[tuple[int, dict[str, str]]]:
    rows = []
    for header, body in tables(RESULTS.read_text(encoding="utf-8")):
        assert all(c in header for c in COLUMNS), f"RESULTS.md table {header} lacks {COLUMNS}"
        rows += [(n, dict(zip(header, cells, strict=True))) for n, cells in body]
    return rows


def test_results_is_short_and_every_row_says_where_it_comes_from() -> None:
    assert len(RESULTS.read_text(encoding="utf-8").splitlines()) < MAX_LINES
    rows = results_rows()
    assert len(rows) >= 20
    log_titles = headings(LOG.read_text(encoding="utf-8"))
    for line, row in rows:
        where = f"RESULTS.md:{line}"
        assert re.fullmatch(r"20\d\d-\d\d-\d\d", row["date"]), f"{where}: date {row['date']!r}"
        assert re.fullmatch(r"`?[0-9a-f]{7,40}`?|unknown", row["commit"]), f"{where}: commit"
        command = row["command"]
        assert row["machine"] and command.startswith(("`", "as above")), f"{where}: command"
        assert printed_numbers(row["figure"]), f"{where}: no figure"
        no_json = NO_JSON.match(row["json"])
        if no_json:
            title = no_json.group(1)
            assert any(title in h for h in log_titles), f"{where}: no LOG.md section {title!r}"


def json_rows() -> list[tuple[int, dict[str, str]]]:
    return [(n, row) for n, row in results_rows() if not NO_JSON.match(row["json"])]


@pytest.mark.parametrize("line,row", [pytest.param(*r, id=f"line{r[0]}") for r in json_rows()])
def test_figure_equals_its_json_record(line: int, row: dict[str, str]) -> None:
    where = f"RESULTS.md:{line}"
    ref = row["json"].strip("`")
    name, _, keys = ref.partition("#")
    path = DATA / name
    assert path.is_file(), f"{where}: no benchmarks/data/{name}"
    record = json.loads(path.read_text(encoding="utf-8"))
    if isinstance(record, dict) and "commit" in record:
        assert record["commit"].startswith(row["commit"].strip("`")), f"{where}: commit"
    if isinstance(record, dict) and "date" in record:
        assert record["date"].startswith(row["date"]), f"{where}: date"
    key_paths = [k for k in re.split(r",(?![^\[]*\])", keys) if k]
    numbers = printed_numbers(row["figure"])
    assert len(key_paths) == len(numbers), f"{where}: {len(numbers)} figures, keys {key_paths}"
    for key, (printed, decimals, scale) in zip(key_paths, numbers, strict=True):
        value = float(lookup(record, key)) / scale
        assert abs(value - printed) <= 0.5 * 10**-decimals + 1e-9, (
            f"{where}: {key} is {value:.{decimals + 2}f}, printed {printed}"
        )


def github_anchor(title: str) -> str:
    slug = re.sub(r"[^\w\- ]", "", title.strip().lower())
    return slug.replace(" ", "-")


DOCS = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md")), *sorted(BENCH.glob("*.md"))]


@pytest.mark.parametrize("doc", DOCS, ids=lambda p: p.name)
def test_doc_citations_of_results_and_log_resolve(doc: Path) -> None:
    """Links to RESULTS.md or LOG.md name an existing file and heading anchor, and a quoted
    section after a citation (`LOG.md, "Title"`) is part of a heading of that file."""
    text = doc.read_text(encoding="utf-8")
    for target, anchor in re.findall(r"\]\(([^)#\s]*(?:RESULTS|LOG)\.md)(?:#([^)\s]*))?\)", text):
        page = (doc.parent / target).resolve()
        assert page.is_file(), f"{doc.name}: link to missing {target}"
        if anchor:
            anchors = {github_anchor(h) for h in headings(page.read_text(encoding="utf-8"))}
            assert anchor in anchors, f"{doc.name}: no #{anchor} in {target}"
    for name, title in re.findall(r"\b(RESULTS|LOG)\.md\)?`?,\s+\"([^\"]+)\"", text):
        titles = headings((BENCH / f"{name}.md").read_text(encoding="utf-8"))
        title = " ".join(title.split()).lower()
        assert any(title in h.lower() for h in titles), f"{doc.name}: {name}.md {title!r}"


def test_code_cites_neither_results_nor_log() -> None:
    code = [*ROOT.glob("python/**/*.py"), *ROOT.glob("src/**/*"), *ROOT.glob("scripts/*")]
    code += [*ROOT.glob("shaders/**/*"), *ROOT.glob("fuzz/**/*"), *ROOT.glob("examples/*.py")]
    code += [p for p in ROOT.glob("tests/**/*") if p.name != Path(__file__).name]
    citing = set()
    for path in code:
        if path.is_file() and path.suffix not in (".so", ".png", ".gz", ".bsscene"):
            text = path.read_text(encoding="utf-8", errors="replace")
            if re.search(r"benchmarks/(RESULTS|LOG)\.md|\b(RESULTS|LOG)\.md", text):
                citing.add(path.relative_to(ROOT).as_posix())
    assert citing == set(), "code cites the benchmark notes: state the figure, or cite docs/"
