#!/usr/bin/env python3
"""Print the import circles inside Rust crates.

    python3 scripts/dev/import-circles.py crates/assent-core/src [more/src ...] [--edges]
        [--check [--allow PREFIX ...]]
    python3 scripts/dev/import-circles.py --self-test

A module is one file (a folder's mod.rs and each of its children are separate modules;
inline `mod x { … }` blocks, such as `mod tests`, belong to their file). An arrow A -> B
is any `use` or path in A's code that names B through `crate::`, `super::`, `self::`, a
child module's name, an imported name or a glob import; a call of a function in the crate
root is an arrow to the root. `mod` declarations are not arrows.

A name re-exported with `use` is followed to the module that defines it, and the path
depends on each module whose re-export it passed through: `crate::push::Retry`, defined
in push/deliver.rs and re-exported by push/mod.rs, is an arrow to both. The crate root's
re-exports are the exception: they are the crate's face to other crates, so inside the
crate `crate::AppState` names only the file that declares `AppState` (and a re-export of
another crate, such as `pub use assent_fs::atomic_file`, names no module of this one).
A `pub use` in a module is not that module's own arrow unless its code uses the name:
a folder's mod.rs that passes its children's names on is not in a circle with them.

A circle is a strongly connected component of more than one module. The script prints
each circle with its size (and, with --edges, the arrows inside it), then the total.
With --check it exits 1 if a circle has a module outside every --allow path prefix.
--self-test runs the script on small crates with known circles. Standard library only.
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


USE_STMT = re.compile(r"(\bpub(?:\s*\([^)]*\))?\s+)?\buse\s+([^;]+);")


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
    code = USE_STMT.sub(lambda u: "\n" * u.group(0).count("\n"), text)
    body = re.sub(r"\bmod\s+\w+\s*;", "", code)  # what a `pub use` name must be found in
    for um in USE_STMT.finditer(text):
        start_line = text.count("\n", 0, um.start())
        level = line_depth[start_line]
        public = bool(um.group(1))
        for segs, alias, glob in expand(um.group(2)):
            if not segs:
                continue
            local = None
            if glob:
                mod.globs.append((segs, level))
            else:
                local = alias or (segs[-1] if segs[-1] != "self" else segs[-2] if len(segs) > 1 else None)
                if segs[-1] == "self":
                    segs = segs[:-1]
                if local and level == 0:
                    mod.imports[local] = segs
            # A `pub use` only passes a name on: the arrow is drawn from whoever names it
            # through this module. It is this module's own arrow only if its code uses the name.
            if public and not (local and re.search(r"(?<![\w:.])" + re.escape(local) + r"\b", body)):
                continue
            mod.refs.append((segs, level))
    # paths written in code
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


def resolve(modules, here, segs, level, via=None, seen=None):
    """The module a path leads to, following re-exports to the defining module.

    Each module other than a crate root whose `use` the path passes through is added to
    `via`: the path depends on that re-export as much as on the item itself."""
    seen = set() if seen is None else seen
    via = [] if via is None else via
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
        return resolve(modules, here, target + rest[1:], 0, via, seen)
    elif level == 0 and len(rest) > 1:
        return through_globs(modules, here, rest, via, seen)
    else:
        return None
    return descend(modules, cur, rest, via, seen)


def through_globs(modules, cur, rest, via, seen):
    """The module `rest` leads to when its first name comes from one of `cur`'s glob imports."""
    name = rest[0]
    if (cur, "*", name) in seen:
        return None
    seen.add((cur, "*", name))
    for gsegs, glevel in modules[cur].globs:
        if glevel:
            continue
        gmod = resolve(modules, cur, gsegs, 0, [], seen)
        if gmod and gmod in modules and gmod != cur:
            g = modules[gmod]
            if name in g.items or name in g.imports or name in g.children:
                found = descend(modules, gmod, rest, via, seen)
                if found:
                    return found
    return None


def descend(modules, cur, rest, via, seen):
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
            # A crate root's re-exports are its face to other crates; inside the crate
            # a path through them names the defining module, not the root.
            if len(cur) > 1:
                via.append(cur)
            return resolve(modules, cur, mod.imports[name] + rest[1:], 0, via, seen)
        found = through_globs(modules, cur, rest, via, seen)
        if found:
            if len(cur) > 1:
                via.append(cur)
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


def analyze(src):
    """The modules of the crate in `src`, the arrows between them, and its circles."""
    global SRC
    SRC = os.path.normpath(src)
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
            via = []
            target = resolve(modules, name, segs, level, via)
            for t in via + ([target] if target else []):
                if t != name and t in modules:
                    edges.setdefault(name, set()).add(t)
    circles = [sorted(c) for c in sccs(list(modules), edges) if len(c) > 1]
    circles.sort(key=lambda c: (-len(c), c))
    return modules, edges, circles


def report(src, show_edges, allow):
    """Prints the crate's circles; returns how many are not allowed."""
    modules, edges, circles = analyze(src)
    label = lambda n: modules[n].path
    arrows = sum(len(v) for v in edges.values())
    print(f"{SRC}: {len(modules)} modules, {arrows} arrows")
    bad = 0
    for c in circles:
        members = set(c)
        inner = sorted((a, b) for a in c for b in edges.get(a, ()) if b in members)
        allowed = allow and all(any(label(m).startswith(p) for p in allow) for m in c)
        bad += not allowed
        note = " (allowed)" if allowed else ""
        print(f"circle of {len(c)} modules ({len(inner)} arrows){note}: " + ", ".join(label(m) for m in c))
        if show_edges:
            for a, b in inner:
                print(f"    {label(a)} -> {label(b)}")
    print(f"total: {len(circles)} circles")
    return bad


