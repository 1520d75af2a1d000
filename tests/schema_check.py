#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Validate pagestat's JSON and ndjson output against doc/pagestat.schema.json.

usage: schema_check.py SCHEMA FILE...

Each FILE holds what one run printed: one JSON document (-J), several
(-J with -i, a document a line), or ndjson lines, never both.  Each value
is judged by the whole schema, which tells a document, a row, a failure
and the total apart by their keys; what is wrong is told by the
definition that the value's shape says it is meant to meet ("document",
"row", "failure" or "total"), rather than that nothing matched.
A FILE that is not JSON at all (stderr mixed in) is counted, not judged.
Exit status 1 when one FILE breaks the schema.
"""
import json
import multiprocessing
import os
import sys

from jsonschema import Draft202012Validator
from jsonschema.exceptions import best_match


def objects(text):
    """The JSON values one after another in text, or None if it is not JSON."""
    decoder = json.JSONDecoder()
    values, i = [], 0
    try:
        while True:
            while i < len(text) and text[i].isspace():
                i += 1
            if i == len(text):
                return values
            value, i = decoder.raw_decode(text, i)
            values.append(value)
    except ValueError:
        return None


def first_error(validator, value):
    """The error that says most: a wrong value before the unevaluated
    properties it leaves behind (a property that fails its own schema
    counts as unevaluated too)."""
    errors = list(validator.iter_errors(value))
    if not errors:
        return None
    plain = [e for e in errors if e.validator != "unevaluatedProperties"]
    return best_match(plain or errors)


def kind_of(value):
    """Which definition an object is meant to meet, by its shape."""
    if not isinstance(value, dict):
        return "row"
    if "version" in value:
        return "document"
    if value.get("type") == "total":
        return "total"
    return "failure" if "error" in value else "row"


VALIDATORS = {}


def validators(schema_path):
    """The whole schema's validator and one for each kind, made once a
    process."""
    if not VALIDATORS:
        schema = json.load(open(schema_path, encoding="utf-8"))
        Draft202012Validator.check_schema(schema)
        defs = schema["$defs"]
        VALIDATORS["whole"] = Draft202012Validator(schema)
        VALIDATORS["kinds"] = {
            kind: Draft202012Validator({**defs[kind], "$defs": defs})
            for kind in ("document", "row", "failure", "total")}
    return VALIDATORS["whole"], VALIDATORS["kinds"]


def judge(job):
    """One FILE: "skipped", "good", or the line that says what is wrong."""
    schema_path, name = job
    whole, kinds = validators(schema_path)
    with open(name, encoding="utf-8", errors="surrogateescape") as f:
        values = objects(f.read())
    if not values:
        return "skipped"
    documents = sum(kind_of(value) == "document" for value in values)
    if documents not in (0, len(values)):
        return f"{name}: documents and ndjson lines mixed"
    for value in values:
        if whole.is_valid(value):
            continue
        kind = kind_of(value)
        error = first_error(kinds[kind], value) or first_error(whole, value)
        where = "/".join(str(p) for p in error.absolute_path) or "(top)"
        return f"{name}: {kind}: at {where}: {error.message[:300]}"
    return "good"


def main():
    validators(sys.argv[1])
    jobs = [(sys.argv[1], name) for name in sys.argv[2:]]
    # many files (the spool of a whole make check) on every processor,
    # the lines in the order of the files all the same
    if len(jobs) > 8 and (os.cpu_count() or 1) > 1:
        with multiprocessing.Pool() as pool:
            verdicts = pool.map(judge, jobs, chunksize=8)
    else:
        verdicts = [judge(job) for job in jobs]
    checked = skipped = bad = 0
    for verdict in verdicts:
        if verdict == "skipped":
            skipped += 1
            continue
        checked += 1
        if verdict != "good":
            bad += 1
            print(verdict)
    print(f"schema: {checked} outputs checked, {bad} invalid, {skipped} not JSON",
          flush=True)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
