#!/usr/bin/env python3
"""Print the import circles inside one Rust crate.

    python3 scripts/dev/import-circles.py crates/assent-core/src [--edges]

A module is one file (a folder's mod.rs and each of its children are separate modules;
inline `mod x { … }` blocks, such as `mod tests`, belong to their file). An arrow A -> B
is any `use` or path in A's code that names B through `crate::`, `super::`, `self::` or a
child module's name. A name re-exported with `use` is followed to the module that defines
it, so `crate::Evaluation` is an arrow to the file that declares `Evaluation`, not to
lib.rs. `mod` declarations themselves are not arrows.

A circle is a strongly connected component of more than one module. The script prints
each circle with its size (and, with --edges, the arrows inside it), then the total.
Standard library only.
"""

import os
import re
import sys

ITEM = re.compile(
    r"^\s*(?:pub(?:\s*\([^)]*\))?\s+)?(?:(?:async|const|unsafe|extern\s+\"C\")\s+)*"
    r"(fn|struct|enum|trait|type|const|static|union)\s+([A-Za-z_]\w*)"
)
MOD_DECL = re.compile(r"^\s*(?:pub(?:\s*\([^)]*\))?\s+)?mod\s+([A-Za-z_]\w*)\s*;")
INLINE_MOD = re.compile(r"^\s*(?:pub(?:\s*\([^)]*\))?\s+)?mod\s+([A-Za-z_]\w*)\s*\{")
PATH_ATTR = re.compile(r'#\[path\s*=\s*"([^"]+)"\s*\]')
PATH_REF = re.compile(r"(?<![\w:])((?:[A-Za-z_]\w*)(?:::[A-Za-z_]\w*)+)")


def strip(text):
    """Blank out comments, string and char literals, keeping line breaks and attributes' paths."""
    out = []
    i, n = 0, len(text)
    while i < n:
        c = text[i]
        if text.startswith("//", i):
            j = text.find("\n", i)
            i = n if j < 0 else j
        elif text.startswith("/*", i):
            depth, i = 1, i + 2
            while i < n and depth:
                if text.startswith("/*", i):
                    depth, i = depth + 1, i + 2
                elif text.startswith("*/", i):
                    depth, i = depth - 1, i + 2
                else:
                    if text[i] == "\n":
                        out.append("\n")
                    i += 1
        elif c == "r" and re.match(r'r#*"', text[i:i + 10]) and not (i and (text[i - 1].isalnum() or text[i - 1] == "_")):
            m = re.match(r'r(#*)"', text[i:])
            end = '"' + m.group(1)
            j = text.find(end, i + len(m.group(0)))
            j = n if j < 0 else j + len(end)
            out.append('""' + "\n" * text.count("\n", i, j))
            i = j
        elif c == '"':
            prev = "".join(out[-12:])
            keep = prev.rstrip().endswith("path =") or prev.rstrip().endswith("path=")
            j = i + 1
            while j < n and text[j] != '"':
                j += 2 if text[j] == "\\" else 1
            body = text[i:j + 1]
            out.append(body if keep else '""' + "\n" * body.count("\n"))
            i = j + 1
        elif c == "'":
            m = re.match(r"'(\\.[^']*|[^\\'])'", text[i:])
            if m:
                out.append("' '")
                i += len(m.group(0))
            else:
                out.append(c)
                i += 1
        else:
            out.append(c)
            i += 1
    return "".join(out)


class Module:
    def __init__(self, name, path, file, mod_rs):
        self.name = name  # tuple of segments from the crate root
        self.path = path  # display path
        self.file = file
        self.mod_rs = mod_rs  # children live in this file's folder (lib.rs, main.rs, mod.rs)
        self.children = {}
        self.items = set()
        self.imports = {}  # local name -> absolute path (tuple) or relative spec
        self.globs = []
        self.refs = []  # (path segments, inline depth)
        self.text = ""


def child_dir(mod):
    d = os.path.dirname(mod.file)
    if mod.mod_rs:
        return d
    return os.path.join(d, os.path.splitext(os.path.basename(mod.file))[0])


