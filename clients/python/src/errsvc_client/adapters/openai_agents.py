"""The OpenAI Agents SDK with errsvc deciding the retries
(``pip install errsvc-client[openai-agents]``).

:func:`model` returns an ``agents.OpenAIChatCompletionsModel`` (give it to
``Agent(model=...)``) whose ``AsyncOpenAI`` client (:func:`client`) sends
every request through the errsvc transport
(:func:`errsvc_client.adapters.async_transport`): the openai client's own
retry loop (``max_retries``, default 2) then obeys errsvc through the
``x-should-retry`` and ``retry-after-ms`` headers it already honours. A
billing 429 (insufficient_quota), a context overflow or a 401 is raised at
once (``x-errsvc-action: reauthenticate`` on the 401's response); a rate
limit is retried after the wait the provider stated.

The Agents SDK's own runner-managed retries (``ModelSettings.retry``) are
off unless the caller opts in; leave them off. The model's
``get_retry_advice`` also answers "do not retry" for an answer errsvc has
already decided (the retries, if any, were made by the client), so a
``retry_policies.provider_suggested()`` policy does not retry it a second
time.

When errsvc cannot be reached the answers pass untouched (a log line): the
openai client's and the Agents SDK's own behaviour applies.
"""

from __future__ import annotations

from typing import Any, Optional

import openai
from agents import OpenAIChatCompletionsModel
from agents.retry import ModelRetryAdvice, ModelRetryAdviceRequest

from errsvc_client.adapters._advisor import Advisor
from errsvc_client.adapters.httpx_transport import _httpx_of, async_transport

FRAMEWORK = "the OpenAI Agents SDK"


def client(advisor: Advisor, provider: Optional[str] = None, **kwargs: Any) -> openai.AsyncOpenAI:
    """``openai.AsyncOpenAI(**kwargs)`` whose retries errsvc decides."""
    if advisor.framework == "the framework":
        advisor.framework = FRAMEWORK
    hx = _httpx_of(openai.DefaultAsyncHttpxClient)
    http_client = openai.DefaultAsyncHttpxClient(transport=async_transport(advisor, hx, provider=provider))
    return openai.AsyncOpenAI(http_client=http_client, **kwargs)


def _errsvc_decided(error: BaseException) -> Optional[str]:
    """The x-errsvc-class errsvc set on the failed answer, if it did."""
    seen = 0
    e: Optional[BaseException] = error
    while e is not None and seen < 8:
        response = getattr(e, "response", None)
        headers = getattr(response, "headers", None)
        if headers is not None:
            try:
                cls = headers.get("x-errsvc-class")
            except Exception:  # noqa: BLE001 - not a headers mapping
                cls = None
            if cls:
                return str(cls)
        e = e.__cause__ or e.__context__
        seen += 1
    return None


class ErrsvcChatCompletionsModel(OpenAIChatCompletionsModel):
    """``OpenAIChatCompletionsModel`` whose retry advice defers to errsvc:
    an answer errsvc decided on was already retried (or not) by the client."""

    def get_retry_advice(self, request: ModelRetryAdviceRequest) -> Optional[ModelRetryAdvice]:
        decided = _errsvc_decided(request.error)
        if decided is None:
            return super().get_retry_advice(request)  # errsvc not asked or unreachable
        advice = super().get_retry_advice(request)
        return ModelRetryAdvice(
            suggested=False,
            retry_after=None,
            reason="errsvc (%s): the openai client already retried as errsvc decided" % decided,
            normalized=advice.normalized if advice is not None else None,
        )


def model(
    advisor: Advisor,
    model: str = "gpt-4o",
    *,
    provider: Optional[str] = None,
    **kwargs: Any,
) -> ErrsvcChatCompletionsModel:
    """An ``OpenAIChatCompletionsModel`` for ``model`` on :func:`client`
    (``kwargs``: ``base_url``, ``api_key``, ``max_retries``, ...)."""
    return ErrsvcChatCompletionsModel(model=model, openai_client=client(advisor, provider=provider, **kwargs))


__all__ = ["ErrsvcChatCompletionsModel", "client", "model"]
