"""The retry-adapter scenario (docs/INTEGRATIONS.md) with the official
``openai`` and ``anthropic`` clients, with and without the errsvc transport,
against a mock provider and the live errsvc (clients/test.sh)."""

from __future__ import annotations

import logging
from typing import Any, Dict, List

import pytest

openai = pytest.importorskip("openai")
anthropic = pytest.importorskip("anthropic")

from errsvc_client import ErrsvcClient  # noqa: E402
from errsvc_client.adapters import Advice, Advisor, anthropic_client, openai_client  # noqa: E402

from _scenario import MockProvider, load_scenario, row, write_rows  # noqa: E402

SCENARIO = load_scenario()
STEPS = SCENARIO["steps"]


@pytest.fixture(scope="module")
def mock():
    m = MockProvider(SCENARIO)
    yield m
    m.close()


def final_error(err: BaseException) -> str:
    status = getattr(err, "status_code", None)
    body = getattr(err, "body", None)
    code = ""
    if isinstance(body, dict):
        e = body.get("error", body)
        if isinstance(e, dict):
            code = e.get("code") or e.get("type") or ""
    return ("%s %s %s" % (type(err).__name__, status or "", code)).replace("  ", " ").strip()


def run_openai(client: Any, step: Dict[str, Any]) -> str:
    try:
        if step.get("stream"):
            for _ in client.chat.completions.create(model="gpt-4o", messages=[{"role": "user", "content": "hi"}], stream=True):
                pass
        else:
            client.chat.completions.create(model="gpt-4o", messages=[{"role": "user", "content": "hi"}])
        return "ok"
    except openai.APIError as err:
        return final_error(err)


def run_anthropic(client: Any, step: Dict[str, Any]) -> str:
    try:
        if step.get("stream"):
            with client.messages.stream(model="claude-sonnet-4-20250514", max_tokens=16, messages=[{"role": "user", "content": "hi"}]) as s:
                for _ in s:
                    pass
        else:
            client.messages.create(model="claude-sonnet-4-20250514", max_tokens=16, messages=[{"role": "user", "content": "hi"}])
        return "ok"
    except anthropic.APIError as err:
        return final_error(err)


def check(step: Dict[str, Any], calls: int, final: str, advice: List[Advice]) -> None:
    want = step["adapter_expect"]
    assert calls == want["calls"], (step["name"], calls, final)
    assert (final == "ok") == want["retried"], (step["name"], final)
    if want.get("stated_wait_ms"):
        assert advice and advice[0].wait * 1000 == pytest.approx(want["stated_wait_ms"]), (step["name"], advice)
    if want.get("reauthenticate"):
        assert advice and advice[0].decision.reauthenticate, advice
    if step["name"] == "billing_429":
        assert advice and not advice[0].retry, advice


@pytest.mark.parametrize("sdk", ["openai", "anthropic"])
def test_scenario(mock: MockProvider, client: ErrsvcClient, sdk: str) -> None:
    rows = []
    for adapter in (False, True):
        for step in STEPS:
            name = step["name"] + ("" if not adapter else "")
            key = "%s-%s-%s" % (sdk, "with" if adapter else "without", step["name"])
            mock.steps[key] = dict(step)
            advice: List[Advice] = []
            advisor = Advisor(client, wait_scale=SCENARIO["wait_scale"], on_advice=advice.append)
            base = mock.url + "/" + key
            if sdk == "openai":
                kw = dict(base_url=base + "/v1", api_key="sk-test")
                c = openai_client(advisor, **kw) if adapter else openai.OpenAI(**kw)
                final = run_openai(c, step)
            else:
                kw = dict(base_url=base, api_key="sk-ant-test")
                c = anthropic_client(advisor, **kw) if adapter else anthropic.Anthropic(**kw)
                final = run_anthropic(c, step)
            calls, waited = mock.took(key)
            decided = int(sum(a.wait for a in advice[: max(calls - 1, 0)] if a.retry) * 1000)
            if adapter and advice and advice[0].decision.reauthenticate:
                final += " (re-authenticate)"
            rows.append(row("Python %s %s" % (sdk, getattr(openai if sdk == "openai" else anthropic, "__version__", "")), adapter, name, calls, waited, decided, final))
            if adapter and not step.get("stream"):
                check(step, calls, final.replace(" (re-authenticate)", ""), advice)
            if adapter and step.get("stream"):
                # The error after output began is the caller's: never repeated.
                assert calls == 1, (key, calls, final)
                answers = step.get("anthropic_answers", step["answers"]) if sdk == "anthropic" else step["answers"]
                verdict = advisor.advise_stream_error(answers[0]["body"])
                assert verdict is not None and verdict.decision.retryable and not verdict.retry, verdict
                assert not verdict.decision.same_arguments_safe
                rows[-1]["final_error"] += " (not repeated: same_arguments discouraged)"
    write_rows("python-" + sdk, rows)


def test_fallback_when_errsvc_unreachable(mock: MockProvider, caplog: pytest.LogCaptureFixture) -> None:
    """errsvc cannot be reached: logged, and the client's own rule applies
    (openai retries a 429: 3 calls)."""
    dead = ErrsvcClient("127.0.0.1:1", "127.0.0.1:1", timeout=1.0, max_attempts=1)
    key = "fallback-billing"
    mock.steps[key] = dict(STEPS[0])
    advisor = Advisor(dead)
    c = openai_client(advisor, base_url=mock.url + "/" + key + "/v1", api_key="sk-test", max_retries=2)
    with caplog.at_level(logging.WARNING, logger="errsvc_client.adapters"):
        final = run_openai(c, STEPS[0])
    calls, _ = mock.took(key)
    assert calls == 3 and "429" in final, (calls, final)
    assert "errsvc could not be reached" in caplog.text and "falling back to openai's own retry behaviour" in caplog.text
    dead.close()


def test_async_transport(mock: MockProvider, client: ErrsvcClient) -> None:
    """AsyncOpenAI with the asyncio transport: the billing 429 once, the rate
    limit retried after errsvc's wait."""
    import asyncio

    from errsvc_client.adapters.httpx_transport import _httpx_of, async_transport

    async def run(key: str) -> str:
        advice: List[Advice] = []
        advisor = Advisor(client, wait_scale=SCENARIO["wait_scale"], on_advice=advice.append)
        hx = _httpx_of(openai.DefaultAsyncHttpxClient)
        c = openai.AsyncOpenAI(
            base_url=mock.url + "/" + key + "/v1",
            api_key="sk-test",
            http_client=openai.DefaultAsyncHttpxClient(transport=async_transport(advisor, hx)),
        )
        try:
            await c.chat.completions.create(model="gpt-4o", messages=[{"role": "user", "content": "hi"}])
            return "ok"
        except openai.APIError as err:
            return final_error(err)
        finally:
            await c.close()

    mock.steps["async-billing"] = dict(STEPS[0])
    mock.steps["async-rate"] = dict(STEPS[1])
    assert asyncio.run(run("async-billing")).startswith("RateLimitError 429")
    assert mock.took("async-billing")[0] == 1
    assert asyncio.run(run("async-rate")) == "ok"
    assert mock.took("async-rate")[0] == 2
