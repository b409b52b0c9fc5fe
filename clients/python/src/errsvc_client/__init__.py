"""errsvc_client: the Python client of errsvc, the error translation service.

>>> from errsvc_client import ErrsvcClient, is_retryable, retry_after
>>> with ErrsvcClient("127.0.0.1:9090", "127.0.0.1:8080") as c:
...     resp = c.translate({"labby_error": {"kind": "rate_limited", "message": "slow down"}})
>>> is_retryable(resp), retry_after(resp)

``AsyncErrsvcClient`` is the asyncio client. The wire strings of every
vocabulary are classes of ``errsvc_client.wire`` (also importable from here):
``resp.agent_error.code == AgentErrorCode.RATE_LIMITED``. The generated
messages are ``errsvc_client.pb`` (package errsvc.v1) and the gRPC stub
``errsvc_client.pb_grpc``.
"""

from errsvc_client._common import DEFAULT_TIMEOUT, MetadataLike, RequestLike
from errsvc_client.aio import AsyncErrsvcClient
from errsvc_client.client import STREAM_ITEM_ATTEMPTS, STREAM_WINDOW, ErrsvcClient, rate_refusal
from errsvc_client.decide import (
    DEFAULT_MAX_WAIT,
    Decision,
    Limit,
    TranslatedError,
    decide,
    is_retryable,
    limit_of,
    retry_after,
    same_arguments_safe,
    should_reauthenticate,
    to_error,
    to_status,
)
from errsvc_client.errors import (
    ErrsvcError,
    RequestError,
    ResponseError,
    TransportError,
    UsageError,
    field_violations,
)
from errsvc_client import wire
from errsvc_client.wire import (
    AgentErrorCode,
    AgentRetry,
    ClassifiedCode,
    ErrorClass,
    LabbyKind,
    LimitDecision,
    LimitDimension,
    LimitKind,
    LimitScope,
    NoteCode,
    Origin,
    RecoveryAction,
    RoutingCode,
    SameArguments,
    SideEffects,
)
from errsvc_client.gen.errsvc.v1 import errors_pb2, options_pb2, vocabulary_pb2
from errsvc_client.gen.errsvc.v1 import translation_service_pb2 as pb
from errsvc_client.gen.errsvc.v1 import translation_service_pb2_grpc as pb_grpc

__all__ = [
    "DEFAULT_MAX_WAIT",
    "DEFAULT_TIMEOUT",
    "AsyncErrsvcClient",
    "Decision",
    "ErrsvcClient",
    "Limit",
    "ErrsvcError",
    "MetadataLike",
    "RequestError",
    "RequestLike",
    "ResponseError",
    "STREAM_ITEM_ATTEMPTS",
    "STREAM_WINDOW",
    "TranslatedError",
    "TransportError",
    "UsageError",
    "decide",
    "field_violations",
    "is_retryable",
    "limit_of",
    "rate_refusal",
    "retry_after",
    "same_arguments_safe",
    "should_reauthenticate",
    "to_error",
    "to_status",
    "wire",
    "AgentErrorCode",
    "AgentRetry",
    "ClassifiedCode",
    "ErrorClass",
    "LabbyKind",
    "LimitDecision",
    "LimitDimension",
    "LimitKind",
    "LimitScope",
    "NoteCode",
    "Origin",
    "RecoveryAction",
    "RoutingCode",
    "SameArguments",
    "SideEffects",
    "pb",
    "pb_grpc",
    "errors_pb2",
    "options_pb2",
    "vocabulary_pb2",
]
