"""The errsvc client: gRPC for every method, plus REST (grpc-gateway) for translate."""

from __future__ import annotations

import collections
import json
import threading
import time
import urllib.error
import urllib.request
from typing import Any, Iterable, Iterator, List, Mapping, Optional, Sequence, Tuple, Union

import grpc
from google.protobuf import json_format
from google.protobuf.message import DecodeError
from google.rpc import error_details_pb2, status_pb2

from errsvc_client.gen.errsvc.v1 import translation_service_pb2 as pb
from errsvc_client.gen.errsvc.v1 import translation_service_pb2_grpc as pb_grpc
from errsvc_client._open_json import route_unknown

__all__ = [
    "ErrsvcClient",
    "ErrsvcError",
    "RequestLike",
    "DEFAULT_TIMEOUT",
    "STREAM_WINDOW",
    "STREAM_ITEM_ATTEMPTS",
    "field_violations",
    "rate_refusal",
]

#: A TranslateRequest, or its JSON form as a dict (proto field names).
RequestLike = Union[pb.TranslateRequest, Mapping[str, Any]]

#: Seconds given to a unary call when none is passed.
DEFAULT_TIMEOUT = 10.0

#: How many requests translate_all keeps unanswered at once.
STREAM_WINDOW = 64
#: How often translate_all sends one request the stream's rate refused.
STREAM_ITEM_ATTEMPTS = 10
#: The longest interval between two sends that refusals can set, in seconds.
_MAX_STREAM_PACE = 1.0

_SERVICE = "errsvc.v1.TranslationService"


def _service_config(max_attempts: int) -> str:
    """A gRPC service config retrying UNAVAILABLE on every errsvc method
    (translations are pure, hence safe to repeat)."""
    return json.dumps(
        {
            "methodConfig": [
                {
                    "name": [{"service": _SERVICE}],
                    "retryPolicy": {
                        "maxAttempts": max_attempts,
                        "initialBackoff": "0.1s",
                        "maxBackoff": "2s",
                        "backoffMultiplier": 2,
                        "retryableStatusCodes": ["UNAVAILABLE"],
                    },
                }
            ]
        }
    )


class ErrsvcError(Exception):
    """A failed errsvc call, over gRPC or REST.

    ``code`` is the gRPC status code (a malformed request is
    ``grpc.StatusCode.INVALID_ARGUMENT``); ``status`` is the full
    ``google.rpc.Status`` when the server sent one; ``http_status`` is set for
    REST calls. ``field_violations`` and ``fields`` name the offending request
    fields from the ``google.rpc.BadRequest`` detail.
    """

    def __init__(
        self,
        code: grpc.StatusCode,
        message: str,
        status: Optional[status_pb2.Status] = None,
        http_status: Optional[int] = None,
    ) -> None:
        super().__init__(f"{code.name}: {message}")
        self.code = code
        self.message = message
        self.status = status
        self.http_status = http_status

    @property
    def field_violations(self) -> List[error_details_pb2.BadRequest.FieldViolation]:
        return field_violations(self.status)

    @property
    def fields(self) -> List[str]:
        return [fv.field for fv in self.field_violations]


def field_violations(
    status: Optional[status_pb2.Status],
) -> List[error_details_pb2.BadRequest.FieldViolation]:
    """The BadRequest field violations of a google.rpc.Status, such as the
    ``error`` of a batch or stream item."""
    out: List[error_details_pb2.BadRequest.FieldViolation] = []
    if status is None:
        return out
    for detail in status.details:
        if detail.Is(error_details_pb2.BadRequest.DESCRIPTOR):
            br = error_details_pb2.BadRequest()
            detail.Unpack(br)
            out.extend(br.field_violations)
    return out


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


_CODES_BY_NUMBER = {c.value[0]: c for c in grpc.StatusCode}


def _from_rpc_error(err: grpc.RpcError) -> ErrsvcError:
    # The stubs raise an RpcError that is also a grpc.Call.
    call: Any = err
    code = call.code() if callable(getattr(call, "code", None)) else grpc.StatusCode.UNKNOWN
    message = call.details() if callable(getattr(call, "details", None)) else str(err)
    trailers = call.trailing_metadata() if callable(getattr(call, "trailing_metadata", None)) else None
    status = None
    for key, value in trailers or ():
        if key == "grpc-status-details-bin":
            try:
                status = status_pb2.Status.FromString(value)
            except DecodeError:
                status = None
    return ErrsvcError(code, message or "", status)


def _to_request(request: RequestLike) -> pb.TranslateRequest:
    if isinstance(request, pb.TranslateRequest):
        return request
    return json_format.ParseDict(route_unknown(request, pb.TranslateRequest.DESCRIPTOR), pb.TranslateRequest())


def _to_json(request: RequestLike) -> Any:
    if isinstance(request, pb.TranslateRequest):
        return json_format.MessageToDict(request, preserving_proto_field_name=True)
    return request


def _http_base(addr: str) -> str:
    addr = addr.rstrip("/")
    if "://" not in addr:
        addr = "http://" + addr
    return addr