def load(root_file, root_name, modules):
    stack = [Module(root_name, os.path.basename(root_file), root_file, True)]
    while stack:
        mod = stack.pop()
        modules[mod.name] = mod
        with open(mod.file, encoding="utf-8") as f:
            mod.text = strip(f.read())
        lines = mod.text.split("\n")
        for idx, line in enumerate(lines):
            m = MOD_DECL.match(line)
            if not m:
                continue
            name = m.group(1)
            attr = None
            for back in range(idx - 1, max(idx - 4, -1), -1):
                a = PATH_ATTR.search(lines[back])
                if a:
                    attr = a.group(1)
                    break
                if not lines[back].strip().startswith("#"):
                    break
            if attr:
                file = os.path.normpath(os.path.join(os.path.dirname(mod.file), attr))
                mod_rs = os.path.basename(file) == "mod.rs"
            else:
                base = child_dir(mod)
                flat = os.path.join(base, name + ".rs")
                nested = os.path.join(base, name, "mod.rs")
                if os.path.exists(flat):
                    file, mod_rs = flat, False
                elif os.path.exists(nested):
                    file, mod_rs = nested, True
                else:
                    continue
            child = Module(mod.name + (name,), os.path.relpath(file, SRC), file, mod_rs)
            mod.children[name] = child.name
            stack.append(child)


USE_STMT = re.compile(r"\buse\s+([^;]+);")


def parse(mod):
    depth = 0
    inline = []  # brace depths at which inline mods opened
    for line in mod.text.split("\n"):
        m = INLINE_MOD.match(line)
        at_top = depth == (inline[-1] if inline else 0)
        if at_top:
            it = ITEM.match(line)
            if it:
                mod.items.add(it.group(2))
        if m:
            inline.append(depth + 1)
        depth += line.count("{") - line.count("}")
        while inline and depth < inline[-1]:
            inline.pop()
    # use statements, with the inline depth at their position
    text = mod.text
    line_depth = inline_levels(text)
    for um in USE_STMT.finditer(text):
        start_line = text.count("\n", 0, um.start())
        level = line_depth[start_line]
        raw = um.group(1)
        for segs, alias, glob in expand(raw):
            if not segs:
                continue
            if glob:
                mod.globs.append((segs, level))
            else:
                local = alias or (segs[-1] if segs[-1] != "self" else segs[-2] if len(segs) > 1 else None)
                if segs[-1] == "self":
                    segs = segs[:-1]
                if local and level == 0:
                    mod.imports[local] = segs
            mod.refs.append((segs, level))
    # paths written in code
    code = USE_STMT.sub(lambda u: "\n" * u.group(0).count("\n"), text)
    for pm in PATH_REF.finditer(code):
        segs = pm.group(1).split("::")
        start_line = code.count("\n", 0, pm.start())
        mod.refs.append((segs, line_depth[start_line]))


def expand(raw):
    raw = re.sub(r"\s+", " ", raw).strip()
    raw = re.sub(r"\s*::\s*", "::", raw)
    raw = re.sub(r"\s*([{},])\s*", r"\1", raw)
    out = []

    def walk(prefix, s):
        parts, depth, cur = [], 0, ""
        for ch in s:
            if ch == "{":
                depth += 1
            elif ch == "}":
                depth -= 1
            if ch == "," and depth == 0:
                parts.append(cur)
                cur = ""
            else:
                cur += ch
        parts.append(cur)
        for p in parts:
            p = p.strip()
            if not p:
                continue
            if "{" in p:
                head, rest = p.split("{", 1)
                walk(prefix + [x for x in head.split("::") if x], rest[: rest.rfind("}")])
                continue
            alias = None
            am = re.match(r"^(.*)\s+as\s+([A-Za-z_]\w*)$", p)
            if am:
                p, alias = am.group(1), am.group(2)
            segs = [x for x in p.split("::") if x]
            if segs and segs[-1] == "*":
                out.append((prefix + segs[:-1], None, True))
            else:
                out.append((prefix + segs, alias, False))

    walk([], raw)
    return out


