#!/usr/bin/env python3
"""Checks every markdown link in README.md and docs/*.md: a relative link must name a file that
exists, and a #fragment a heading of that page (GitHub's anchors: lower case, punctuation
dropped, spaces to hyphens). Links to http(s) and mailto are not fetched. Exit 1 on a broken one.

Usage: scripts/dev/check-doc-links.py [FILE.md ...]   (default: README.md docs/*.md)
"""
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
LINK = re.compile(r"(?<!\\)\[(?:[^\]\\]|\\.)*\]\(([^)\s]+)(?:\s+\"[^\"]*\")?\)")
FENCE = re.compile(r"^\s*(```|~~~)")


def anchor(heading: str) -> str:
    text = re.sub(r"<[^>]+>", "", heading).strip().lower()
    text = re.sub(r"[^\w\- ]", "", text)
    return text.replace(" ", "-")


def anchors(path: Path) -> set:
    found, seen, fenced = set(), {}, False
    for line in path.read_text(encoding="utf-8").splitlines():
        if FENCE.match(line):
            fenced = not fenced
            continue
        m = None if fenced else re.match(r"^#{1,6}\s+(.*?)\s*#*\s*$", line)
        if m:
            base = anchor(m.group(1))
            n = seen.get(base, 0)
            seen[base] = n + 1
            found.add(base if n == 0 else f"{base}-{n}")
    return found


def links(path: Path):
    fenced = False
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        if FENCE.match(line):
            fenced = not fenced
            continue
        if fenced:
            continue
        for m in LINK.finditer(re.sub(r"`[^`]*`", "", line)):
            yield number, m.group(1)


def main(argv) -> int:
    files = [Path(a).resolve() for a in argv] or [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
    broken = 0
    for page in files:
        for number, target in links(page):
            if re.match(r"^(https?|mailto):", target):
                continue
            file_part, _, fragment = target.partition("#")
            dest = (page.parent / file_part).resolve() if file_part else page
            problem = None
            if not dest.exists():
                problem = "no such file"
            elif fragment and dest.suffix == ".md" and fragment not in anchors(dest):
                problem = f"no heading #{fragment} in {dest.relative_to(ROOT)}"
            if problem:
                broken += 1
                print(f"{page.relative_to(ROOT)}:{number}: {target}: {problem}")
    checked = len(files)
    print(f"{checked} pages checked, {broken} broken links" if broken else f"{checked} pages checked, every link resolves")
    return 1 if broken else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
