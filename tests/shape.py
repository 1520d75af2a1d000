# SPDX-License-Identifier: MIT
"""The shape of src/, checked: what HACKING.md promises about the layers.

    shape.py includes  SRCDIR          an include that points up a layer
    shape.py lengths   SRCDIR          a .c file over 900 lines, a function
                                       over 60
    shape.py state     SRCDIR BUILDDIR the file-level mutable variables of
                                       the program's objects: at most 12,
                                       each named in HACKING.md
    shape.py calls     SRCDIR BUILDDIR files that use each other's names
                                       (functions, tables) in a circle,
                                       read from the objects' symbols

Each prints one line per finding and exits 1 when there is one, 0 when
there is none, 2 when it could not look (too few files read: a check of
nothing would pass whatever the code did)."""

import os
import re
import subprocess
import sys

# The layers of src/, lowest first.  A file may include a header of its own
# layer or of a lower one, never of a higher one.  src/ itself (main, run,
# the option table) is the top.
LAYERS = ["compat", "lib", "kernel", "output", "act", "walk", "modes", "tui", ""]

MAX_FILE_LINES = 900
MAX_FUNCTION_LINES = 60
MAX_MUTABLE = 12

INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"')


def sources(srcdir, suffixes):
    """Every file below SRCDIR/src with one of the suffixes, as paths
    relative to SRCDIR/src."""
    top = os.path.join(srcdir, "src")
    found = []
    for folder, _, names in os.walk(top):
        for name in names:
            if name.endswith(suffixes):
                found.append(os.path.relpath(os.path.join(folder, name), top))
    if len(found) < 40:
        print(f"only {len(found)} files found below {top}")
        sys.exit(2)
    return sorted(found)


def layer_of(path):
    folder = os.path.dirname(path)
    if folder not in LAYERS:
        return None
    return LAYERS.index(folder)


def check_includes(srcdir):
    findings = []
    known = set(sources(srcdir, (".c", ".h")))
    for path in known:
        mine = layer_of(path)
        if mine is None:
            findings.append(f"{path}: its folder is in no layer (tests/shape.py's LAYERS)")
            continue
        with open(os.path.join(srcdir, "src", path), encoding="utf-8") as f:
            for number, line in enumerate(f, 1):
                m = INCLUDE.match(line)
                if not m:
                    continue
                target = m.group(1)
                if target == "config.h":
                    continue
                if target not in known:
                    findings.append(f"{path}:{number}: includes \"{target}\", "
                                    "which is no file below src/ (write its folder)")
                    continue
                theirs = layer_of(target)
                if theirs is not None and theirs > mine:
                    findings.append(f"{path}:{number}: includes {target}, a higher layer "
                                    f"({LAYERS[theirs] or 'src/'} above {LAYERS[mine] or 'src/'})")
    return findings


def functions(lines):
    """(name, first line, length) of every function: a body opens with a
    '{' at column 0 and closes with a '}' at column 0."""
    start = None
    for number, line in enumerate(lines, 1):
        if line.startswith("{"):
            start = number
            back = number - 2
            while back > 0 and not re.search(r"\w+\s*\(", lines[back]):
                back -= 1
            m = re.search(r"(\w+)\s*\(", lines[back]) if back >= 0 else None
            name = m.group(1) if m else "?"
        elif line.startswith("}") and start is not None:
            # the lines between the braces
            yield name, start, number - start - 1
            start = None


def check_lengths(srcdir):
    findings = []
    for path in sources(srcdir, (".c",)):
        with open(os.path.join(srcdir, "src", path), encoding="utf-8") as f:
            lines = f.read().split("\n")
        if lines and lines[-1] == "":
            lines.pop()
        if len(lines) > MAX_FILE_LINES:
            findings.append(f"{path}: {len(lines)} lines (at most {MAX_FILE_LINES})")
        for name, start, length in functions(lines):
            if length > MAX_FUNCTION_LINES:
                findings.append(f"{path}:{start}: {name}: {length} lines "
                                f"(at most {MAX_FUNCTION_LINES})")
    return findings


