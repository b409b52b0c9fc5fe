#!/usr/bin/env python3
"""Score classifiers' answers against the provider fixtures' expected answers.

Standard library only. Usage:

    python3 scorecard/score.py [--fixtures testdata/providers] answers/*.json

Each answers file is a JSON object: fixture name -> {"class", "retry", "wait_s"},
each value null where the classifier has no opinion, plus an optional "$meta"
object ({"classifier", "version", "how", "notions"}). The expected answer of a
fixture is its "want": class (one of the Error Class Contract's four, or "" for
an answer that is not an error), retry = (class == "transient"), wait =
want.retry_after_secs (whole seconds; set only on a transient answer that
states a wait).

Scoring, per classifier:
- class: of the fixtures it gave a class for, how many equal the expected one;
- retry: of the fixtures it gave a retry decision for, how many equal the
  expected one;
- wait: of the fixtures whose expected answer states a wait, how many it
  answered within 1 s or 10 % (whichever is larger); no wait there is wrong.
A notion the classifier never answers (or that "$meta".notions leaves out) is
shown as "—".

Prints a markdown table (with --detail, the misses per classifier; with
--doc FILE, also writes it between the scorecard markers of FILE).
"""
import argparse
import datetime
import glob
import json
import os
import sys

NOTIONS = ("class", "retry", "wait")


def load_fixtures(folder):
    want = {}
    for path in sorted(glob.glob(os.path.join(folder, "*.json"))):
        with open(path) as f:
            fx = json.load(f)
        w = fx["want"]
        cls = w.get("class", "")
        want[fx["name"]] = {
            "class": cls,
            "retry": cls == "transient",
            "wait": w.get("retry_after_secs"),
            "status": fx["answer"]["status"],
            "provider": fx["answer"]["provider"].lower(),
            # The limit a person reads in the answer (want.limit): its kind
            # ("none": the answer is not a limit) and what to do about it.
            "limit_kind": (w.get("limit") or {}).get("kind"),
            "limit_decision": (w.get("limit") or {}).get("decision"),
        }
    return want


def wait_ok(got, want):
    return got is not None and abs(float(got) - float(want)) <= max(1.0, 0.1 * float(want))


def pct(right, n):
    if n == 0:
        return "—"
    return f"{100.0 * right / n:.1f} % ({right}/{n})"


def score(want, answers, partial=False):
    meta = answers.get("$meta", {})
    rows = {k: v for k, v in answers.items() if k != "$meta"}
    unknown = sorted(set(rows) - set(want))
    if unknown and not partial:
        raise SystemExit(f"{meta.get('classifier', '?')}: answers for fixtures not in the corpus: {unknown[:5]}")
    missing = len(set(want) - set(rows))
    if missing and not partial:
        print(f"warning: {meta.get('classifier', '?')}: no answer for {missing} fixtures (scored as no opinion)", file=sys.stderr)
    declared = meta.get("notions")
    key = {"class": "class", "retry": "retry", "wait": "wait_s"}
    has = {n: (n in declared) if declared is not None else any((r or {}).get(key[n]) is not None for r in rows.values()) for n in NOTIONS}
    tally = {n: [0, 0] for n in NOTIONS}
    misses = []
    extra = {"retried_non_transient": 0, "gave_up_transient": 0}
    for name, w in want.items():
        a = rows.get(name) or {}
        if has["class"] and a.get("class") is not None:
            tally["class"][1] += 1
            if a["class"] == w["class"]:
                tally["class"][0] += 1
            else:
                misses.append((name, "class", a["class"], w["class"]))
        if has["retry"] and a.get("retry") is not None:
            tally["retry"][1] += 1
            if bool(a["retry"]) == w["retry"]:
                tally["retry"][0] += 1
            else:
                misses.append((name, "retry", a["retry"], w["retry"]))
                extra["retried_non_transient" if a["retry"] else "gave_up_transient"] += 1
        if has["wait"] and w["wait"] is not None:
            tally["wait"][1] += 1
            if wait_ok(a.get("wait_s"), w["wait"]):
                tally["wait"][0] += 1
            else:
                misses.append((name, "wait", a.get("wait_s"), w["wait"]))
    return meta, has, tally, extra, misses


