"""An httpx transport for the ``openai`` and ``anthropic`` clients.

The clients already own a retry loop (``max_retries``) that obeys two
response headers before their own status rules: ``x-should-retry`` and
``retry-after-ms``. The transport asks errsvc about every answer of status
400 or more and sets those headers from its decision, so the client retries
exactly when errsvc says (a billing 429 or a context overflow: never; a rate
limit: after the wait the provider stated; a 529: with the client's
backoff), and adds ``x-errsvc-class`` / ``x-errsvc-action`` for the caller
(``reauthenticate`` on a 401). When errsvc cannot be reached the answer is
passed on untouched: the client's own rule applies (logged).

Both clients use ``httpx2`` (openai >= 3, anthropic >= 2); the transport is
built for whichever httpx module the client was made with.
"""

from __future__ import annotations

import asyncio
import sys
from typing import Any, Optional

from errsvc_client.adapters._advisor import Advice, Advisor

_HEADERS = ("x-should-retry", "retry-after-ms", "retry-after", "x-errsvc-class", "x-errsvc-action")


def _apply(advisor: Advisor, advice: Optional[Advice], headers: Any) -> None:
    if advice is None:
        return  # errsvc unreachable (logged): the client's own rule
    for h in _HEADERS:
        if h in headers:
            del headers[h]
    headers["x-errsvc-class"] = advice.error_class
    headers["x-errsvc-action"] = advice.action
    headers["x-should-retry"] = "true" if advice.retry else "false"
    if advice.retry and advice.wait > 0:
        # The client sleeps this long: errsvc's wait (scaled in tests).
        headers["retry-after-ms"] = "%d" % max(1, round(advice.wait * 1000 * advisor.wait_scale))


def _httpx_of(client_cls: Any) -> Any:
    """The httpx module (httpx or httpx2) a client class is built on."""
    for base in client_cls.__mro__:
        root = base.__module__.split(".")[0]
        if root in ("httpx", "httpx2"):
            return sys.modules[root]
    import httpx

    return httpx


def transport(advisor: Advisor, httpx_module: Any = None, inner: Any = None, provider: Optional[str] = None) -> Any:
    """A sync transport (of ``httpx_module``, default httpx) over ``inner``
    (default ``httpx_module.HTTPTransport()``)."""
    hx = httpx_module or sys.modules.get("httpx") or __import__("httpx")
    base = inner or hx.HTTPTransport()

    class ErrsvcTransport(hx.BaseTransport):  # type: ignore[misc,name-defined]
        def handle_request(self, request: Any) -> Any:
            response = base.handle_request(request)
            if response.status_code < 400:
                return response
            body = response.read()
            advice = advisor.advise(
                status=response.status_code,
                headers=dict(response.headers),
                body=body,
                provider=provider,
                path=request.url.path,
            )
            _apply(advisor, advice, response.headers)
            return response

        def close(self) -> None:
            base.close()

    return ErrsvcTransport()


def async_transport(advisor: Advisor, httpx_module: Any = None, inner: Any = None, provider: Optional[str] = None) -> Any:
    """The asyncio transport (``AsyncOpenAI``, ``AsyncAnthropic``); errsvc is
    asked in a worker thread."""
    hx = httpx_module or sys.modules.get("httpx") or __import__("httpx")
    base = inner or hx.AsyncHTTPTransport()

    class AsyncErrsvcTransport(hx.AsyncBaseTransport):  # type: ignore[misc,name-defined]
        async def handle_async_request(self, request: Any) -> Any:
            response = await base.handle_async_request(request)
            if response.status_code < 400:
                return response
            body = await response.aread()
            advice = await asyncio.to_thread(
                advisor.advise,
                status=response.status_code,
                headers=dict(response.headers),
                body=body,
                provider=provider,
                path=request.url.path,
            )
            _apply(advisor, advice, response.headers)
            return response

        async def aclose(self) -> None:
            await base.aclose()

    return AsyncErrsvcTransport()


def openai_client(advisor: Advisor, **kwargs: Any) -> Any:
    """``openai.OpenAI(**kwargs)`` whose retries errsvc decides."""
    import openai

    hx = _httpx_of(openai.DefaultHttpxClient)
    advisor.framework = advisor.framework if advisor.framework != "the framework" else "openai"
    http_client = openai.DefaultHttpxClient(transport=transport(advisor, hx, provider=kwargs.pop("provider", None)))
    return openai.OpenAI(http_client=http_client, **kwargs)


def anthropic_client(advisor: Advisor, **kwargs: Any) -> Any:
    """``anthropic.Anthropic(**kwargs)`` whose retries errsvc decides."""
    import anthropic

    hx = _httpx_of(anthropic.DefaultHttpxClient)
    advisor.framework = advisor.framework if advisor.framework != "the framework" else "anthropic"
    http_client = anthropic.DefaultHttpxClient(
        transport=transport(advisor, hx, provider=kwargs.pop("provider", None))
    )
    return anthropic.Anthropic(http_client=http_client, **kwargs)
