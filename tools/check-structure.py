#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-2-Clause
"""check-structure.py: structural rules of the tree's C sources.

1. No C source or header is longer than LIMIT lines, except generated files
   (a header comment that says "edit the generator, not this file") and the
   entries of EXCEPTIONS below.
2. No circle among the files of one component (top-level directory) in the
   graph whose edges are
   - includes: A includes "B" (a quoted include naming a file of the same
     component), and
   - references: A.c names a function or variable that another file B.c of
     the component defines with external linkage (A.c does not define it
     itself).  A file's names are the identifiers in its function bodies,
     in the initialisers of its file-scope variables and in its macro
     bodies, plus the macro and inline-function bodies of the component
     headers it includes.  Prototypes and extern declarations are not
     references, nor are names the file declares itself (static functions
     and variables, parameters, locals).  Calls through pointers that a
     file registers at run time are not seen, which is the point of
     registering them.

Files: those git lists (tracked, or untracked and not ignored), or every
file under TOP_SRCDIR when it is not a git checkout.

Usage: check-structure.py [--no-exceptions] [TOP_SRCDIR]   (default: $abs_top_srcdir, or the
directory above this script).  Exit 0 when both rules hold, 1 otherwise,
with one line per violation.
"""
import os
import re
import subprocess
import sys

LIMIT = 800
GENERATED_MARK = "edit the generator, not this file"

# Files allowed to exceed LIMIT for now, each with the reason.  An entry
# that is no longer needed (file gone or within the limit) is an error, so
# the list only shrinks.
EXCEPTIONS = {
}

# Components whose files may still form a circle, each with the reason.  A
# component listed here that has no circle any more is an error.
CIRCLE_EXCEPTIONS = {
}

SOURCE_EXT = (".c", ".h")


def list_files(top):
    try:
        # only at the top of a checkout: a tarball unpacked inside another
        # clone (make distcheck there) is not that clone's
        if not os.path.exists(os.path.join(top, ".git")):
            raise OSError("not the top of a git checkout")
        out = subprocess.run(["git", "-C", top, "ls-files", "-z", "--cached",
                              "--others", "--exclude-standard"],
                             capture_output=True, check=True).stdout
        files = [f for f in out.decode().split("\0") if f]
    except (OSError, subprocess.CalledProcessError):
        files = []
        for d, subdirs, names in os.walk(top):
            subdirs[:] = [s for s in subdirs if not s.startswith(".")]
            for n in names:
                files.append(os.path.relpath(os.path.join(d, n), top))
    return sorted(f for f in files
                  if f.endswith(SOURCE_EXT) and "/" in f
                  and os.path.isfile(os.path.join(top, f)))


TOKEN = re.compile(r"""
    (?P<ws>\s+)
  | (?P<comment>/\*.*?\*/|//[^\n]*)
  | (?P<str>"(?:\\.|[^"\\\n])*"|'(?:\\.|[^'\\\n])*')
  | (?P<ident>[A-Za-z_][A-Za-z0-9_]*)
  | (?P<num>\.?[0-9](?:[eEpP][+-]|[A-Za-z0-9_.])*)
  | (?P<punct>.)
""", re.S | re.X)


def tokens(text):
    """Identifiers and single punctuation characters, no comments/strings."""
    for m in TOKEN.finditer(text):
        kind = m.lastgroup
        if kind in ("ident", "punct"):
            yield kind, m.group(kind)


def strip_comments(text):
    return re.sub(r"/\*.*?\*/|//[^\n]*",
                  lambda m: re.sub(r"[^\n]", " ", m.group(0)), text, flags=re.S)


class Unit:
    def __init__(self, path):
        self.path = path
        self.includes = []      # quoted include names
        self.uses = set()       # identifiers referenced
        self.defines = set()    # external-linkage functions and variables
        self.locals = set()     # static definitions, parameters, locals
        self.lines = 0


def strip_attributes(decl):
    out, i = [], 0
    while i < len(decl):
        if decl[i] in ("__attribute__", "__attribute", "__declspec",
                       "__asm__", "asm", "__asm"):
            i += 1
            depth = 0
            while i < len(decl):
                if decl[i] == "(":
                    depth += 1
                elif decl[i] == ")":
                    depth -= 1
                    if depth == 0:
                        i += 1
                        break
                i += 1
            continue
        out.append(decl[i])
        i += 1
    return out


def is_ident(t):
    return re.match(r"[A-Za-z_]", t) is not None


def function_name(decl):
    """Name of the function a definition header declares, or None."""
    decl = strip_attributes(decl)
    if not decl or decl[-1] != ")":
        return None
    depth, i = 0, len(decl) - 1
    while i >= 0:
        if decl[i] == ")":
            depth += 1
        elif decl[i] == "(":
            depth -= 1
            if depth == 0:
                break
        i -= 1
    if i > 0 and is_ident(decl[i - 1]):
        return decl[i - 1]
    return None