def inline_levels(text):
    """For each line, how many inline `mod … {` blocks enclose it."""
    levels, depth, inline = [], 0, []
    for line in text.split("\n"):
        levels.append(len(inline))
        if INLINE_MOD.match(line):
            inline.append(depth + 1)
        depth += line.count("{") - line.count("}")
        while inline and depth < inline[-1]:
            inline.pop()
    return levels


def resolve(modules, here, segs, level, seen=None):
    """The module a path leads to, following re-exports to the defining module."""
    seen = seen or set()
    cur = here
    first = segs[0]
    rest = list(segs)
    if first == "crate":
        cur, rest = (here[0],), rest[1:]
    elif first == "self":
        rest = rest[1:]
    elif first == "super":
        ups = 0
        while rest and rest[0] == "super":
            ups += 1
            rest = rest[1:]
        ups -= level  # `super` inside an inline mod first leaves that inline mod
        cur = here[: len(here) - ups] if ups > 0 else here
        if len(cur) < 1:
            return None
    elif first in modules[here].children:
        pass
    elif first in modules[here].imports and level == 0:
        target = modules[here].imports[first]
        if tuple(target) == tuple(segs):
            return None
        return resolve(modules, here, target + rest[1:], 0, seen)
    else:
        return None
    return descend(modules, cur, rest, seen)


def descend(modules, cur, rest, seen):
    while rest:
        name = rest[0]
        mod = modules.get(cur)
        if mod is None:
            return None
        if name in mod.children:
            cur, rest = mod.children[name], rest[1:]
            continue
        if name in mod.items:
            return cur
        key = (cur, name)
        if key in seen:
            return cur
        seen.add(key)
        if name in mod.imports:
            target = resolve(modules, cur, mod.imports[name] + rest[1:], 0, seen)
            return target or cur
        for gsegs, glevel in mod.globs:
            if glevel:
                continue
            gmod = resolve(modules, cur, gsegs, 0, seen)
            if gmod and gmod in modules:
                g = modules[gmod]
                if name in g.items or name in g.imports or name in g.children:
                    found = descend(modules, gmod, rest, seen)
                    if found:
                        return found
        return cur
    return cur


def sccs(nodes, edges):
    index, low, on, stack, out = {}, {}, set(), [], []
    counter = [0]
    sys.setrecursionlimit(10000)

    def visit(v):
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        for w in sorted(edges.get(v, ())):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            out.append(comp)

    for v in sorted(nodes):
        if v not in index:
            visit(v)
    return out


def main():
    global SRC
    args = [a for a in sys.argv[1:] if not a.startswith("--")]
    show_edges = "--edges" in sys.argv
    if len(args) != 1:
        print(__doc__.strip().split("\n")[2].strip(), file=sys.stderr)
        return 2
    SRC = os.path.normpath(args[0])
    roots = []
    for name in ("lib.rs", "main.rs"):
        if os.path.exists(os.path.join(SRC, name)):
            roots.append(os.path.join(SRC, name))
    bindir = os.path.join(SRC, "bin")
    if os.path.isdir(bindir):
        roots += sorted(os.path.join(bindir, f) for f in os.listdir(bindir) if f.endswith(".rs"))
    modules = {}
    for root in roots:
        load(root, (os.path.relpath(root, SRC),), modules)
    for mod in modules.values():
        parse(mod)
    edges = {}
    for name, mod in modules.items():
        for segs, level in mod.refs:
            target = resolve(modules, name, segs, level)
            if target and target != name and target in modules:
                edges.setdefault(name, set()).add(target)
    circles = [sorted(c) for c in sccs(list(modules), edges) if len(c) > 1]
    circles.sort(key=lambda c: -len(c))
    label = lambda n: modules[n].path
    arrows = sum(len(v) for v in edges.values())
    print(f"{SRC}: {len(modules)} modules, {arrows} arrows")
    for c in circles:
        members = set(c)
        inner = sorted((a, b) for a in c for b in edges.get(a, ()) if b in members)
        print(f"circle of {len(c)} modules ({len(inner)} arrows): " + ", ".join(label(m) for m in c))
        if show_edges:
            for a, b in inner:
                print(f"    {label(a)} -> {label(b)}")
    print(f"total: {len(circles)} circles")
    return 0


SRC = "."

if __name__ == "__main__":
    sys.exit(main())