class ErrsvcClient:
    """A client of one errsvc.

    ``grpc_target`` is the gRPC address (``"127.0.0.1:9090"``); ``http_base``
    the REST address (``"127.0.0.1:8080"`` or ``"http://host:8080"``), needed
    only by :meth:`translate_rest`. The channel is plaintext unless
    ``credentials`` (``grpc.ssl_channel_credentials()``) are given. Unary
    calls get ``timeout`` seconds unless the call passes its own; UNAVAILABLE
    is retried up to ``max_attempts`` attempts by the gRPC retry policy.

    Use it as a context manager, or call :meth:`close`.
    """

    def __init__(
        self,
        grpc_target: str,
        http_base: Optional[str] = None,
        *,
        credentials: Optional[grpc.ChannelCredentials] = None,
        timeout: Optional[float] = DEFAULT_TIMEOUT,
        max_attempts: int = 3,
        options: Sequence[Tuple[str, Any]] = (),
    ) -> None:
        opts: List[Tuple[str, Any]] = []
        if max_attempts >= 2:
            opts += [("grpc.enable_retries", 1), ("grpc.service_config", _service_config(max_attempts))]
        else:
            opts += [("grpc.enable_retries", 0)]
        opts += list(options)
        if credentials is None:
            self._channel = grpc.insecure_channel(grpc_target, options=opts)
        else:
            self._channel = grpc.secure_channel(grpc_target, credentials, options=opts)
        self._stub = pb_grpc.TranslationServiceStub(self._channel)
        self._http_base = _http_base(http_base) if http_base else None
        self._timeout = timeout

    def close(self) -> None:
        self._channel.close()

    def __enter__(self) -> "ErrsvcClient":
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()

    def _t(self, timeout: Optional[float]) -> Optional[float]:
        return self._timeout if timeout is None else timeout

    def translate(self, request: RequestLike, *, timeout: Optional[float] = None) -> pb.TranslateResponse:
        """Translates one error into every requested vocabulary.

        Raises :class:`ErrsvcError` (INVALID_ARGUMENT naming the field) for a
        malformed request.
        """
        try:
            return self._stub.Translate(_to_request(request), timeout=self._t(timeout))
        except grpc.RpcError as err:
            raise _from_rpc_error(err) from None

    def translate_batch(
        self, requests: Iterable[RequestLike], *, timeout: Optional[float] = None
    ) -> List[pb.TranslateResponse]:
        """Translates many errors in one call, answering in the same order. A
        malformed item does not fail the call: its response carries its own
        ``error`` (see :func:`field_violations`)."""
        batch = pb.TranslateBatchRequest(requests=[_to_request(r) for r in requests])
        try:
            return list(self._stub.TranslateBatch(batch, timeout=self._t(timeout)).responses)
        except grpc.RpcError as err:
            raise _from_rpc_error(err) from None

    def translate_stream(
        self, requests: Iterable[RequestLike], *, timeout: Optional[float] = None
    ) -> Iterator[pb.TranslateResponse]:
        """Streams requests to TranslateStream and yields each answer in
        order; like a batch item, a malformed request gets its own ``error``.
        No deadline unless ``timeout`` is given."""
        it = self._stub.TranslateStream((_to_request(r) for r in requests), timeout=timeout)
        try:
            yield from it
        except grpc.RpcError as err:
            raise _from_rpc_error(err) from None

    def translate_all(
        self, requests: Iterable[RequestLike], *, timeout: Optional[float] = None
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
        reqs = [_to_request(r) for r in requests]
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

        call = self._stub.TranslateStream(sender(), timeout=timeout)
        try:
            for resp in call:
                with cond:
                    if not in_flight:
                        raise RuntimeError("errsvc: stream answered more messages than were sent")
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
            raise _from_rpc_error(err) from None
        finally:
            with cond:
                st["stopped"] = True
                cond.notify_all()
            call.cancel()
        if st["done"] != n:
            raise ErrsvcError(grpc.StatusCode.UNKNOWN, "stream ended after %d of %d answers" % (st["done"], n))
        return [r for r in out if r is not None]

    def list_vocabularies(self, *, timeout: Optional[float] = None) -> pb.ListVocabulariesResponse:
        """Every vocabulary, each term with its meaning, and the matrix rows."""
        try:
            return self._stub.ListVocabularies(pb.ListVocabulariesRequest(), timeout=self._t(timeout))
        except grpc.RpcError as err:
            raise _from_rpc_error(err) from None

    def translate_rest_json(self, request: RequestLike, *, timeout: Optional[float] = None) -> Any:
        """POST /v1/translate: the response body as parsed JSON (proto field
        names). Raises :class:`ErrsvcError` with ``http_status`` on failure."""
        if self._http_base is None:
            raise ValueError("ErrsvcClient was created without http_base")
        body = json.dumps(_to_json(request)).encode()
        req = urllib.request.Request(
            self._http_base + "/v1/translate",
            data=body,
            method="POST",
            headers={"Content-Type": "application/json", "Accept": "application/json"},
        )
        try:
            with urllib.request.urlopen(req, timeout=self._t(timeout)) as resp:
                return json.load(resp)
        except urllib.error.HTTPError as err:
            raise _from_http_error(err) from None

    def translate_rest(self, request: RequestLike, *, timeout: Optional[float] = None) -> pb.TranslateResponse:
        """Translate over REST (POST /v1/translate), answered as a message."""
        body = self.translate_rest_json(request, timeout=timeout)
        return json_format.ParseDict(route_unknown(body, pb.TranslateResponse.DESCRIPTOR), pb.TranslateResponse())


def _from_http_error(err: urllib.error.HTTPError) -> ErrsvcError:
    raw = err.read()
    try:
        body = json.loads(raw)
        status = json_format.ParseDict(body, status_pb2.Status(), ignore_unknown_fields=True)
    except (ValueError, json_format.ParseError):
        return ErrsvcError(grpc.StatusCode.UNKNOWN, raw.decode(errors="replace") or str(err), None, err.code)
    code = _CODES_BY_NUMBER.get(status.code, grpc.StatusCode.UNKNOWN)
    return ErrsvcError(code, status.message, status, err.code)
