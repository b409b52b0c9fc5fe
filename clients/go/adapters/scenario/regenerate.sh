#!/usr/bin/env bash
# Regenerates the scenario table of docs/INTEGRATIONS.md: runs the Go,
# TypeScript and Python SDK suites (clients/test.sh, against a live errsvc
# and the mock provider of clients/go/adapters/testdata/scenario.json) with
# ERRSVC_SCENARIO_DIR set, then renders the rows they wrote.
#
#   bash clients/go/adapters/scenario/regenerate.sh
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/../../../.." && pwd)"
DIR="$(mktemp -d "${TMPDIR:-/tmp}/errsvc-scenario.XXXXXX")"
trap 'rm -rf "$DIR"' EXIT
ERRSVC_SCENARIO_DIR="$DIR" bash "$ROOT/clients/test.sh" go typescript python
python3 "$ROOT/clients/go/adapters/scenario/table.py" "$DIR" "$ROOT/docs/INTEGRATIONS.md"