def mutable_symbols(builddir):
    """(object, name) of every variable in a writable section (.data, .bss;
    not .data.rel.ro, which is read-only once relocated) of the program's
    objects, function-level statics (NAME.N) left out."""
    objects = []
    for folder, _, names in os.walk(os.path.join(builddir, "src")):
        objects += [os.path.join(folder, n) for n in names
                    if n.endswith(".o") and "mkcompletions" not in n]
    if len(objects) < 30:
        print(f"only {len(objects)} objects found below {builddir}/src: is it built?")
        sys.exit(2)
    found = set()
    for obj in sorted(objects):
        out = subprocess.run(["objdump", "-t", obj], capture_output=True,
                             text=True, check=True).stdout
        for line in out.splitlines():
            fields = line.split()
            if " O " not in line or len(fields) < 5:
                continue
            section, name = fields[-3], fields[-1]
            if not re.match(r"\.(data|bss)", section) or ".rel.ro" in section:
                continue
            if name.startswith(("_", ".")) or "." in name:
                continue
            found.add((os.path.basename(obj), name))
    return sorted(found)


def check_state(srcdir, builddir):
    findings = []
    with open(os.path.join(srcdir, "HACKING.md"), encoding="utf-8") as f:
        hacking = f.read()
    symbols = mutable_symbols(builddir)
    for obj, name in symbols:
        if f"`{name}`" not in hacking:
            findings.append(f"{obj}: {name}: a mutable variable HACKING.md does not list")
    if len(symbols) > MAX_MUTABLE:
        findings.append(f"{len(symbols)} file-level mutable variables (at most {MAX_MUTABLE}): "
                        + " ".join(name for _, name in symbols))
    return findings


def program_objects(builddir):
    objects = []
    for folder, _, names in os.walk(os.path.join(builddir, "src")):
        objects += [os.path.join(folder, n) for n in names
                    if n.endswith(".o") and "mkcompletions" not in n]
    if len(objects) < 30:
        print(f"only {len(objects)} objects found below {builddir}/src: is it built?")
        sys.exit(2)
    return sorted(objects)


def check_calls(builddir):
    """A circle of objects each using a name another defines: the files
    of src/ call downwards only (HACKING.md)."""
    defines, uses = {}, {}
    for obj in program_objects(builddir):
        name = os.path.basename(obj)
        out = subprocess.run(["nm", obj], capture_output=True, text=True,
                             check=True).stdout
        uses[name] = set()
        for line in out.splitlines():
            fields = line.split()
            if len(fields) == 2 and fields[0] == "U":
                uses[name].add(fields[1])
            elif len(fields) == 3 and fields[1] in "TDBRV" and not fields[2].startswith("__"):
                defines[fields[2]] = name
    edges = {obj: sorted({defines[sym] for sym in syms if sym in defines} - {obj})
             for obj, syms in uses.items()}
    # Tarjan's strongly connected components, iteratively
    index, low, stack, on, found = {}, {}, [], set(), []
    for root in edges:
        if root in index:
            continue
        work = [(root, 0)]
        while work:
            node, i = work.pop()
            if i == 0:
                index[node] = low[node] = len(index)
                stack.append(node)
                on.add(node)
            if i < len(edges[node]):
                work.append((node, i + 1))
                nxt = edges[node][i]
                if nxt not in index:
                    work.append((nxt, 0))
                elif nxt in on:
                    low[node] = min(low[node], index[nxt])
                continue
            if low[node] == index[node]:
                part = []
                while True:
                    top = stack.pop()
                    on.discard(top)
                    part.append(top)
                    if top == node:
                        break
                if len(part) > 1:
                    found.append(part)
            for parent, _ in work[-1:]:
                low[parent] = min(low[parent], low[node])
    findings = []
    for part in found:
        ties = [f"{a} -> {b}" for a in sorted(part) for b in edges[a] if b in part]
        findings.append("a circle of calls: " + ", ".join(ties))
    return findings


def main():
    if len(sys.argv) < 3:
        print(__doc__)
        return 2
    what, srcdir = sys.argv[1], sys.argv[2]
    if what == "includes":
        findings = check_includes(srcdir)
    elif what == "lengths":
        findings = check_lengths(srcdir)
    elif what == "state" and len(sys.argv) == 4:
        findings = check_state(srcdir, sys.argv[3])
    elif what == "calls" and len(sys.argv) == 4:
        findings = check_calls(sys.argv[3])
    else:
        print(__doc__)
        return 2
    for finding in findings:
        print(finding)
    return 1 if findings else 0


if __name__ == "__main__":
    sys.exit(main())
