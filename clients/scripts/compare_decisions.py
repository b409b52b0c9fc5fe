"""Fails unless every SDK's decision helpers gave the same answers.

    python3 clients/scripts/compare_decisions.py DIR

DIR holds one <sdk>.json per suite run ({"sdk": ..., "cases": {name:
record}}), written by the Go, Python, TypeScript and Java decision tests for
every golden vector and every case of clients/testdata/decision-cases.json.
go.json, python.json, typescript.json and java.json must all be there; any other file
(python-min.json, from the lowest supported Python) is compared as well.
"""

import json
import math
import pathlib
import sys

REQUIRED = ("go", "python", "typescript", "java")
MIN_CASES = 500


def same(a, b):
    if isinstance(a, bool) or isinstance(b, bool):
        return a is b
    if isinstance(a, (int, float)) and isinstance(b, (int, float)):
        return math.isclose(a, b, rel_tol=1e-9, abs_tol=1e-6)
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(same(a[k], b[k]) for k in a)
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(same(x, y) for x, y in zip(a, b))
    return a == b


def main(directory):
    files = {p.stem: json.loads(p.read_text()) for p in sorted(pathlib.Path(directory).glob("*.json"))}
    missing = [s for s in REQUIRED if s not in files]
    if missing:
        print("compare_decisions: no records from %s in %s" % (", ".join(missing), directory))
        return 1
    ref = files["go"]["cases"]
    if len(ref) < MIN_CASES:
        print("compare_decisions: only %d cases from go; want at least %d" % (len(ref), MIN_CASES))
        return 1
    bad = 0
    for sdk, data in files.items():
        if sdk == "go":
            continue
        cases = data["cases"]
        for name in sorted(set(ref) | set(cases)):
            if name not in cases or name not in ref:
                print("%s: case %s is missing from %s" % (sdk, name, "go" if name not in ref else sdk))
                bad += 1
                continue
            if not same(ref[name], cases[name]):
                bad += 1
                if bad <= 20:
                    print("%s disagrees with go on %s:\n  go:  %s\n  %s: %s"
                          % (sdk, name, json.dumps(ref[name], sort_keys=True), sdk, json.dumps(cases[name], sort_keys=True)))
    if bad:
        print("compare_decisions: %d disagreements" % bad)
        return 1
    print("compare_decisions: %s agree on %d cases" % (", ".join(sorted(files)), len(ref)))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
