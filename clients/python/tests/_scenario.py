"""The retry-adapter scenario's mock provider (clients/go/adapters/testdata/scenario.json,
shared with the Go and TypeScript suites) and its result rows."""

from __future__ import annotations

import json
import os
import pathlib
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Dict, List


def repo_root() -> pathlib.Path:
    for parent in pathlib.Path(__file__).resolve().parents:
        if (parent / "go.mod").is_file() and (parent / "clients").is_dir():
            return parent
    raise RuntimeError("repository root not found")


def load_scenario() -> Dict[str, Any]:
    with (repo_root() / "clients" / "go" / "adapters" / "testdata" / "scenario.json").open(encoding="utf-8") as f:
        return json.load(f)


class MockProvider:
    """Answers /<step>/... with the step's answers in turn (the last
    repeated); a /v1/messages call gets the step's anthropic_answers when it
    has them. Records when each call came."""

    def __init__(self, scenario: Dict[str, Any]) -> None:
        self.steps = {s["name"]: s for s in scenario["steps"]}
        self.calls: Dict[str, List[float]] = {}
        self.lock = threading.Lock()
        mock = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args: Any) -> None:
                pass

            def do_POST(self) -> None:
                n = int(self.headers.get("content-length") or 0)
                if n:
                    self.rfile.read(n)
                name = self.path.lstrip("/").split("/", 1)[0]
                with mock.lock:
                    step = mock.steps.get(name)
                    i = len(mock.calls.setdefault(name, []))
                    mock.calls[name].append(time.monotonic())
                if step is None:
                    self.send_response(404)
                    self.send_header("content-length", "0")
                    self.end_headers()
                    return
                answers = step["answers"]
                if self.path.split("?")[0].endswith("/messages") and "anthropic_answers" in step:
                    answers = step["anthropic_answers"]
                a = answers[min(i, len(answers) - 1)]
                body = a["body"].encode()
                self.send_response(a["status"])
                for k, v in a["headers"].items():
                    if k.lower() not in ("content-length", "transfer-encoding", "connection"):
                        self.send_header(k, v)
                self.send_header("content-length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()
        self.url = "http://127.0.0.1:%d" % self.server.server_address[1]

    def took(self, name: str) -> tuple:
        with self.lock:
            c = list(self.calls.get(name, []))
        return len(c), (int((c[-1] - c[0]) * 1000) if len(c) > 1 else 0)

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()


def write_rows(name: str, rows: List[Dict[str, Any]]) -> None:
    """Writes the rows for the docs table when ERRSVC_SCENARIO_DIR is set."""
    d = os.environ.get("ERRSVC_SCENARIO_DIR")
    if not d:
        return
    os.makedirs(d, exist_ok=True)
    with open(os.path.join(d, name + ".json"), "w", encoding="utf-8") as f:
        json.dump(rows, f, indent=1)


def row(framework: str, adapter: bool, step: str, calls: int, waited_ms: int, decided_ms: int, final: str) -> Dict[str, Any]:
    return {
        "framework": framework,
        "adapter": adapter,
        "step": step,
        "calls": calls,
        "waited_ms": waited_ms,
        "decided_wait_ms": decided_ms,
        "final_error": final,
    }