def declarators(decl):
    """(name, initialiser tokens) for each declarator of a declaration."""
    decl = strip_attributes(decl)
    parts, cur, depth = [], [], 0
    for t in decl:
        if t in "([{":
            depth += 1
        elif t in ")]}":
            depth -= 1
        if t == "," and depth == 0:
            parts.append(cur)
            cur = []
        else:
            cur.append(t)
    parts.append(cur)
    out = []
    for p in parts:
        init = []
        if "=" in p:
            k = p.index("=")
            p, init = p[:k], p[k + 1:]
        if p and p[-1] == ")":
            continue            # a prototype or a function pointer
        while p and p[-1] == "]":
            k = len(p) - 1 - p[::-1].index("[")
            p = p[:k]
        if p and is_ident(p[-1]):
            out.append((p[-1], init))
    return out


STMT_WORDS = {"return", "case", "goto", "sizeof", "else", "do", "typedef"}


def local_names(decl, body):
    """Names a function declares for itself: parameters and the locals of
    its body (lexically: `T name` or `T *name` before = ; , [ or ) )."""
    out = set()
    depth = 0
    for k, t in enumerate(decl):
        if t == "(":
            depth += 1
        elif t == ")":
            depth -= 1
        elif depth == 1 and is_ident(t) and k + 1 < len(decl) and \
                decl[k + 1] in (",", ")", "["):
            out.add(t)
    for k in range(1, len(body) - 1):
        t = body[k]
        if not is_ident(t) or body[k + 1] not in ("=", ";", ",", "[", ")"):
            continue
        prev = body[k - 1]
        if is_ident(prev) and prev not in STMT_WORDS:
            out.add(t)
        elif prev == "*" and k >= 3 and is_ident(body[k - 2]) and \
                body[k - 2] not in STMT_WORDS and \
                body[k - 3] in (";", "{", "}", "const", "struct", "union",
                                "enum", "volatile"):
            out.add(t)
    return out


KEYWORDS = set("""auto break case char const continue default do double else
enum extern float for goto if inline int long register restrict return short
signed sizeof static struct switch typedef union unsigned void volatile while
_Bool _Static_assert _Thread_local __thread bool""".split())


def parse(top, path):
    u = Unit(path)
    with open(os.path.join(top, path), encoding="utf-8", errors="replace") as f:
        text = f.read()
    u.lines = text.count("\n") + (0 if text.endswith("\n") or not text else 1)
    code_lines = []
    lines = strip_comments(text).split("\n")
    i = 0
    while i < len(lines):
        line = lines[i]
        while line.endswith("\\") and i + 1 < len(lines):
            i += 1
            line = line[:-1] + " " + lines[i]
        i += 1
        m = re.match(r"\s*#\s*(\w+)(.*)", line)
        if not m:
            code_lines.append(line)
            continue
        directive, rest = m.group(1), m.group(2)
        if directive == "include":
            q = re.match(r'\s*"([^"]+)"', rest)
            if q:
                u.includes.append(q.group(1))
        elif directive == "define":
            d = re.match(r"\s*[A-Za-z_]\w*(\([^)]*\))?(.*)", rest)
            if d:
                u.uses.update(t for k, t in tokens(d.group(2)) if k == "ident")
        code_lines.append("")
    toks = [t for _, t in tokens("\n".join(code_lines))]
    decl, i, n = [], 0, len(toks)
    while i < n:
        t = toks[i]
        if t == "{":
            # Find the matching brace; the tokens inside are a body, an
            # initialiser or a struct/enum/union member list.
            depth, j = 0, i
            while j < n:
                if toks[j] == "{":
                    depth += 1
                elif toks[j] == "}":
                    depth -= 1
                    if depth == 0:
                        break
                j += 1
            inner = toks[i + 1:j]
            fname = function_name(decl)
            if fname and "=" not in decl:
                if "static" not in decl:
                    u.defines.add(fname)
                else:
                    u.locals.add(fname)
                u.locals |= local_names(strip_attributes(decl), inner)
                u.uses.update(x for x in inner if is_ident(x))
                decl = []
                i = j + 1
                continue
            if "=" in decl:
                decl = decl + ["{"] + inner + ["}"]
            else:
                decl = decl + ["{", "}"]     # member names are no uses
            i = j + 1
            continue
        if t == ";":
            if decl and "extern" not in decl and "typedef" not in decl:
                for name, init in declarators(decl):
                    u.uses.update(x for x in init if is_ident(x))
                    if name in KEYWORDS:
                        continue
                    if "static" in decl:
                        u.locals.add(name)
                    else:
                        u.defines.add(name)
            decl = []
            i += 1
            continue
        decl.append(t)
        i += 1
    u.uses -= KEYWORDS
    return u


