"""The scorecard corpus for the Python runners (standard library only).

fixtures(folder) yields every provider fixture of the folder (default:
testdata/providers); frozen_clock(fixture) pins time.time() to the fixture's
clock ("now", else "answer.received_at"), so an HTTP-date Retry-After means
what it meant when the answer arrived; write(path, meta, answers) writes an
answers file the scorer reads.
"""
import contextlib
import datetime
import glob
import json
import os
import time

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
DEFAULT = os.path.join(ROOT, "testdata", "providers")


def fixtures(folder=None):
    for path in sorted(glob.glob(os.path.join(folder or DEFAULT, "*.json"))):
        with open(path) as f:
            yield json.load(f)


def clock(fx):
    when = fx["answer"].get("received_at") or fx["now"]
    return datetime.datetime.fromisoformat(when.replace("Z", "+00:00")).timestamp()


@contextlib.contextmanager
def frozen_clock(fx):
    real = time.time
    now = clock(fx)
    time.time = lambda: now
    try:
        yield now
    finally:
        time.time = real


def answer(cls=None, retry=None, wait_s=None):
    return {"class": cls, "retry": retry, "wait_s": wait_s}


def write(path, meta, answers):
    out = {"$meta": meta}
    out.update(answers)
    with open(path, "w") as f:
        json.dump(out, f, indent=1, sort_keys=False)
        f.write("\n")
