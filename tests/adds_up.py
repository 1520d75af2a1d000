#!/usr/bin/env python3
"""Says what does not hold together in the output of
`pagestat -a --format=FORMAT OPERAND` (one operand, a directory): the
document must parse, its file rows must add up to the operand's row and
to the total, and JSON's error count must match its error rows and the
exit status.  Prints one line per problem; exit 1 when there is any.

usage: adds_up.py json|ndjson|csv OPERAND STATUS <OUTPUT
"""
import csv
import io
import json
import sys


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


def main():
    if len(sys.argv) != 4 or sys.argv[1] not in ("json", "ndjson", "csv"):
        sys.exit(__doc__)
    check = {"json": check_json, "ndjson": check_ndjson, "csv": check_csv}[sys.argv[1]]
    problems = check(sys.stdin.read(), sys.argv[2], int(sys.argv[3]))
    for problem in problems:
        print(problem)
    sys.exit(1 if problems else 0)


main()
