"""The retry-adapter scenario (docs/INTEGRATIONS.md) with LiteLLM, with and
without errsvc deciding the retries, against a mock provider and the live
errsvc (clients/test.sh)."""

from __future__ import annotations

import logging
import os
from typing import Any, Dict, List

import pytest

# No network fetch of LiteLLM's model cost map at import.
os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
litellm = pytest.importorskip("litellm")

from errsvc_client import ErrsvcClient  # noqa: E402
from errsvc_client.adapters import Advice, Advisor  # noqa: E402
from errsvc_client.adapters import litellm as errsvc_litellm  # noqa: E402

from _scenario import MockProvider, load_scenario, row, write_rows  # noqa: E402

SCENARIO = load_scenario()
STEPS = SCENARIO["steps"]


@pytest.fixture(scope="module")
def mock():
    m = MockProvider(SCENARIO)
    yield m
    m.close()


def final_error(err: BaseException) -> str:
    return "%s %s" % (type(err).__name__, getattr(err, "status_code", "") or "")


def call(fn: Any, base: str, step: Dict[str, Any], **kw: Any) -> str:
    try:
        r = fn(
            model="openai/gpt-4o",
            api_base=base + "/v1",
            api_key="sk-test",
            messages=[{"role": "user", "content": "hi"}],
            stream=bool(step.get("stream")),
            **kw,
        )
        if step.get("stream"):
            for _ in r:
                pass
        return "ok"
    except Exception as err:  # noqa: BLE001 - LiteLLM's mapped exceptions
        return final_error(err)


def test_scenario_litellm(mock: MockProvider, client: ErrsvcClient) -> None:
    rows = []
    for adapter in (False, True):
        for step in STEPS:
            key = "litellm-%s-%s" % ("with" if adapter else "without", step["name"])
            mock.steps[key] = dict(step)
            advice: List[Advice] = []
            advisor = Advisor(client, wait_scale=SCENARIO["wait_scale"], on_advice=advice.append)
            if adapter:
                final = call(lambda **kw: errsvc_litellm.completion(advisor=advisor, **kw), mock.url + "/" + key, step)
            else:
                final = call(litellm.completion, mock.url + "/" + key, step)
            calls, waited = mock.took(key)
            decided = int(sum(a.wait for a in advice if a.retry) * 1000)
            if adapter and advice and advice[0].decision.reauthenticate:
                final += " (re-authenticate)"
            rows.append(row("Python LiteLLM %s" % litellm_version(), adapter, step["name"], calls, waited, decided, final))
            if not adapter:
                continue
            if step.get("stream"):
                verdict = advisor.advise_stream_error(step["answers"][0]["body"])
                assert verdict is not None and verdict.decision.retryable and not verdict.retry, verdict
                rows[-1]["final_error"] += " (not repeated: same_arguments discouraged)"
            want = step["adapter_expect"]
            assert calls == want["calls"], (key, calls, final, advice)
            assert (final == "ok") == want["retried"], (key, final)
            if want.get("stated_wait_ms"):
                assert advice[0].wait * 1000 == pytest.approx(want["stated_wait_ms"])
            if want.get("reauthenticate"):
                assert advice[0].decision.reauthenticate
    write_rows("python-litellm", rows)


def litellm_version() -> str:
    try:
        from importlib.metadata import version

        return version("litellm")
    except Exception:  # noqa: BLE001
        return ""


def test_litellm_fallback_when_errsvc_unreachable(mock: MockProvider, caplog: pytest.LogCaptureFixture) -> None:
    """errsvc cannot be reached: logged, and the call is LiteLLM's own (its
    retries, as the caller wrote them)."""
    dead = ErrsvcClient("127.0.0.1:1", "127.0.0.1:1", timeout=1.0, max_attempts=1)
    key = "litellm-fallback"
    mock.steps[key] = dict(STEPS[1])  # the rate limit, then 200
    with caplog.at_level(logging.WARNING, logger="errsvc_client.adapters"):
        final = call(lambda **kw: errsvc_litellm.completion(advisor=Advisor(dead), **kw), mock.url + "/" + key, STEPS[1])
    assert final == "ok"
    assert "errsvc could not be reached" in caplog.text and "falling back to LiteLLM's own retry behaviour" in caplog.text
    dead.close()
