"""One exception hierarchy for every failure of an errsvc call.

Every method of :class:`~errsvc_client.ErrsvcClient` and
:class:`~errsvc_client.AsyncErrsvcClient` raises :class:`ErrsvcError` or a
subclass, never a raw ``grpc.RpcError``, ``httpx`` error, ``ParseError`` or
``ValueError``; the original is the exception's ``__cause__``.

- :class:`ErrsvcError`: errsvc answered with an error status (gRPC or REST).
- :class:`RequestError`: the request could not be built (a dict that is not
  a TranslateRequest); nothing was sent. Code INVALID_ARGUMENT.
- :class:`TransportError`: no answer arrived (connection refused, TLS
  failure, timeout). Code UNAVAILABLE, or DEADLINE_EXCEEDED for a timeout.
- :class:`ResponseError`: an answer arrived that is not errsvc's (not JSON,
  not a TranslateResponse). Code INTERNAL.
- :class:`UsageError`: the client cannot make this call (closed, or no
  ``http_base`` for REST). Code FAILED_PRECONDITION.
"""

from __future__ import annotations

from typing import Any, List, Optional

import grpc
from google.protobuf import json_format
from google.protobuf.message import DecodeError
from google.rpc import error_details_pb2, status_pb2

__all__ = [
    "ErrsvcError",
    "RequestError",
    "TransportError",
    "ResponseError",
    "UsageError",
    "field_violations",
]

_CODES_BY_NUMBER = {c.value[0]: c for c in grpc.StatusCode}


class ErrsvcError(Exception):
    """A failed errsvc call, over gRPC or REST.

    ``code`` is the gRPC status code (a malformed request is
    ``grpc.StatusCode.INVALID_ARGUMENT``); ``status`` is the full
    ``google.rpc.Status`` when the server sent one; ``http_status`` is set for
    REST answers. ``field_violations`` and ``fields`` name the offending
    request fields from the ``google.rpc.BadRequest`` detail.
    """

    default_code = grpc.StatusCode.UNKNOWN

    def __init__(
        self,
        code: Optional[grpc.StatusCode],
        message: str,
        status: Optional[status_pb2.Status] = None,
        http_status: Optional[int] = None,
    ) -> None:
        code = code or self.default_code
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


class RequestError(ErrsvcError):
    """The request could not be built; nothing was sent."""

    default_code = grpc.StatusCode.INVALID_ARGUMENT


class TransportError(ErrsvcError):
    """No answer arrived: the connection failed or the call timed out."""

    default_code = grpc.StatusCode.UNAVAILABLE


class ResponseError(ErrsvcError):
    """An answer arrived that could not be read as errsvc's."""

    default_code = grpc.StatusCode.INTERNAL


class UsageError(ErrsvcError):
    """The client cannot make this call as configured."""

    default_code = grpc.StatusCode.FAILED_PRECONDITION


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


def from_rpc_error(err: grpc.RpcError) -> ErrsvcError:
    """An ErrsvcError for an error a grpcio stub (blocking or aio) raised."""
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
    if code == grpc.StatusCode.UNAVAILABLE and status is None:
        # No status from errsvc: the connection itself failed.
        return TransportError(code, message or "", None)
    if code == grpc.StatusCode.DEADLINE_EXCEEDED and status is None:
        return TransportError(code, message or "", None)
    return ErrsvcError(code, message or "", status)


def from_http_answer(http_status: int, raw: bytes) -> ErrsvcError:
    """An ErrsvcError for a REST answer with an error status; its body is a
    google.rpc.Status in JSON when errsvc wrote it."""
    try:
        status = json_format.Parse(raw, status_pb2.Status(), ignore_unknown_fields=True)
    except (ValueError, json_format.ParseError):
        text = raw.decode(errors="replace")[:1024]
        return ErrsvcError(_code_from_http(http_status), text or "HTTP %d" % http_status, None, http_status)
    code = _CODES_BY_NUMBER.get(status.code, _code_from_http(http_status))
    return ErrsvcError(code, status.message, status, http_status)


_HTTP_CODES = {
    400: grpc.StatusCode.INVALID_ARGUMENT,
    401: grpc.StatusCode.UNAUTHENTICATED,
    403: grpc.StatusCode.PERMISSION_DENIED,
    404: grpc.StatusCode.NOT_FOUND,
    409: grpc.StatusCode.ABORTED,
    413: grpc.StatusCode.RESOURCE_EXHAUSTED,
    429: grpc.StatusCode.RESOURCE_EXHAUSTED,
    499: grpc.StatusCode.CANCELLED,
    501: grpc.StatusCode.UNIMPLEMENTED,
    503: grpc.StatusCode.UNAVAILABLE,
    504: grpc.StatusCode.DEADLINE_EXCEEDED,
}


def _code_from_http(http_status: int) -> grpc.StatusCode:
    return _HTTP_CODES.get(http_status, grpc.StatusCode.UNKNOWN)
