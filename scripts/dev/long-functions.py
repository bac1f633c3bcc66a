#!/usr/bin/env python3
"""Functions longer than a limit in Rust sources: each `fn` with a body, its length in physical
lines from the line of `fn` to the line of its closing brace (nested functions and closures
count inside their function). Test code is left out: files named `tests.rs` or `*_tests.rs`,
files under a `tests/` folder, and modules or functions marked `#[cfg(test)]` or `#[test]`.

    scripts/dev/long-functions.py [--limit 60] [--list] DIR…

Prints the number of functions and how many are over the limit (with `--list`, each of those,
longest first). Reads source text only: comments and literals are blanked first (by
import-circles.py's `strip`), so that a brace inside them does not count.
"""

import argparse
import importlib.util
import pathlib
import re
import sys

IDENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
TOKEN = re.compile(r"[A-Za-z_][A-Za-z0-9_]*|[{};#()\[\]\n]")

# The lexer that blanks comments, strings and chars is import-circles.py's, not a second one.
_spec = importlib.util.spec_from_file_location(
    "import_circles", pathlib.Path(__file__).with_name("import-circles.py")
)
CIRCLES = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(CIRCLES)


def tokens(text):
    """Yields (kind, value, line) for identifiers, `#`, braces, brackets, parens and `;` of
    `text` with its comments and literals blanked by import-circles.py's `strip`."""
    line = 1
    for m in TOKEN.finditer(CIRCLES.strip(text)):
        value = m.group(0)
        if value == "\n":
            line += 1
        else:
            yield ("ident" if IDENT.fullmatch(value) else value, value, line)


def functions(text):
    """(name, first line, last line, is_test) of every function with a body."""
    found = []
    toks = list(tokens(text))
    depth = 0
    # Brace depths at which a test region (cfg(test) module, #[test] fn) started.
    test_depths = []
    pending_test = False
    open_fns = []  # (name, start line, depth of its body, is_test)
    k = 0
    while k < len(toks):
        kind, value, line = toks[k]
        if kind == "#":
            # An attribute: #[ … ] or #![ … ]; look for `test` inside it.
            j = k + 1
            if j < len(toks) and toks[j][0] == "[":
                level, j = 0, j
                words = []
                while j < len(toks):
                    if toks[j][0] == "[":
                        level += 1
                    elif toks[j][0] == "]":
                        level -= 1
                        if level == 0:
                            break
                    elif toks[j][0] == "ident":
                        words.append(toks[j][1])
                    j += 1
                if words[:1] == ["test"] or words[:2] == ["cfg", "test"] or words[:1] == ["tokio"] and "test" in words:
                    pending_test = True
                k = j + 1
                continue
        if kind == "ident" and value == "fn" and k + 1 < len(toks) and toks[k + 1][0] == "ident":
            name = toks[k + 1][1]
            # Find the body's `{` or a `;` (a declaration) at this nesting of parens/brackets.
            j, parens = k + 2, 0
            while j < len(toks):
                t = toks[j][0]
                if t in "([":
                    parens += 1
                elif t in ")]":
                    parens -= 1
                elif parens == 0 and t == ";":
                    break
                elif parens == 0 and t == "{":
                    break
                j += 1
            if j < len(toks) and toks[j][0] == "{":
                in_test = pending_test or bool(test_depths)
                open_fns.append((name, line, depth + 1, in_test))
                depth += 1
                if pending_test:
                    test_depths.append(depth)
                pending_test = False
                k = j + 1
                continue
            pending_test = False
            k = j + 1
            continue
        if kind == "ident" and value == "mod" and pending_test:
            j = k + 1
            while j < len(toks) and toks[j][0] not in "{;":
                j += 1
            if j < len(toks) and toks[j][0] == "{":
                depth += 1
                test_depths.append(depth)
            pending_test = False
            k = j + 1
            continue
        if kind == "{":
            depth += 1
        elif kind == "}":
            if open_fns and open_fns[-1][2] == depth:
                name, start, _, is_test = open_fns.pop()
                found.append((name, start, line, is_test))
            if test_depths and test_depths[-1] == depth:
                test_depths.pop()
            depth -= 1
        elif kind == ";" or kind == "ident" and value in ("struct", "enum", "impl", "use", "const", "static", "type", "trait", "let"):
            pending_test = pending_test and kind == "ident" and value == "impl"
        k += 1
    return found


def is_test_file(path):
    return (
        path.name == "tests.rs"
        or path.name.endswith("_tests.rs")
        or "tests" in path.parts
        or "benches" in path.parts
        or "examples" in path.parts
    )


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--limit", type=int, default=60)
    parser.add_argument("--list", action="store_true")
    parser.add_argument("dirs", nargs="+")
    args = parser.parse_args()
    total, long = 0, []
    for root in args.dirs:
        for path in sorted(pathlib.Path(root).rglob("*.rs")):
            if is_test_file(path.relative_to(root)) or "target" in path.parts:
                continue
            for name, start, end, is_test in functions(path.read_text(encoding="utf-8")):
                if is_test:
                    continue
                total += 1
                lines = end - start + 1
                if lines > args.limit:
                    long.append((lines, f"{path}:{start}", name))
    print(f"{total} functions, {len(long)} over {args.limit} lines")
    if args.list:
        for lines, where, name in sorted(long, reverse=True):
            print(f"{lines:5}  {where}  {name}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