def table(want, results, title=None):
    n_wait = sum(1 for w in want.values() if w["wait"] is not None)
    n_retry = sum(1 for w in want.values() if w["retry"])
    lines = [
        f"{title or 'Corpus'}: {len(want)} fixtures ({n_retry} expect a retry, {n_wait} state a wait).",
        "",
        "| classifier | version | class right | retry decision right | wait right (±1 s or 10 %) | retries a non-transient | gives up on a transient | n |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for meta, has, tally, extra, _ in results:
        cells = [pct(*tally[n]) if has[n] else "—" for n in NOTIONS]
        more = [str(extra["retried_non_transient"]), str(extra["gave_up_transient"])] if has["retry"] else ["—", "—"]
        lines.append(f"| {meta.get('classifier', '?')} | {meta.get('version', '?')} | " + " | ".join(cells + more) + f" | {len(want)} |")
    return lines


# A classifier that answers only retry or not can still be held to the
# limit decision: a retry is wait_until_reset (the same call again, later),
# no retry stop_and_tell_a_person. It can never say fail_over (send it to
# another model, region or provider) or reduce_concurrency, which is the
# point of the decision: capacity and concurrency limits want neither a
# plain retry nor giving up.
RETRY_DECISION = {True: "wait_until_reset", False: "stop_and_tell_a_person"}


def limit_score(want, answers):
    """Limit kind and decision, over the fixtures that state them."""
    rows = {k: v for k, v in answers.items() if k != "$meta"}
    kind, decision, derived = [0, 0], [0, 0], False
    misses = []
    for name, w in want.items():
        a = rows.get(name) or {}
        if w["limit_kind"] is not None and a.get("limit_kind") is not None:
            kind[1] += 1
            got = a["limit_kind"] or "none"
            if got == w["limit_kind"]:
                kind[0] += 1
            else:
                misses.append((name, "limit_kind", got, w["limit_kind"]))
        if w["limit_decision"]:
            got = a.get("limit_decision")
            if got is None and a.get("retry") is not None:
                got, derived = RETRY_DECISION[bool(a["retry"])], True
            if got is None:
                continue
            decision[1] += 1
            if got == w["limit_decision"]:
                decision[0] += 1
            else:
                misses.append((name, "limit_decision", got, w["limit_decision"]))
    return kind, decision, derived, misses


def limit_table(want, files):
    n_kind = sum(1 for w in want.values() if w["limit_kind"] is not None)
    n_dec = sum(1 for w in want.values() if w["limit_decision"])
    lines = [
        f"Limits: the {n_kind} fixtures that state which limit the answer hit (`want.limit.kind`: rate, quota, spend, "
        f"concurrency, capacity, or none), {n_dec} of them what to do about it (`want.limit.decision`). "
        "A classifier without a limit decision is read from its retry answer (marked *): a retry waits until the reset, "
        "no retry stops and tells a person; neither fails over nor sends fewer in flight.",
        "",
        "| classifier | limit kind right | limit decision right | n |",
        "|---|---|---|---|",
    ]
    for a in files:
        meta = a.get("$meta", {})
        kind, decision, derived, _ = limit_score(want, a)
        cells = [pct(*kind) if kind[1] else "—", (pct(*decision) + (" *" if derived else "")) if decision[1] else "—"]
        lines.append(f"| {meta.get('classifier', '?')} | " + " | ".join(cells) + f" | {n_kind} |")
    return lines


BEGIN, END = "<!-- scorecard:begin -->", "<!-- scorecard:end -->"


def write_doc(path, lines):
    with open(path) as f:
        doc = f.read()
    if BEGIN not in doc or END not in doc:
        raise SystemExit(f"{path}: no {BEGIN} ... {END} block")
    today = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d")
    block = "\n".join([BEGIN, f"Generated by `bash scorecard/run.sh` on {today} (UTC).", ""] + lines + [END])
    head, rest = doc.split(BEGIN, 1)
    with open(path, "w") as f:
        f.write(head + block + rest.split(END, 1)[1])


def main(argv=None):
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--fixtures", default=os.path.join(root, "testdata", "providers"))
    p.add_argument("--detail", action="store_true", help="list every miss")
    p.add_argument("--doc", help="also write the table between the scorecard markers of this markdown file")
    p.add_argument("answers", nargs="+")
    args = p.parse_args(argv)
    want = load_fixtures(args.fixtures)
    if not want:
        raise SystemExit(f"no fixtures in {args.fixtures}")
    files = []
    for path in args.answers:
        with open(path) as f:
            files.append(json.load(f))
    results = [score(want, a) for a in files]
    lines = table(want, results)
    # The same, on the HTTP errors alone (status 400 and up): what a
    # status-only retry rule can see at all.
    errors = {k: w for k, w in want.items() if w["status"] >= 400}
    lines += [""] + table(errors, [score(errors, a, partial=True) for a in files], "HTTP errors only (status 400 and up)")
    # Each provider's own client on that provider's answers ("$meta".own_providers).
    own = [(a, {k: w for k, w in want.items() if w["provider"] in a["$meta"]["own_providers"]}) for a in files if a.get("$meta", {}).get("own_providers")]
    if own:
        lines += ["", "Each client on its own providers' fixtures only:", "",
                  "| classifier | providers | retry decision right | wait right (±1 s or 10 %) | retries a non-transient | gives up on a transient | n |",
                  "|---|---|---|---|---|---|---|"]
        for a, sub in own:
            meta, has, tally, extra, _ = score(sub, a, partial=True)
            cells = [pct(*tally[n]) if has[n] else "—" for n in ("retry", "wait")]
            lines.append(f"| {meta.get('classifier', '?')} | {', '.join(meta['own_providers'])} | " + " | ".join(cells) + f" | {extra['retried_non_transient']} | {extra['gave_up_transient']} | {len(sub)} |")
    lines += [""] + limit_table(want, files)
    print("\n".join(lines))
    if args.doc:
        write_doc(args.doc, lines)
    if args.detail:
        for a, (meta, _, _, _, misses) in zip(files, results):
            misses = misses + limit_score(want, a)[3]
            print(f"\n### {meta.get('classifier', '?')}: {len(misses)} misses\n")
            for name, what, got, exp in misses:
                print(f"- {name}: {what} {json.dumps(got)}, expected {json.dumps(exp)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
