"""errsvc's provider-shaped answers held to the real clients that read them.

Reads the JSON lines of `go run ./conformance/provider-clients/answers` and,
for every answer:

- openai_error and anthropic_error through the official `openai` and
  `anthropic` Python packages: their own `_should_retry` on the answer's
  status and headers must say what errsvc decided (retry exactly a
  transient answer; the SDKs refuse a Retry-After over their own cap,
  MAX_RETRY_AFTER_DELAY, which is their policy, not a disagreement); the
  wait they compute is never shorter than errsvc's; the error class they
  raise (`_make_status_error_from_response`) is an authentication or
  permission error exactly for an auth_required answer;
- google_error through google-api-core's own mapping
  (`exceptions.from_http_response`): the exception for the HTTP status is
  the one google-api-core keeps for the body's google.rpc.Code (or its
  parent: FAILED_PRECONDITION is a BadRequest), and the ErrorInfo it reads
  is errsvc's (reason, domain errsvc.dev).

Prints one line per failure and a closing 'N passed, N failed' line; exits
non-zero on any failure.
"""
import json
import math
import sys

import anthropic
import grpc
try:  # the SDKs moved from httpx to its fork httpx2
    import httpx2 as httpx
except ImportError:
    import httpx
import openai
import requests
from google.api_core import exceptions as gexc

try:
    from openai._constants import MAX_RETRY_AFTER_DELAY as OPENAI_CAP
except ImportError:  # older SDKs had no cap
    OPENAI_CAP = math.inf
try:
    from anthropic._constants import MAX_RETRY_AFTER_DELAY as ANTHROPIC_CAP
except ImportError:
    ANTHROPIC_CAP = math.inf

OPENAI = openai.OpenAI(api_key="sk-test", base_url="http://127.0.0.1:9/v1", max_retries=2)
ANTHROPIC = anthropic.Anthropic(api_key="sk-ant-test", base_url="http://127.0.0.1:9", max_retries=2)
REQUEST = httpx.Request("POST", "http://127.0.0.1:9/v1/x")


def decision(answer):
    c = answer.get("classification") or {}
    transient = c.get("recognized") and c.get("class") == "transient"
    wait = c.get("retry_after_secs")
    ms = (answer.get("http_headers") or {}).get("retry-after-ms")
    if ms is not None:
        wait = int(ms) / 1000  # the exact wait; retry_after_secs is it rounded up
    return bool(transient), (float(wait) if wait is not None else None), c.get("class") if c.get("recognized") else None


def sdk_checks(name, sdk, client, cap, ans, failures):
    status, headers, body = ans["status"], ans.get("headers", {}), ans.get("body", {})
    resp = httpx.Response(status, headers=headers, json=body, request=REQUEST)
    transient, wait, klass = decision(ANSWER)
    sdk_wait = client._parse_retry_after_header(resp.headers)
    retries = client._should_retry(resp)
    want = transient and not (sdk_wait is not None and sdk_wait > cap)
    if retries != want:
        failures.append(f"{name}: {sdk} SDK _should_retry={retries} on {status} {headers}; errsvc transient={transient}")
    if transient and wait is not None and wait <= cap:
        options = openai._models.FinalRequestOptions.construct(method="post", url="/x") if sdk == "openai" else anthropic._models.FinalRequestOptions.construct(method="post", url="/x")
        t = client._calculate_retry_timeout(2, options, resp.headers)
        if t + 1e-9 < wait and wait > 0:
            failures.append(f"{name}: {sdk} SDK waits {t}s, errsvc asked {wait}s")
    err = client._make_status_error_from_response(resp)
    # 401 is "sign in" (auth_required); 403 may be either (a scope to grant,
    # or a denial no sign-in lifts).
    mod = sdk_module(sdk)
    if isinstance(err, mod.AuthenticationError) != (klass == "auth_required" and status == 401) or \
            klass == "auth_required" and not isinstance(err, (mod.AuthenticationError, mod.PermissionDeniedError)):
        failures.append(f"{name}: {sdk} SDK raises {type(err).__name__} for class {klass}")


def sdk_module(sdk):
    return openai if sdk == "openai" else anthropic


def google_checks(name, ans, failures):
    r = requests.models.Response()
    r.status_code = ans["status"]
    r._content = json.dumps(ans["body"]).encode()
    r.headers["content-type"] = "application/json"
    r.request = requests.Request("POST", "http://127.0.0.1:9/v1/x").prepare()
    exc = gexc.from_http_response(r)
    err = ans["body"]["error"]
    code = grpc.StatusCode[err["status"]]
    by_code = gexc.exception_class_for_grpc_status(code)
    by_http = gexc.exception_class_for_http_status(err["code"])
    if type(exc) is not by_http:
        failures.append(f"{name}: google-api-core reads HTTP {ans['status']} as {type(exc).__name__}, status {err['status']} as {by_code.__name__}")
    # google-api-core keeps code.proto's HTTP status on each class; UNKNOWN
    # and DATA_LOSS carry none there but are ServerErrors (code.proto: 500).
    http_of_code = getattr(by_code, "code", None)
    if http_of_code != err["code"] and not (http_of_code is None and issubclass(by_code, gexc.ServerError) and err["code"] == 500):
        failures.append(f"{name}: {err['status']} ({by_code.__name__}, HTTP {http_of_code}) answered with error.code {err['code']}")
    if ans["status"] != err["code"]:
        failures.append(f"{name}: google_error answered with HTTP {ans['status']}, body code {err['code']}")
    if getattr(exc, "domain", "errsvc.dev") != "errsvc.dev" or not getattr(exc, "reason", "X"):
        failures.append(f"{name}: google-api-core reads ErrorInfo reason {getattr(exc, 'reason', None)!r} domain {getattr(exc, 'domain', None)!r}")


ANSWER = None


def main(path):
    global ANSWER
    failures, checked = [], 0
    with open(path) as f:
        for line in f:
            row = json.loads(line)
            name, ANSWER = row["name"], row["answer"]
            before = len(failures)
            for sdk, client, cap, key in (("openai", OPENAI, OPENAI_CAP, "openai_error"), ("anthropic", ANTHROPIC, ANTHROPIC_CAP, "anthropic_error")):
                if key in ANSWER:
                    sdk_checks(name, sdk, client, cap, ANSWER[key], failures)
            if "google_error" in ANSWER:
                google_checks(name, ANSWER["google_error"], failures)
            checked += 1 if len(failures) == before else 0
    for msg in failures[:60]:
        print(msg)
    if len(failures) > 60:
        print(f"... and {len(failures) - 60} more")
    print(f"provider clients: {checked} passed, {len(failures)} failed")
    return 1 if failures or checked == 0 else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
