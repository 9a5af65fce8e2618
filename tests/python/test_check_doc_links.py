"""scripts/check_doc_links.py, the link check of `make docs-check`, on a few small pages."""

from __future__ import annotations

import importlib.util
from pathlib import Path

SCRIPT = Path(__file__).resolve().parents[2] / "scripts" / "check_doc_links.py"


def load_checker():
    spec = importlib.util.spec_from_file_location("check_doc_links", SCRIPT)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def write(path: Path, body: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(f"<html><body>{body}</body></html>\n")


def test_reports_missing_files_and_anchors(tmp_path: Path) -> None:
    write(tmp_path / "index.html", '<a href="pkg/mod.html#f">f</a> <a href="#top" id="top">t</a>')
    write(
        tmp_path / "pkg" / "mod.html",
        '<h1 id="f">f</h1><a href="../index.html">up</a> <a href="https://example.org/x">x</a>'
        '<a href="gone.html">gone</a> <a href="../index.html#nowhere">n</a>'
        '<script src="../search.js"></script> <a href="mailto:a@b.c">m</a>',
    )
    problems = load_checker().broken_links(tmp_path)
    assert len(problems) == 3, problems
    assert any("'gone.html': no file" in p for p in problems)
    assert any("no anchor #nowhere in index.html" in p for p in problems)
    assert any("search.js" in p for p in problems)
    assert all(p.startswith("pkg/mod.html:1:") for p in problems)


def test_clean_pages_pass(tmp_path: Path, capsys) -> None:
    write(tmp_path / "a.html", '<a href="b.html#x">b</a>')
    write(tmp_path / "b.html", '<a name="x"></a><a href="a.html">a</a>')
    assert load_checker().main([str(tmp_path)]) == 0
    assert "0 broken" in capsys.readouterr().out
