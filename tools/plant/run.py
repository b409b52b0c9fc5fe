#!/usr/bin/env python3
"""Plant each bug of mutants.py alone, regenerate testdata/golden from it, run
every test of translate/ but TestGolden, and report which bug no test caught.

    python3 tools/plant/run.py [NAME ...]
    python3 tools/plant/run.py --check   # every bug still plants (make vet)

Slow (a build and a test run per bug): not part of make test; its last
score is in docs/TESTING.md. It restores every file it touched, also on
Ctrl-C."""
import os, subprocess, sys, time
sys.path.insert(0, os.path.dirname(__file__))
from mutants import MUTANTS

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))

def run(*cmd):
    return subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True)

def check():
    """Every bug's text occurs exactly once in its file, so none stops being
    planted unnoticed as the code it was written against changes."""
    stale = []
    for name, path, old, _ in MUTANTS:
        n = open(os.path.join(ROOT, path)).read().count(old)
        if n != 1:
            stale.append(f"{name}: the text to replace occurs {n} times in {path}")
    names = [m[0] for m in MUTANTS]
    stale += [f"{n}: named twice" for n in sorted(set(names)) if names.count(n) > 1]
    for s in stale:
        print(f"tools/plant/mutants.py: {s}", file=sys.stderr)
    return 1 if stale else 0

def main(names):
    chosen = [m for m in MUTANTS if not names or m[0] in names]
    caught, survived, broken = [], [], []
    for name, path, old, new in chosen:
        full = os.path.join(ROOT, path)
        src = open(full).read()
        if src.count(old) != 1:
            broken.append((name, f"the text to replace occurs {src.count(old)} times in {path}"))
            continue
        t0 = time.time()
        try:
            open(full, "w").write(src.replace(old, new))
            gen = run("go", "test", "./translate", "-run", "^TestGolden$", "-update", "-count=1")
            if "build failed" in gen.stdout + gen.stderr:
                broken.append((name, "does not build"))
                continue
            # The generated docs too, as `make docs` would: a doc that
            # drifted from the planted engine is not a test catching it.
            run("go", "test", "./translate", "-run", "^TestVocabulariesDocIsCurrent$", "-update", "-count=1")
            run("go", "test", "./translate/provider", "-run", "^TestProvidersDoc$", "-update", "-count=1")
            res = run("go", "test", "-count=1", "-skip", "^TestGolden$", "./translate/...")
            failed = [l.split()[2] for l in res.stdout.splitlines() if l.startswith("--- FAIL")]
            (caught if res.returncode != 0 else survived).append((name, failed[:4]))
            print(f"{'caught ' if res.returncode else 'SURVIVED'} {name:38} {time.time()-t0:5.1f}s {' '.join(failed[:4])}", flush=True)
        finally:
            open(full, "w").write(src)
            run("git", "checkout", "--", "testdata/golden", "docs/VOCABULARIES.md", "docs/PROVIDERS.md")
    total = len(caught) + len(survived)
    print(f"\n{len(caught)} of {total} planted bugs caught without the golden files ({100*len(caught)/max(total,1):.1f}%); {len(broken)} not planted")
    for name, why in broken:
        print(f"not planted: {name}: {why}")
    for name, _ in survived:
        print(f"survived: {name}")
    return 0 if not survived and not broken else 1

if __name__ == "__main__":
    if sys.argv[1:] == ["--check"]:
        sys.exit(check())
    sys.exit(main(sys.argv[1:]))
