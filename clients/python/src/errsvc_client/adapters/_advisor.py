"""The one call every Python adapter makes: what does errsvc say about this
provider answer, and what does that mean for a retry."""

from __future__ import annotations

import dataclasses
import logging
import time
from typing import Any, Callable, Mapping, Optional, Union

from errsvc_client.client import ErrsvcClient
from errsvc_client.decide import Decision, decide
from errsvc_client.gen.errsvc.v1 import translation_service_pb2 as pb

log = logging.getLogger("errsvc_client.adapters")

#: The longest stated wait the adapters follow: the ``openai`` and
#: ``anthropic`` clients ignore a server wait above 60 s, so a longer one
#: fails fast instead (errsvc's ``retry_after`` with this cap).
DEFAULT_MAX_WAIT = 60.0


@dataclasses.dataclass(frozen=True)
class Advice:
    """errsvc's answer for one failed call and what the adapter does."""

    response: pb.TranslateResponse
    decision: Decision
    #: Make the call again (retryable, and its wait under the cap).
    retry: bool
    #: Seconds to wait first; 0.0 when errsvc states none (the framework's backoff).
    wait: float

    @property
    def error_class(self) -> str:
        return getattr(self.response.classification, "class")

    @property
    def action(self) -> str:
        return self.response.labby_error.recovery.action


def guess_provider(path: str, body: Union[str, bytes]) -> str:
    """The provider family of an answer: anthropic for its error body
    (``{"type": "error", ...}``), openai for an ``{"error": {...}}`` body (the
    shape most gateways answer in), else by the path (``/messages``:
    anthropic)."""
    text = body.decode("utf-8", "replace") if isinstance(body, bytes) else body
    if '"type":"error"' in text or '"type": "error"' in text or "event: error" in text:
        return "anthropic"
    if '"error"' in text:
        return "openai"
    return "anthropic" if path.endswith("/messages") else "openai"


class Advisor:
    """Asks errsvc about failed provider answers.

    ``client`` is an :class:`~errsvc_client.ErrsvcClient`; over REST when it
    was made with ``http_base`` (and ``rest`` is true), else over gRPC.
    ``framework`` names whose behaviour applies when errsvc cannot be reached
    (in the log line). ``wait_scale`` multiplies every wait (tests: 0.02).
    """

    def __init__(
        self,
        client: ErrsvcClient,
        *,
        rest: bool = True,
        max_wait: float = DEFAULT_MAX_WAIT,
        wait_scale: float = 1.0,
        timeout: float = 2.0,
        framework: str = "the framework",
        on_advice: Optional[Callable[[Advice], None]] = None,
    ) -> None:
        self.client = client
        self.rest = rest and getattr(client, "_http", None) is not None
        self.max_wait = max_wait
        self.wait_scale = wait_scale
        self.timeout = timeout
        self.framework = framework
        self.on_advice = on_advice

    def translate(self, request: Mapping[str, Any]) -> pb.TranslateResponse:
        if self.rest:
            return self.client.translate_rest(request, timeout=self.timeout)
        return self.client.translate(request, timeout=self.timeout)

    def advise(
        self,
        *,
        status: int,
        headers: Mapping[str, str],
        body: Union[str, bytes],
        provider: Optional[str] = None,
        path: str = "",
        idempotent: bool = False,
    ) -> Optional[Advice]:
        """errsvc's advice on one provider answer, or None (logged) when
        errsvc cannot be reached: the framework's own rule applies."""
        text = body.decode("utf-8", "replace") if isinstance(body, bytes) else body
        request = {
            "provider_response": {
                "provider": provider or guess_provider(path, text),
                "status": status,
                "headers": {k.lower(): v for k, v in headers.items()},
                "body": text,
                "received_at": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
            }
        }
        try:
            resp = self.translate(request)
        except Exception as err:  # noqa: BLE001 - any failure to ask is a fallback
            log.warning(
                "errsvc could not be reached (%s); falling back to %s's own retry behaviour", err, self.framework
            )
            return None
        d = decide(resp, max_wait=self.max_wait, idempotent=idempotent)
        advice = Advice(resp, d, retry=d.retryable and d.retry_after is not None, wait=(d.retry_after or 0.0))
        log.debug(
            "errsvc: class %s, action %s, retry %s, wait %.3fs",
            advice.error_class,
            advice.action,
            advice.retry,
            advice.wait,
        )
        if self.on_advice is not None:
            self.on_advice(advice)
        return advice

    def advise_stream_error(self, events: Union[str, bytes], provider: Optional[str] = None) -> Optional[Advice]:
        """errsvc's advice on an error event that arrived after a 200 had
        begun streaming (``events``: the stream as received, the error event
        included). ``retry`` is true only when repeating the same call is
        safe, which it is not once output began (``same_arguments``
        discouraged): the caller holds the partial output and decides."""
        advice = self.advise(status=200, headers={"content-type": "text/event-stream"}, body=events, provider=provider)
        if advice is None or not advice.retry or advice.decision.same_arguments_safe:
            return advice
        return dataclasses.replace(advice, retry=False)

    def sleep(self, seconds: float) -> None:
        time.sleep(seconds * self.wait_scale)
