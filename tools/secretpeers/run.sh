#!/usr/bin/env bash
# The peer table of docs/SECURITY.md: errsvc's sanitiser, gitleaks and
# detect-secrets on the same fresh corpus (a new seed each run;
# ERRSVC_PROPERTY_SEED replays one). trufflehog v3 is not served by the Go
# module proxy or PyPI here, so it has no row.
#
#   bash tools/secretpeers/run.sh
set -euo pipefail
cd "$(dirname "$0")/../.."
out="$(mktemp -d "${TMPDIR:-/tmp}/secretpeers.XXXXXX")"
trap 'rm -rf "$out"' EXIT
go run ./tools/secretpeers dump "$out"
# gitleaks at the version errsvc's rules come from, default config, as a
# directory scan (exit 1 means it found something).
(cd "$out" && go run github.com/zricethezav/gitleaks/v8@v8.30.1 dir corpus --no-banner --log-level error \
	--report-format json --report-path "$out/gitleaks.json" --exit-code 0)
# detect-secrets in its own venv, default plugins and filters.
venv="${SECRETPEERS_VENV:-$HOME/.cache/errsvc/secretpeers-venv}"
if [ ! -x "$venv/bin/detect-secrets" ]; then
	python3 -m venv "$venv"
	"$venv/bin/pip" install -q --disable-pip-version-check detect-secrets==1.5.0
fi
(cd "$out" && "$venv/bin/detect-secrets" scan --all-files corpus > detect-secrets.json)
go run ./tools/secretpeers score "$out"
