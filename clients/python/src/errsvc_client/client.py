"""The blocking errsvc client: gRPC for every method, plus REST (grpc-gateway) for translate."""

from __future__ import annotations

import collections
import threading
import time
from typing import Any, Iterable, Iterator, List, Optional, Sequence, Tuple

import grpc
import httpx
from google.rpc import error_details_pb2

from errsvc_client._common import (
    DEFAULT_TIMEOUT,
    REST_HEADERS,
    MetadataLike,
    RequestLike,
    channel_options,
    grpc_credentials,
    http_base,
    merge_metadata,
    parse_json,
    parse_response,
    rest_body,
    ssl_context,
    to_request,
)
from errsvc_client.errors import (
    ErrsvcError,
    ResponseError,
    TransportError,
    UsageError,
    field_violations,
    from_http_answer,
    from_rpc_error,
)
from errsvc_client.gen.errsvc.v1 import translation_service_pb2 as pb
from errsvc_client.gen.errsvc.v1 import translation_service_pb2_grpc as pb_grpc

__all__ = [
    "ErrsvcClient",
    "ErrsvcError",
    "RequestLike",
    "MetadataLike",
    "DEFAULT_TIMEOUT",
    "STREAM_WINDOW",
    "STREAM_ITEM_ATTEMPTS",
    "field_violations",
    "rate_refusal",
]

#: How many requests translate_all keeps unanswered at once.
STREAM_WINDOW = 64
#: How often translate_all sends one request the stream's rate refused.
STREAM_ITEM_ATTEMPTS = 10
#: The longest interval between two sends that refusals can set, in seconds.
_MAX_STREAM_PACE = 1.0


def rate_refusal(resp: pb.TranslateResponse) -> Optional[float]:
    """The wait, in seconds, of a stream item refused over the stream's rate
    (RESOURCE_EXHAUSTED with a google.rpc.RetryInfo), else None."""
    if not resp.HasField("error") or resp.error.code != grpc.StatusCode.RESOURCE_EXHAUSTED.value[0]:
        return None
    for detail in resp.error.details:
        if detail.Is(error_details_pb2.RetryInfo.DESCRIPTOR):
            ri = error_details_pb2.RetryInfo()
            detail.Unpack(ri)
            return max(ri.retry_delay.ToTimedelta().total_seconds(), 0.0)
    return None


def http_error(err: httpx.HTTPError) -> ErrsvcError:
    """A TransportError for an httpx failure that got no answer."""
    if isinstance(err, httpx.TimeoutException):
        return TransportError(grpc.StatusCode.DEADLINE_EXCEEDED, "REST call timed out: %s" % err)
    return TransportError(grpc.StatusCode.UNAVAILABLE, "REST call failed: %s" % err)