def resolve(inc, src, files_in_comp):
    """The component file a quoted include names, or None."""
    cand = os.path.normpath(os.path.join(os.path.dirname(src), inc))
    if cand in files_in_comp:
        return cand
    hits = [f for f in files_in_comp
            if f == inc or f.endswith("/" + inc)]
    return hits[0] if len(hits) == 1 else (sorted(hits)[0] if hits else None)


def find_circles(nodes, edges):
    """Strongly connected components with more than one node (Tarjan)."""
    index, low, stack, on, out = {}, {}, [], set(), []
    counter = [0]
    sys.setrecursionlimit(10000)

    def visit(v):
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        for w in edges.get(v, {}):
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
            if len(comp) > 1:
                out.append(sorted(comp))
    for v in sorted(nodes):
        if v not in index:
            visit(v)
    return out


def a_cycle(comp, edges):
    """One closed path through the first file of an SCC."""
    members = set(comp)
    start = comp[0]
    prev, frontier = {start: None}, [start]
    while frontier:
        nxt = []
        for v in frontier:
            for w in sorted(edges.get(v, {})):
                if w == start:
                    path = [v]
                    while prev[path[-1]] is not None:
                        path.append(prev[path[-1]])
                    return list(reversed(path)) + [start]
                if w in members and w not in prev:
                    prev[w] = v
                    nxt.append(w)
        frontier = nxt
    return comp


def main():
    args = sys.argv[1:]
    use_exceptions = "--no-exceptions" not in args
    args = [a for a in args if a != "--no-exceptions"]
    exceptions = EXCEPTIONS if use_exceptions else {}
    circle_exceptions = CIRCLE_EXCEPTIONS if use_exceptions else {}
    top = args[0] if args else os.environ.get(
        "abs_top_srcdir",
        os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
    files = list_files(top)
    if not files:
        print("check-structure: no C sources found under %s" % top)
        return 1
    errors = []
    units = {f: parse(top, f) for f in files}
    ngenerated = 0

    for f, u in units.items():
        with open(os.path.join(top, f), encoding="utf-8",
                  errors="replace") as fh:
            head = "".join(fh.readline() for _ in range(15))
        generated = GENERATED_MARK in head
        ngenerated += generated
        if u.lines > LIMIT and not generated and f not in exceptions:
            errors.append("%s: %d lines (limit %d)" % (f, u.lines, LIMIT))
    for f in sorted(exceptions):
        if f not in units or units[f].lines <= LIMIT:
            errors.append("%s: listed in EXCEPTIONS of tools/"
                          "check-structure.py but no longer over %d lines: "
                          "remove the entry" % (f, LIMIT))

    comps = {}
    for f in files:
        comps.setdefault(f.split("/")[0], []).append(f)
    for comp, cfiles in sorted(comps.items()):
        cset = set(cfiles)
        inc = {f: [r for r in (resolve(i, f, cset) for i in units[f].includes)
                   if r and r != f] for f in cfiles}
        # Macro and inline bodies of included headers count as the
        # includer's references.
        def closure(f, seen):
            for h in inc[f]:
                if h not in seen:
                    seen.add(h)
                    closure(h, seen)
            return seen
        definers = {}
        for f in cfiles:
            if f.endswith(".c"):
                for s in units[f].defines:
                    definers.setdefault(s, set()).add(f)
        edges = {f: {} for f in cfiles}
        for f in cfiles:
            for h in inc[f]:
                edges[f].setdefault(h, set()).add("#include")
            if not f.endswith(".c"):
                continue
            uses = set(units[f].uses)
            for h in closure(f, set()):
                uses |= units[h].uses
            for s in uses - units[f].defines - units[f].locals:
                for d in definers.get(s, ()):
                    if d != f:
                        edges[f].setdefault(d, set()).add(s)
        circles = find_circles(cfiles, edges)
        if comp in circle_exceptions:
            if not circles:
                errors.append("%s: listed in CIRCLE_EXCEPTIONS of tools/"
                              "check-structure.py but has no circle: remove "
                              "the entry" % comp)
            continue
        for scc in circles:
            path = a_cycle(scc, edges)
            steps = []
            for a, b in zip(path, path[1:]):
                why = sorted(edges[a][b])
                steps.append("%s -> %s (%s%s)" % (
                    a, b, ", ".join(why[:3]), ", ..." if len(why) > 3 else ""))
            errors.append("%s: circle among %d files: %s" % (
                comp, len(scc), "; ".join(steps)))

    for e in errors:
        print("check-structure: " + e)
    if not errors:
        print("check-structure: %d files, none over %d lines (%d generated, "
              "%d excepted), no circle in %d components (%d excepted)" % (
                  len(files), LIMIT,
                  ngenerated, len(exceptions), len(comps),
                  len(circle_exceptions)))
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
