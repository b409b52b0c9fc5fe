"""errsvc_client: the Python client of errsvc, the error translation service.

>>> from errsvc_client import ErrsvcClient
>>> with ErrsvcClient("127.0.0.1:9090", "127.0.0.1:8080") as c:
...     resp = c.translate({"labby_error": {"kind": "rate_limited", "message": "slow down"}})

The generated messages are re-exported as ``errsvc_client.pb`` (package
errsvc.v1) and the gRPC stub as ``errsvc_client.pb_grpc``.
"""

from errsvc_client.client import (
    DEFAULT_TIMEOUT,
    STREAM_ITEM_ATTEMPTS,
    STREAM_WINDOW,
    ErrsvcClient,
    ErrsvcError,
    RequestLike,
    field_violations,
    rate_refusal,
)
from errsvc_client.gen.errsvc.v1 import errors_pb2, options_pb2, vocabulary_pb2
from errsvc_client.gen.errsvc.v1 import translation_service_pb2 as pb
from errsvc_client.gen.errsvc.v1 import translation_service_pb2_grpc as pb_grpc

__all__ = [
    "DEFAULT_TIMEOUT",
    "ErrsvcClient",
    "ErrsvcError",
    "RequestLike",
    "STREAM_ITEM_ATTEMPTS",
    "STREAM_WINDOW",
    "field_violations",
    "rate_refusal",
    "pb",
    "pb_grpc",
    "errors_pb2",
    "options_pb2",
    "vocabulary_pb2",
]
