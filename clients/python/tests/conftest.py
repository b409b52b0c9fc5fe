"""Shared fixtures: the golden vectors (read at run time from
testdata/golden of the repository) and a client of the live errsvc named by
ERRSVC_GRPC_ADDR / ERRSVC_HTTP_ADDR (clients/test.sh starts one)."""

from __future__ import annotations

import sys
import json
import os
import pathlib
from typing import Any, Dict, List

import pytest

from errsvc_client import ErrsvcClient

MIN_VECTORS = 50


def golden_dir() -> pathlib.Path:
    """ERRSVC_GOLDEN_DIR, else testdata/golden of the repository above."""
    env = os.environ.get("ERRSVC_GOLDEN_DIR")
    if env:
        return pathlib.Path(env)
    here = pathlib.Path(__file__).resolve()
    for parent in here.parents:
        if (parent / "go.mod").is_file() and (parent / "testdata" / "golden").is_dir():
            return parent / "testdata" / "golden"
    raise RuntimeError("testdata/golden not found above %s; set ERRSVC_GOLDEN_DIR" % here)


def load_vectors() -> List[Dict[str, Any]]:
    vectors = []
    for path in sorted(golden_dir().glob("*.json")):
        with path.open(encoding="utf-8") as f:
            v = json.load(f)
        assert v["name"] + ".json" == path.name, path
        vectors.append(v)
    return vectors


VECTORS = load_vectors()
OK_VECTORS = [v for v in VECTORS if "error" not in v]
BAD_VECTORS = [v for v in VECTORS if "error" in v]


def ids(vectors: List[Dict[str, Any]]) -> List[str]:
    return [v["name"] for v in vectors]


def _server_addrs() -> tuple[str, str]:
    grpc_addr = os.environ.get("ERRSVC_GRPC_ADDR", "")
    http_addr = os.environ.get("ERRSVC_HTTP_ADDR", "")
    if not grpc_addr or not http_addr:
        if os.environ.get("ERRSVC_REQUIRE_SERVER") or os.environ.get("CI"):
            pytest.fail("ERRSVC_REQUIRE_SERVER or CI is set but ERRSVC_GRPC_ADDR / ERRSVC_HTTP_ADDR are not")
        pytest.skip("ERRSVC_GRPC_ADDR / ERRSVC_HTTP_ADDR unset: no errsvc to call (clients/test.sh starts one)")
    return grpc_addr, http_addr


@pytest.fixture(scope="session")
def client():
    grpc_addr, http_addr = _server_addrs()
    with ErrsvcClient(grpc_addr, http_addr) as c:
        yield c

# The official provider SDKs' checks (test_provider_sdks.py) need anthropic,
# which needs Python 3.11: the run on the lowest Python the client claims
# (3.10, clients/test.sh) checks the client itself; the 3.11 run checks both.
if sys.version_info < (3, 11):
    collect_ignore = ["test_provider_sdks.py"]
