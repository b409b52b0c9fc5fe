"""The retry-adapter scenario (docs/INTEGRATIONS.md) with the OpenAI Agents
SDK: its Runner runs a trivial Agent on an ``OpenAIChatCompletionsModel``,
with and without errsvc deciding the retries, against a mock provider and
the live errsvc (clients/test.sh)."""

from __future__ import annotations

import asyncio
import logging
import os
from typing import Any, Dict, List

import pytest

os.environ.setdefault("OPENAI_AGENTS_DISABLE_TRACING", "1")  # no trace export to the network
openai = pytest.importorskip("openai")
agents = pytest.importorskip("agents")

from errsvc_client import ErrsvcClient  # noqa: E402
from errsvc_client.adapters import Advice, Advisor  # noqa: E402
from errsvc_client.adapters import openai_agents as errsvc_agents  # noqa: E402

from _scenario import MockProvider, load_scenario, row, write_rows  # noqa: E402

agents.set_tracing_disabled(True)

SCENARIO = load_scenario()
STEPS = SCENARIO["steps"]


@pytest.fixture(scope="module")
def mock():
    m = MockProvider(SCENARIO)
    yield m
    m.close()


def agents_version() -> str:
    try:
        from importlib.metadata import version

        return version("openai-agents")
    except Exception:  # noqa: BLE001
        return ""


def final_error(err: BaseException) -> str:
    status = getattr(err, "status_code", None)
    body = getattr(err, "body", None)
    code = ""
    if isinstance(body, dict):
        e = body.get("error", body)
        if isinstance(e, dict):
            code = e.get("code") or e.get("type") or ""
    return ("%s %s %s" % (type(err).__name__, status or "", code)).replace("  ", " ").strip()


async def run_agent(model: Any, step: Dict[str, Any], **run_kw: Any) -> str:
    agent = agents.Agent(name="assistant", instructions="Answer briefly.", model=model)
    try:
        if step.get("stream"):
            result = agents.Runner.run_streamed(agent, "hi", **run_kw)
            async for _ in result.stream_events():
                pass
        else:
            await agents.Runner.run(agent, "hi", **run_kw)
        return "ok"
    except openai.APIError as err:
        return final_error(err)
    finally:
        await model._client.close()


def plain_model(base: str, **kw: Any) -> Any:
    return agents.OpenAIChatCompletionsModel(
        model="gpt-4o", openai_client=openai.AsyncOpenAI(base_url=base, api_key="sk-test", **kw)
    )


def test_scenario_openai_agents(mock: MockProvider, client: ErrsvcClient) -> None:
    rows = []
    for adapter in (False, True):
        for step in STEPS:
            key = "agents-%s-%s" % ("with" if adapter else "without", step["name"])
            mock.steps[key] = dict(step)
            advice: List[Advice] = []
            advisor = Advisor(client, wait_scale=SCENARIO["wait_scale"], on_advice=advice.append)
            base = mock.url + "/" + key + "/v1"
            if adapter:
                m = errsvc_agents.model(advisor, "gpt-4o", base_url=base, api_key="sk-test")
            else:
                m = plain_model(base)
            final = asyncio.run(run_agent(m, step))
            calls, waited = mock.took(key)
            decided = int(sum(a.wait for a in advice[: max(calls - 1, 0)] if a.retry) * 1000)
            if adapter and advice and advice[0].decision.reauthenticate:
                final += " (re-authenticate)"
            rows.append(row("Python OpenAI Agents SDK %s" % agents_version(), adapter, step["name"], calls, waited, decided, final))
            if not adapter:
                continue
            want = step["adapter_expect"]
            if step.get("stream"):
                # The error after output began is the caller's: never repeated.
                assert calls == 1, (key, calls, final)
                verdict = advisor.advise_stream_error(step["answers"][0]["body"])
                assert verdict is not None and verdict.decision.retryable and not verdict.retry, verdict
                rows[-1]["final_error"] += " (not repeated: same_arguments discouraged)"
                continue
            final = final.replace(" (re-authenticate)", "")
            assert calls == want["calls"], (key, calls, final, advice)
            assert (final == "ok") == want["retried"], (key, final)
            if want.get("stated_wait_ms"):
                assert advice[0].wait * 1000 == pytest.approx(want["stated_wait_ms"])
                # The client waited errsvc's (scaled) wait, not its own backoff.
                assert waited >= want["stated_wait_ms"] * SCENARIO["wait_scale"] * 0.9, (key, waited)
            if want.get("reauthenticate"):
                assert advice[0].decision.reauthenticate
            if step["name"] == "billing_429":
                assert advice and not advice[0].retry, advice
    write_rows("python-openai-agents", rows)
    without = {r["step"]: r for r in rows if not r["adapter"]}
    # Without errsvc the openai client's own rule retries every 429 (2 more calls).
    assert without["billing_429"]["calls"] == 3, without["billing_429"]


