"""LiteLLM with errsvc deciding the retries (``pip install errsvc-client[litellm]``).

:func:`completion` calls ``litellm.completion`` with LiteLLM's own retries
off (``num_retries=0``, which LiteLLM passes to the provider client as
``max_retries``), asks errsvc about each failure (the provider's status,
headers and body, one Translate call) and makes the call again only when
errsvc says it may succeed, after the wait it states: a billing 429
(insufficient_quota) or a context overflow is raised at once, where
LiteLLM's own rule retries every 429. A 401 is raised with
``err.errsvc.decision.reauthenticate`` true.

When errsvc cannot be reached the call is handed to LiteLLM as the caller
wrote it (its own ``num_retries``), said in a log line.
"""

from __future__ import annotations

from typing import Any, Optional

import litellm

from errsvc_client.adapters._advisor import Advice, Advisor, log

#: LiteLLM's own default, used when the caller gives no num_retries.
DEFAULT_RETRIES = 2


def _answer(err: Exception) -> Optional[tuple]:
    """The provider answer behind a LiteLLM exception: (status, headers, body)."""
    status = getattr(err, "status_code", None)
    if not isinstance(status, int) or status < 400:
        return None
    response = getattr(err, "response", None)
    headers: dict = {}
    raw = getattr(err, "litellm_response_headers", None)
    if raw is None and response is not None:
        raw = getattr(response, "headers", None)
    if raw is not None:
        headers = {str(k).lower(): str(v) for k, v in dict(raw).items()}
    body = ""
    if response is not None:
        try:
            body = response.text
        except Exception:  # noqa: BLE001 - a streamed or closed body
            body = ""
    if not body:
        body = str(getattr(err, "body", None) or getattr(err, "message", "") or err)
        # LiteLLM prefixes the provider's message ("litellm.RateLimitError: ...").
        brace = body.find("{")
        if brace > 0:
            body = body[brace:]
    return status, headers, body


def completion(*, advisor: Advisor, **kwargs: Any) -> Any:
    """``litellm.completion(**kwargs)`` retried as errsvc decides; at most
    ``num_retries`` (default 2) more calls."""
    if advisor.framework == "the framework":
        advisor.framework = "LiteLLM"
    retries = kwargs.pop("num_retries", None)
    budget = DEFAULT_RETRIES if retries is None else retries
    attempt = 0
    while True:
        attempt += 1
        try:
            return litellm.completion(**kwargs, num_retries=0)
        except Exception as err:  # noqa: BLE001 - LiteLLM raises its own mapped exceptions
            answer = _answer(err)
            if answer is None:
                raise
            status, headers, body = answer
            advice = advisor.advise(status=status, headers=headers, body=body)
            if advice is None:
                # errsvc unreachable (logged): LiteLLM's own behaviour, as written.
                if retries is not None:
                    kwargs["num_retries"] = retries
                return litellm.completion(**kwargs)
            err.errsvc = advice  # type: ignore[attr-defined]
            if not advice.retry or attempt > budget:
                raise
            log.info("errsvc: %s; retrying in %.3fs", advice.error_class, advice.wait)
            advisor.sleep(advice.wait if advice.wait > 0 else 0.5 * 2 ** (attempt - 1))


__all__ = ["Advice", "completion"]
