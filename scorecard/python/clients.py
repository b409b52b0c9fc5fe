"""The provider clients' own retry decisions over the provider fixtures.

For every fixture, with the clock pinned to the fixture's:

- openai and anthropic (the official Python SDKs): an httpx Response built
  from the fixture's status, headers and body (as
  conformance/provider-clients/check.py builds them); retry is the client's
  own `_should_retry(response)` for a non-2xx answer (a 2xx answer is never
  retried: an error inside a 200 stream raises, it does not retry); wait_s is
  the client's `_calculate_retry_timeout` when it retries and the answer
  carries a wait the client reads (`_parse_retry_after_header`: retry-after-ms,
  retry-after as seconds or HTTP date), else null. The SDKs have no error
  class in the Error Class Contract's sense: class is null.
- google-api-core: the exception `exceptions.from_http_response` builds from a
  requests Response of the fixture, and the default retry predicate
  `retry.if_transient_error` on it (where from_http_response itself raises,
  the predicate on that exception); it reads no wait (wait_s null) and has
  no class (null).

Usage: python clients.py OUTDIR [FIXTURES]  (writes openai.json,
anthropic.json, google-api-core.json into OUTDIR)
"""
import json
import os
import random
import sys
from importlib.metadata import version

import anthropic
import openai
import requests
from google.api_core import exceptions as gexc
from google.api_core import retry as gretry

try:  # the SDKs moved from httpx to its fork httpx2
    import httpx2 as httpx
except ImportError:
    import httpx

import corpus

REQUEST = httpx.Request("POST", "http://127.0.0.1:9/v1/x")
OPENAI = openai.OpenAI(api_key="sk-test", base_url="http://127.0.0.1:9/v1", max_retries=2)
ANTHROPIC = anthropic.Anthropic(api_key="sk-ant-test", base_url="http://127.0.0.1:9", max_retries=2)


def sdk_answer(client, mod, fx):
    a = fx["answer"]
    if 200 <= a["status"] < 300:
        return corpus.answer(retry=False)
    resp = httpx.Response(a["status"], headers=a["headers"], content=a["body"].encode(), request=REQUEST)
    retry = bool(client._should_retry(resp))
    wait = None
    if retry and client._parse_retry_after_header(resp.headers) is not None:
        random.seed(0)  # the jitter of the fallback backoff, if the stated wait is refused
        options = mod._models.FinalRequestOptions.construct(method="post", url="/x")
        wait = round(float(client._calculate_retry_timeout(2, options, resp.headers)), 3)
    return corpus.answer(retry=retry, wait_s=wait)


def google_answer(fx):
    a = fx["answer"]
    if 200 <= a["status"] < 300:
        return corpus.answer(retry=False)
    r = requests.models.Response()
    r.status_code = a["status"]
    r._content = a["body"].encode()
    for k, v in a["headers"].items():
        r.headers[k] = v
    r.request = requests.Request("POST", "http://127.0.0.1:9/v1/x").prepare()
    try:
        exc = gexc.from_http_response(r)
    except Exception as e:  # e.g. {"error": "text"}: the mapping itself fails, and that is what the caller gets
        GOOGLE_CRASHES.append(fx["name"])
        exc = e
    return corpus.answer(retry=bool(gretry.if_transient_error(exc)))


GOOGLE_CRASHES = []


def main(outdir, folder=None):
    runs = {
        "openai": ({"classifier": "openai (Python SDK)", "version": "openai " + version("openai"), "how": "OpenAI._should_retry, _calculate_retry_timeout", "notions": ["retry", "wait"], "own_providers": ["openai", "openai_responses", "azure"]},
                   lambda fx: sdk_answer(OPENAI, openai, fx)),
        "anthropic": ({"classifier": "anthropic (Python SDK)", "version": "anthropic " + version("anthropic"), "how": "Anthropic._should_retry, _calculate_retry_timeout", "notions": ["retry", "wait"], "own_providers": ["anthropic"]},
                      lambda fx: sdk_answer(ANTHROPIC, anthropic, fx)),
        "google-api-core": ({"classifier": "google-api-core", "version": "google-api-core " + version("google-api-core"), "how": "retry.if_transient_error(exceptions.from_http_response(...))", "notions": ["retry"], "own_providers": ["gemini", "vertex"]},
                            google_answer),
    }
    fxs = list(corpus.fixtures(folder))
    for name, (meta, run) in runs.items():
        answers = {}
        for fx in fxs:
            with corpus.frozen_clock(fx):
                answers[fx["name"]] = run(fx)
        if name == "google-api-core" and GOOGLE_CRASHES:
            meta["note"] = f"from_http_response itself raised on {len(GOOGLE_CRASHES)} answers (scored as the predicate on that exception): " + ", ".join(GOOGLE_CRASHES)
        corpus.write(os.path.join(outdir, name + ".json"), meta, answers)


if __name__ == "__main__":
    main(*sys.argv[1:])