class ErrsvcClient:
    """A blocking client of one errsvc.

    ``grpc_target`` is the gRPC address (``"127.0.0.1:9090"``); ``http_base``
    the REST address (``"127.0.0.1:8080"`` or ``"https://host:8080"``), needed
    only by :meth:`translate_rest`. Both are plaintext unless ``tls`` is set,
    ``ca_file`` (a PEM bundle to trust instead of the system roots) or a
    client certificate (``cert_file`` + ``key_file``, for mutual TLS) is given,
    or ``credentials`` (``grpc.ssl_channel_credentials(...)``) set the
    channel's. REST keeps its connections open and reuses them (an
    ``httpx.Client`` pool).

    Unary calls get ``timeout`` seconds unless the call passes its own;
    ``metadata`` is sent with every call (gRPC metadata, REST headers) and a
    call's own ``metadata=`` is added to it. UNAVAILABLE is retried up to
    ``max_attempts`` attempts by the gRPC retry policy. Calls are spread
    round_robin over every address ``grpc_target`` resolves to (a fleet's
    replicas behind ``dns:///``). Every failure raises
    :class:`~errsvc_client.errors.ErrsvcError` or a subclass.

    Use it as a context manager, or call :meth:`close`.
    """

    def __init__(
        self,
        grpc_target: str,
        http_base: Optional[str] = None,
        *,
        credentials: Optional[grpc.ChannelCredentials] = None,
        tls: bool = False,
        ca_file: Optional[str] = None,
        cert_file: Optional[str] = None,
        key_file: Optional[str] = None,
        timeout: Optional[float] = DEFAULT_TIMEOUT,
        max_attempts: int = 3,
        metadata: Optional[MetadataLike] = None,
        options: Sequence[Tuple[str, Any]] = (),
    ) -> None:
        # TLS files are read before anything is opened, so a bad one leaks nothing.
        base = _http_base(http_base, tls or bool(ca_file or cert_file)) if http_base else None
        verify: Any = ssl_context(ca_file, cert_file, key_file) if base and base.startswith("https://") else True
        creds = grpc_credentials(credentials, tls, ca_file, cert_file, key_file)
        opts = channel_options(max_attempts, options)
        if creds is None:
            self._channel = grpc.insecure_channel(grpc_target, options=opts)
        else:
            self._channel = grpc.secure_channel(grpc_target, creds, options=opts)
        self._stub = pb_grpc.TranslationServiceStub(self._channel)
        self._metadata = merge_metadata([], metadata)
        self._timeout = timeout
        self._http: Optional[httpx.Client] = None
        if base:
            self._http = httpx.Client(base_url=base, verify=verify, headers=REST_HEADERS)

    def close(self) -> None:
        self._channel.close()
        if self._http is not None:
            self._http.close()

    def __enter__(self) -> "ErrsvcClient":
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()

    def _t(self, timeout: Optional[float]) -> Optional[float]:
        return self._timeout if timeout is None else timeout

    def _call(self, method: Any, request: Any, timeout: Optional[float], metadata: Optional[MetadataLike]) -> Any:
        try:
            return method(request, timeout=self._t(timeout), metadata=merge_metadata(self._metadata, metadata))
        except grpc.RpcError as err:
            raise from_rpc_error(err) from err
        except ValueError as err:  # grpcio: "Cannot invoke RPC on closed channel!"
            raise UsageError(None, str(err)) from err

    def translate(
        self, request: RequestLike, *, timeout: Optional[float] = None, metadata: Optional[MetadataLike] = None
    ) -> pb.TranslateResponse:
        """Translates one error into every requested vocabulary.

        Raises :class:`ErrsvcError` (INVALID_ARGUMENT naming the field) for a
        malformed request.
        """
        return self._call(self._stub.Translate, to_request(request), timeout, metadata)

    def translate_batch(
        self,
        requests: Iterable[RequestLike],
        *,
        timeout: Optional[float] = None,
        metadata: Optional[MetadataLike] = None,
    ) -> List[pb.TranslateResponse]:
        """Translates many errors in one call, answering in the same order. A
        malformed item does not fail the call: its response carries its own
        ``error`` (see :func:`field_violations`)."""
        batch = pb.TranslateBatchRequest(requests=[to_request(r) for r in requests])
        return list(self._call(self._stub.TranslateBatch, batch, timeout, metadata).responses)

    def translate_stream(
        self,
        requests: Iterable[RequestLike],
        *,
        timeout: Optional[float] = None,
        metadata: Optional[MetadataLike] = None,
    ) -> Iterator[pb.TranslateResponse]:
        """Streams requests to TranslateStream and yields each answer in
        order; like a batch item, a malformed request gets its own ``error``.
        No deadline unless ``timeout`` is given."""
        try:
            it = self._stub.TranslateStream(
                (to_request(r) for r in requests), timeout=timeout, metadata=merge_metadata(self._metadata, metadata)
            )
            yield from it
        except grpc.RpcError as err:
            raise from_rpc_error(err) from err
        except ValueError as err:
            raise UsageError(None, str(err)) from err

    def translate_all(
        self,
        requests: Iterable[RequestLike],
        *,
        timeout: Optional[float] = None,
        metadata: Optional[MetadataLike] = None,
    ) -> List[pb.TranslateResponse]:
        """Translates every request over one TranslateStream, sending while it
        receives, and returns the answers in the order of ``requests`` (a
        malformed request's answer carries its own ``error``, as in a batch).

        errsvc limits the messages per second of a stream: a message over the
        rate is answered with RESOURCE_EXHAUSTED and a google.rpc.RetryInfo.
        translate_all then sends the refused request again and from then on
        paces its sends by the delay the server asked for; a request refused
        STREAM_ITEM_ATTEMPTS times keeps the refusal as its answer.
        """
        reqs = [to_request(r) for r in requests]
        n = len(reqs)
        out: List[Optional[pb.TranslateResponse]] = [None] * n
        if n == 0:
            return []
        cond = threading.Condition()
        queue = collections.deque(range(n))  # still to send; a refused one goes first
        in_flight: "collections.deque[int]" = collections.deque()  # sent, not yet answered
        attempts = [0] * n
        st = {"done": 0, "interval": 0.0, "next": 0.0, "stopped": False}

        def sender() -> Iterator[pb.TranslateRequest]:
            while True:
                with cond:
                    while True:
                        if st["done"] == n or st["stopped"]:
                            return
                        if queue and len(in_flight) < STREAM_WINDOW:
                            wait = st["next"] - time.monotonic()
                            if wait <= 0:
                                break
                            cond.wait(wait)
                        else:
                            cond.wait()
                    i = queue.popleft()
                    in_flight.append(i)
                    attempts[i] += 1
                    st["next"] = time.monotonic() + st["interval"]
                yield reqs[i]

        try:
            call = self._stub.TranslateStream(
                sender(), timeout=timeout, metadata=merge_metadata(self._metadata, metadata)
            )
        except ValueError as err:
            raise UsageError(None, str(err)) from err
        try:
            for resp in call:
                with cond:
                    if not in_flight:
                        raise ResponseError(None, "stream answered more messages than were sent")
                    i = in_flight.popleft()
                    delay = rate_refusal(resp)
                    if delay is not None and attempts[i] < STREAM_ITEM_ATTEMPTS:
                        queue.appendleft(i)
                        st["interval"] = min(max(st["interval"], delay), _MAX_STREAM_PACE)
                        st["next"] = max(st["next"], time.monotonic() + min(delay, _MAX_STREAM_PACE))
                    else:
                        out[i] = resp
                        st["done"] += 1
                    cond.notify_all()
        except grpc.RpcError as err:
            raise from_rpc_error(err) from err
        finally:
            with cond:
                st["stopped"] = True
                cond.notify_all()
            call.cancel()
        if st["done"] != n:
            raise ErrsvcError(grpc.StatusCode.UNKNOWN, "stream ended after %d of %d answers" % (st["done"], n))
        return [r for r in out if r is not None]

    def list_vocabularies(
        self, *, timeout: Optional[float] = None, metadata: Optional[MetadataLike] = None
    ) -> pb.ListVocabulariesResponse:
        """Every vocabulary, each term with its meaning, and the matrix rows."""
        return self._call(self._stub.ListVocabularies, pb.ListVocabulariesRequest(), timeout, metadata)

    def translate_rest_json(
        self, request: RequestLike, *, timeout: Optional[float] = None, metadata: Optional[MetadataLike] = None
    ) -> Any:
        """POST /v1/translate: the response body as parsed JSON (proto field
        names). Raises :class:`ErrsvcError` with ``http_status`` on failure."""
        if self._http is None:
            raise UsageError(None, "ErrsvcClient was created without http_base")
        body = rest_body(request)
        try:
            resp = self._http.post(
                "/v1/translate", content=body, timeout=self._t(timeout), headers=merge_metadata(self._metadata, metadata)
            )
        except httpx.HTTPError as err:
            raise http_error(err) from err
        except RuntimeError as err:  # httpx: the client has been closed
            raise UsageError(None, str(err)) from err
        if resp.status_code >= 400:
            raise from_http_answer(resp.status_code, resp.content)
        return parse_json(resp.content)

    def translate_rest(
        self, request: RequestLike, *, timeout: Optional[float] = None, metadata: Optional[MetadataLike] = None
    ) -> pb.TranslateResponse:
        """Translate over REST (POST /v1/translate), answered as a message."""
        return parse_response(self.translate_rest_json(request, timeout=timeout, metadata=metadata))


_http_base = http_base
