"""Checks the links of generated HTML (make docs): every relative href/src must name an
existing file and every #anchor an id (or name) in its target page. External links
(http:, mailto:, ...) are not fetched: the check runs offline.

    python3 scripts/check_doc_links.py build/docs
"""

from __future__ import annotations

import argparse
import sys
from functools import cache
from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import unquote, urlsplit


class PageParser(HTMLParser):
    """Collects a page's anchors (id and name attributes) and its links with line numbers."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.anchors: set[str] = set()
        self.links: list[tuple[int, str]] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        for name, value in attrs:
            if value is None:
                continue
            if name == "id" or (name == "name" and tag == "a"):
                self.anchors.add(value)
            elif name in ("href", "src"):
                self.links.append((self.getpos()[0], value))


@cache
def parse(page: Path) -> PageParser:
    parser = PageParser()
    parser.feed(page.read_text(encoding="utf-8"))
    parser.close()
    return parser


def check_link(page: Path, link: str) -> str | None:
    """Why `link` on `page` is broken, or None when it is fine or not ours to check."""
    parts = urlsplit(link)
    if parts.scheme or parts.netloc:
        return None  # external (http:, mailto:, data:, //host): not fetched
    target = (page.parent / unquote(parts.path)).resolve() if parts.path else page
    if target.is_dir():
        target = target / "index.html"
    if not target.is_file():
        return f"no file {target}"
    fragment = unquote(parts.fragment)
    if fragment and target.suffix == ".html" and fragment not in parse(target).anchors:
        return f"no anchor #{fragment} in {target.name}"
    return None


def broken_links(root: Path) -> list[str]:
    problems = []
    for page in sorted(root.rglob("*.html")):
        for line, link in parse(page).links:
            why = check_link(page, link)
            if why:
                problems.append(f"{page.relative_to(root)}:{line}: {link!r}: {why}")
    return problems


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("root", type=Path, help="folder of generated HTML")
    args = parser.parse_args(argv)
    pages = list(args.root.rglob("*.html"))
    if not pages:
        print(f"check_doc_links: no .html under {args.root}", file=sys.stderr)
        return 1
    problems = broken_links(args.root)
    for problem in problems:
        print(problem, file=sys.stderr)
    links = sum(len(parse(p).links) for p in pages)
    print(f"check_doc_links: {len(pages)} pages, {links} links, {len(problems)} broken")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