def test_runner_retry_policy_does_not_double_retry(mock: MockProvider, client: ErrsvcClient) -> None:
    """A caller who opts in to runner-managed retries (provider_suggested):
    an answer errsvc decided on is not retried by the runner again."""
    from agents.retry import ModelRetrySettings, retry_policies

    settings = agents.ModelSettings(
        retry=ModelRetrySettings(max_retries=3, policy=retry_policies.provider_suggested())
    )
    for name, want in (("billing_429", 1), ("rate_limit_429", 2)):
        key = "agents-policy-" + name
        mock.steps[key] = dict(next(s for s in STEPS if s["name"] == name))
        advisor = Advisor(client, wait_scale=SCENARIO["wait_scale"])
        m = errsvc_agents.model(advisor, "gpt-4o", base_url=mock.url + "/" + key + "/v1", api_key="sk-test")
        run_config = agents.RunConfig(model_settings=settings)
        final = asyncio.run(run_agent(m, {}, run_config=run_config))
        assert mock.took(key)[0] == want, (name, mock.took(key), final)
    # A rate limit every time: the client's own retry (max_retries=1, after
    # errsvc's wait) is the only one; the runner does not add its 3.
    key = "agents-policy-rate-limit-always"
    step = dict(next(s for s in STEPS if s["name"] == "rate_limit_429"))
    step["answers"] = step["answers"][:1]
    mock.steps[key] = step
    advisor = Advisor(client, wait_scale=SCENARIO["wait_scale"])
    m = errsvc_agents.model(advisor, "gpt-4o", base_url=mock.url + "/" + key + "/v1", api_key="sk-test", max_retries=1)
    final = asyncio.run(run_agent(m, {}, run_config=agents.RunConfig(model_settings=settings)))
    assert mock.took(key)[0] == 2 and "429" in final, (mock.took(key), final)


def test_openai_agents_fallback_when_errsvc_unreachable(mock: MockProvider, caplog: pytest.LogCaptureFixture) -> None:
    """errsvc cannot be reached: logged, and the framework's own rule applies
    (the openai client under the Agents SDK retries a 429: 3 calls)."""
    dead = ErrsvcClient("127.0.0.1:1", "127.0.0.1:1", timeout=1.0, max_attempts=1)
    key = "agents-fallback-billing"
    mock.steps[key] = dict(STEPS[0])
    m = errsvc_agents.model(Advisor(dead), "gpt-4o", base_url=mock.url + "/" + key + "/v1", api_key="sk-test", max_retries=2)
    with caplog.at_level(logging.WARNING, logger="errsvc_client.adapters"):
        final = asyncio.run(run_agent(m, STEPS[0]))
    calls, _ = mock.took(key)
    assert calls == 3 and "429" in final, (calls, final)
    assert "errsvc could not be reached" in caplog.text
    assert "falling back to the OpenAI Agents SDK's own retry behaviour" in caplog.text
    dead.close()
