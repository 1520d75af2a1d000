#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Says what does not hold together in the output of
`pagestat -a --format=FORMAT OPERAND` (one operand, a directory): the
document must parse, its file rows must add up to the operand's row and
to the total, and JSON's error count must match its error rows and the
exit status.  Prints one line per problem; exit 1 when there is any.

With --system as OPERAND, the output of `pagestat --system` (the table
with -b, CSV, JSON or Prometheus): the rows that are not files (a row per
file system, the one of the deleted and memfd files, the block devices;
not the cgroups' rows, which are memory.stat's) must add up to the total, counter by counter; the row of the deleted and
memfd files must be there once, and when every file it sums is listed
too (each named "... (deleted)"), they must add up to it; Prometheus must
repeat no series.

usage: adds_up.py json|ndjson|csv OPERAND STATUS <OUTPUT
       adds_up.py json|csv|table|prometheus --system STATUS <OUTPUT
"""
import csv
import io
import json
import re
import sys

# --system: the path of the row that sums the files no mount leads to
DELETED_ROW = "(deleted and memfd files)"
# the counters that add up, as JSON and CSV name them
COUNTERS = ("size", "pages", "cached", "dirty", "writeback", "evicted", "recently_evicted",
            "files")


def sums(files, keys):
    return {key: sum(row.get(key) or 0 for row in files) for key in keys}


def row_name(row):
    return "%r (%s)" % (row.get("path"), row.get("type"))


def check_json(text, operand, status):
    try:
        doc = json.loads(text)
    except ValueError as e:
        return ["not valid JSON: %s" % e]
    if not isinstance(doc, dict) or not isinstance(doc.get("rows"), list):
        return ["no array of rows"]
    rows, total = doc["rows"], doc.get("total") or {}
    problems = []
    if total.get("type") != "total":
        problems.append("the total's type is %r" % total.get("type"))
    failed = [row for row in rows if "error" in row]
    if doc.get("errors") != len(failed):
        problems.append("errors says %r, %d rows have an error" % (doc.get("errors"), len(failed)))
    if (len(failed) > 0) != (status == 1):
        problems.append("%d error rows with exit %d" % (len(failed), status))
    if not rows or rows[-1].get("path") != operand or rows[-1].get("type") != "directory":
        return problems + ["the last row is %s, not %r (directory)"
                           % (row_name(rows[-1]) if rows else "missing", operand)]
    files = [row for row in rows if row.get("type") == "file" and "error" not in row]
    for key, value in sums(files, ("files", "cached", "pages")).items():
        if value != total.get(key):
            problems.append("the file rows' %s add up to %d, the total says %r"
                            % (key, value, total.get(key)))
    for key in ("files", "cached"):
        if rows[-1].get(key) != total.get(key):
            problems.append("%r says %s %r, the total %r"
                            % (operand, key, rows[-1].get(key), total.get(key)))
    return problems


def check_ndjson(text, operand, status):
    rows = []
    lines = text.split("\n")
    if lines[-1] == "":
        lines.pop()
    for number, line in enumerate(lines, 1):
        try:
            row = json.loads(line)
        except ValueError as e:
            row = e
        if not isinstance(row, dict):
            return ["line %d is not one JSON object (%s): %r" % (number, row, line[:200])]
        rows.append(row)
    totals = [row for row in rows if row.get("type") == "total"]
    if len(rows) < 2 or rows[-1].get("type") != "total" or len(totals) != 1:
        return ["%d lines, %d totals: the total must be the last line, once"
                % (len(rows), len(totals))]
    total, top = rows[-1], rows[-2]
    problems = []
    if top.get("path") != operand or top.get("type") != "directory":
        problems.append("the line before the total is %s, not %r (directory)"
                        % (row_name(top), operand))
    files = [row for row in rows if row.get("type") == "file" and "error" not in row]
    for key, value in sums(files, ("files", "cached", "pages")).items():
        if value != total.get(key):
            problems.append("the file rows' %s add up to %d, the total says %r"
                            % (key, value, total.get(key)))
    for key in ("files", "cached", "pages"):
        if top.get(key) != total.get(key):
            problems.append("%r says %s %r, the total %r"
                            % (operand, key, top.get(key), total.get(key)))
    return problems


def check_csv(text, operand, status):
    rows = list(csv.reader(io.StringIO(text, newline="")))
    if not rows:
        return ["no header"]
    head, body = rows[0], rows[1:]
    if head[:2] != ["path", "type"]:
        return ["header %r" % head]
    uneven = [number for number, row in enumerate(body, 2) if len(row) != len(head)]
    if uneven:
        return ["lines %s do not have the header's %d fields" % (uneven[:10], len(head))]
    col = {name: i for i, name in enumerate(head)}
    files = [r for r in body if r[col["type"]] == "file"]
    dirs = [r for r in body if r[col["type"]] == "directory"]
    if [r[col["path"]] for r in dirs] != [operand]:
        return ["directory rows %r, want only %r" % ([r[col["path"]] for r in dirs], operand)]
    problems = []
    for key in ("files", "size", "pages", "cached", "dirty"):
        try:
            value = sum(int(r[col[key]]) for r in files)
        except ValueError as e:
            return problems + ["%s of a file row is not a number: %s" % (key, e)]
        if str(value) != dirs[0][col[key]]:
            problems.append("%s: the file rows add up to %d, %r says %s"
                            % (key, value, operand, dirs[0][col[key]]))
    return problems


# --system: each reader gives (rows, total, problems): a row is a dict of
# path, type (file or not, at least) and the counters it has (None for an
# unknown one); the table and Prometheus carry no type but the total's.


def system_json(text):
    try:
        doc = json.loads(text)
    except ValueError as e:
        return [], {}, ["not valid JSON: %s" % e]
    if not isinstance(doc, dict) or not isinstance(doc.get("rows"), list):
        return [], {}, ["no array of rows"]
    keys = COUNTERS + tuple(k + "_bytes" for k in COUNTERS)
    rows = [dict(r, path=r.get("path"), type=r.get("type"))
            for r in doc["rows"] if "error" not in r]
    total = doc.get("total") or {}
    return ([{k: r.get(k) for k in ("path", "type") + keys} for r in rows],
            {k: total.get(k) for k in keys}, [])


def system_csv(text):
    rows = list(csv.reader(io.StringIO(text, newline="")))
    if not rows or rows[0][:2] != ["path", "type"]:
        return [], {}, ["header %r" % (rows[0] if rows else None)]
    head, body = rows[0], rows[1:]
    out = []
    for number, row in enumerate(body, 2):
        if len(row) != len(head):
            return [], {}, ["line %d does not have the header's %d fields" % (number, len(head))]
        r = dict(zip(head, row))
        cells = {k: (int(v) if v != "" else None) for k, v in r.items()
                 if k not in ("path", "type", "percent", "backing", "fstype", "note")
                 and (k in COUNTERS or k.endswith("_bytes"))}
        out.append(dict(cells, path=r["path"], type=r["type"]))
    totals = [r for r in out if r["type"] == "total"]
    if len(totals) != 1 or out[-1] is not totals[0]:
        return [], {}, ["%d total rows: the total must be the last, once" % len(totals)]
    return out[:-1], totals[0], []


def system_table(text):
    """The table of -b: its file rows come first (FSTYPE "-"), the others
    from the first file system on (or as TYPE says, when shown); PATH last."""
    lines = [line for line in text.split("\n") if line and not line.startswith("coverage: ")]
    if not lines:
        return [], {}, ["no header"]
    head = lines[0].split()
    if head[-1] != "PATH" or not ("FSTYPE" in head or "TYPE" in head):
        return [], {}, ["header %r: PATH last, and FSTYPE or TYPE, are needed" % head]
    out, others = [], False
    for line in lines[1:]:
        cells = dict(zip(head, line.split(None, len(head) - 1)))
        if len(cells) != len(head):
            return [], {}, ["a line of %d cells, not %d: %r" % (len(cells), len(head), line)]
        row = {"path": cells["PATH"]}
        for key in COUNTERS:
            value = cells.get(key.upper())
            if value is not None and value != "-" and not value.isdigit():
                return [], {}, ["%s %r is not a number (run with -b): %r" % (key, value, line)]
            if value is not None:
                row[key] = None if value == "-" else int(value)
        others = others or cells.get("FSTYPE", "-") != "-"
        row["type"] = cells.get("TYPE", "other" if others else "file")
        if cells.get("FSTYPE") in ("cgroup", "cgroup2"):
            row["type"] = "cgroup"
        out.append(row)
    if not out or out[-1]["path"] != "total":
        return [], {}, ["the last row is not the total: %r" % (out[-1] if out else None)]
    return out[:-1], out[-1], []


def prom_label(value):
    return re.sub(r'\\(.)', lambda m: "\n" if m.group(1) == "n" else m.group(1), value)


def system_prometheus(text):
    rows, total, problems, seen = {}, {}, [], set()
    sample = re.compile(r'^pagestat_(\w+?)(?:_bytes)?(?:\{(.*)\})? (\d+)$')
    for line in text.split("\n"):
        if not line or line.startswith("#"):
            continue
        m = sample.match(line)
        if not m:
            return [], {}, ["not a sample: %r" % line]
        if line.rsplit(" ", 1)[0] in seen:
            problems.append("a series repeated: %r" % line)
        seen.add(line.rsplit(" ", 1)[0])
        family, labels, value = m.group(1), m.group(2) or "", int(m.group(3))
        if family.startswith(("kernel_", "cgroup_")) or family == "errors":
            continue
        label = {k: prom_label(v)
                 for k, v in re.findall(r'(\w+)="((?:[^"\\]|\\.)*)"', labels)}
        if label.get("type") == "total":
            total[family] = value
            continue
        row = rows.setdefault((label.get("path"), label.get("type")),
                              {"path": label.get("path"), "type": label.get("type")})
        row[family] = value
    return list(rows.values()), total, problems


def check_system(fmt, text, status):
    read = {"json": system_json, "csv": system_csv, "table": system_table,
            "prometheus": system_prometheus}.get(fmt)
    if not read:
        return ["--system: no check of %s" % fmt]
    rows, total, problems = read(text)
    if not total:
        return problems or ["no total"]
    # the cgroups' rows are the kernel's figures, beside the files' sums
    others = [r for r in rows if r["type"] not in ("file", "cgroup")]
    for key, want in total.items():
        if key in ("path", "type") or want is None:
            continue
        value = sum(r.get(key) or 0 for r in others)
        if value != want:
            problems.append("%s: the rows that are not files add up to %d, the total says %d"
                            % (key, value, want))
    deleted = [r for r in others if r["path"] == DELETED_ROW]
    if len(deleted) != 1 or deleted[0]["type"] not in ("filesystem", "other"):
        return problems + ["%d rows %r (%s), not one of type filesystem"
                           % (len(deleted), DELETED_ROW, [r["type"] for r in deleted])]
    held = [r for r in rows if r["type"] == "file" and r["path"].endswith(" (deleted)")]
    files = deleted[0].get("files")
    if files is not None and len(held) > files:
        problems.append("%d deleted files listed, %r sums %d" % (len(held), DELETED_ROW, files))
    elif len(held) == files:
        for key, want in deleted[0].items():
            if key in ("path", "type") or want is None:
                continue
            value = sum(r.get(key) or 0 for r in held)
            if value != want:
                problems.append("%s: the %d deleted files listed add up to %d, %r says %d"
                                % (key, len(held), value, DELETED_ROW, want))
    return problems


def main():
    if len(sys.argv) == 4 and sys.argv[2] == "--system":
        problems = check_system(sys.argv[1], sys.stdin.read(), int(sys.argv[3]))
        for problem in problems:
            print(problem)
        sys.exit(1 if problems else 0)
    if len(sys.argv) != 4 or sys.argv[1] not in ("json", "ndjson", "csv"):
        sys.exit(__doc__)
    check = {"json": check_json, "ndjson": check_ndjson, "csv": check_csv}[sys.argv[1]]
    problems = check(sys.stdin.read(), sys.argv[2], int(sys.argv[3]))
    for problem in problems:
        print(problem)
    sys.exit(1 if problems else 0)


main()