# Each case: a crate's files, and the circles the script must find in it (sets of paths).
SELF_TEST = [
    (
        "a crate root's re-export of another crate is no arrow to the root",
        {
            "lib.rs": "mod a;\npub use other::atomic_file;\npub fn run() { a::go(); }\n",
            "a.rs": "pub fn go() { crate::atomic_file::write(); }\n",
        },
        [],
    ),
    (
        "a crate root's re-export leads to the module that defines the name",
        {
            "lib.rs": "mod a;\nmod b;\npub use a::Thing;\npub fn run() { b::go(); }\n",
            "a.rs": "pub struct Thing;\n",
            "b.rs": "pub fn go() { let _ = crate::Thing; }\n",
        },
        [],
    ),
    (
        "a call of a function in the crate root is an arrow to the root",
        {
            "lib.rs": "mod a;\npub fn helper() {}\npub fn run() { a::go(); }\n",
            "a.rs": "pub fn go() { crate::helper(); }\n",
        },
        [{"lib.rs", "a.rs"}],
    ),
    (
        "a name used through another module's `pub use` is an arrow to that module too",
        {
            "lib.rs": "mod cfg;\nmod push;\nmod state;\n",
            "push/mod.rs": "mod deliver;\npub use deliver::Retry;\n"
            "use crate::state::Shared;\npub fn push_to(_: &Shared) {}\n",
            "push/deliver.rs": "pub struct Retry;\n",
            "state.rs": "use crate::cfg::Config;\npub struct Shared { pub config: Config }\n",
            "cfg.rs": "pub struct Config { pub retry: crate::push::Retry }\n",
        },
        [{"cfg.rs", "push/mod.rs", "state.rs"}],
    ),
    (
        "a folder's mod.rs passing its children's names on is no circle with them",
        {
            "lib.rs": "pub mod chain;\n",
            "chain/mod.rs": "mod key;\nmod walk;\npub use key::Key;\npub use walk::walk;\n"
            "pub struct Row;\n",
            "chain/key.rs": "use super::Row;\npub struct Key(Row);\n",
            "chain/walk.rs": "use super::{Key, Row};\npub fn walk(_: Key, _: Row) {}\n",
        },
        [],
    ),
    (
        "a `pub use` whose name the module's own code uses is that module's arrow",
        {
            "lib.rs": "pub mod chain;\n",
            "chain/mod.rs": "mod key;\npub use key::Key;\npub struct Row;\npub fn first(_: Key) {}\n",
            "chain/key.rs": "use super::Row;\npub struct Key(Row);\n",
        },
        [{"chain/mod.rs", "chain/key.rs"}],
    ),
    (
        "`super::` paths, `self::` paths and glob imports are followed",
        {
            "lib.rs": "mod a;\nmod b;\nmod c;\n",
            "a.rs": "use crate::b::*;\npub struct A;\npub fn f() { inner::g(); }\n",
            "b.rs": "pub mod inner {\n    pub fn g() {\n        super::super::c::h();\n    }\n}\n",
            "c.rs": "pub fn h() { let _ = self::k; }\npub fn k() { let _ = crate::a::A; }\n",
        },
        [{"a.rs", "b.rs", "c.rs"}],
    ),
    (
        "paths in comments, strings and inline test modules' own imports are no arrows",
        {
            "lib.rs": "mod a;\nmod b;\n",
            "a.rs": "pub fn f() { crate::b::g(); }\n",
            "b.rs": "// crate::a::f\npub fn g() { let _ = \"crate::a::f\"; }\n"
            "#[cfg(test)]\nmod tests {\n    use super::*;\n    fn t() { g(); }\n}\n",
        },
        [],
    ),
]


def self_test():
    """Runs SELF_TEST; returns the number of failed cases."""
    import io
    import contextlib
    import tempfile

    failed = 0
    for title, files, want in SELF_TEST:
        with tempfile.TemporaryDirectory() as root:
            for path, text in files.items():
                full = os.path.join(root, path)
                os.makedirs(os.path.dirname(full), exist_ok=True)
                with open(full, "w", encoding="utf-8") as f:
                    f.write(text)
            with contextlib.redirect_stdout(io.StringIO()):
                modules, _, circles = analyze(root)
            got = sorted(sorted(modules[m].path for m in c) for c in circles)
            if got != sorted(sorted(c) for c in want):
                failed += 1
                print(f"FAIL: {title}: found {got}, want {[sorted(c) for c in want]}")
    print(f"self-test: {len(SELF_TEST) - failed}/{len(SELF_TEST)} cases pass")
    return failed


def main():
    argv = sys.argv[1:]
    if "--self-test" in argv:
        return 1 if self_test() else 0
    allow, dirs, i = [], [], 0
    while i < len(argv):
        if argv[i] == "--allow" and i + 1 < len(argv):
            allow.append(argv[i + 1])
            i += 1
        elif not argv[i].startswith("--"):
            dirs.append(argv[i])
        i += 1
    if not dirs:
        print(__doc__.strip().split("\n")[2].strip(), file=sys.stderr)
        return 2
    bad = sum(report(d, "--edges" in argv, allow) for d in dirs)
    return 1 if "--check" in argv and bad else 0


SRC = "."

if __name__ == "__main__":
    sys.exit(main())
