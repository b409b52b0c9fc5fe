"""Pieces the blocking and the asyncio clients share."""

from __future__ import annotations

import json
import ssl
from typing import Any, Dict, List, Mapping, Optional, Sequence, Tuple, Union

import grpc
from google.protobuf import json_format

from errsvc_client.errors import RequestError, ResponseError, UsageError
from errsvc_client._open_json import route_unknown
from errsvc_client.gen.errsvc.v1 import translation_service_pb2 as pb

#: A TranslateRequest, or its JSON form as a dict (proto field names).
RequestLike = Union[pb.TranslateRequest, Mapping[str, Any]]

#: gRPC metadata (and REST headers): (key, value) pairs or a mapping.
MetadataLike = Union[Sequence[Tuple[str, str]], Mapping[str, str]]

#: Seconds given to a unary call when none is passed.
DEFAULT_TIMEOUT = 10.0

_SERVICE = "errsvc.v1.TranslationService"

#: Spreads calls over every address the target resolves to (a fleet's
#: replicas behind one DNS name), where gRPC's default, pick_first, sends
#: them all to one.
_ROUND_ROBIN = [{"round_robin": {}}]


def service_config(max_attempts: int) -> str:
    """The gRPC service config: calls balanced round_robin and, when
    max_attempts >= 2, UNAVAILABLE retried on every errsvc method
    (translations are pure, hence safe to repeat)."""
    config: Dict[str, Any] = {"loadBalancingConfig": _ROUND_ROBIN}
    if max_attempts >= 2:
        config["methodConfig"] = [
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
    return json.dumps(config)


def channel_options(max_attempts: int, options: Sequence[Tuple[str, Any]]) -> List[Tuple[str, Any]]:
    # Retries off still balances: the service config then holds round_robin only.
    opts: List[Tuple[str, Any]] = [
        ("grpc.enable_retries", 1 if max_attempts >= 2 else 0),
        ("grpc.service_config", service_config(max_attempts)),
    ]
    return opts + list(options)


def _read(path: Optional[str]) -> Optional[bytes]:
    if path is None:
        return None
    try:
        with open(path, "rb") as f:
            return f.read()
    except OSError as err:
        raise UsageError(None, "cannot read %s: %s" % (path, err.strerror)) from err


def grpc_credentials(
    credentials: Optional[grpc.ChannelCredentials],
    tls: bool,
    ca_file: Optional[str],
    cert_file: Optional[str],
    key_file: Optional[str],
) -> Optional[grpc.ChannelCredentials]:
    """The channel credentials: as given, else TLS from the files (system
    roots without ca_file), else None for plaintext."""
    if credentials is not None:
        return credentials
    if not (tls or ca_file or cert_file):
        return None
    if bool(cert_file) != bool(key_file):
        raise UsageError(None, "cert_file and key_file go together")
    return grpc.ssl_channel_credentials(
        root_certificates=_read(ca_file), private_key=_read(key_file), certificate_chain=_read(cert_file)
    )


def ssl_context(ca_file: Optional[str], cert_file: Optional[str], key_file: Optional[str]) -> ssl.SSLContext:
    """The REST client's TLS context: system roots or ca_file, and the
    client certificate for mutual TLS."""
    if bool(cert_file) != bool(key_file):
        raise UsageError(None, "cert_file and key_file go together")
    try:
        ctx = ssl.create_default_context(cafile=ca_file)
        if cert_file:
            ctx.load_cert_chain(cert_file, key_file)
    except (OSError, ssl.SSLError) as err:
        raise UsageError(None, "TLS files: %s" % err) from err
    return ctx


def http_base(addr: str, tls: bool) -> str:
    addr = addr.rstrip("/")
    if "://" not in addr:
        addr = ("https://" if tls else "http://") + addr
    return addr


def merge_metadata(default: List[Tuple[str, str]], extra: Optional[MetadataLike]) -> List[Tuple[str, str]]:
    out = list(default)
    if extra:
        items = extra.items() if isinstance(extra, Mapping) else extra
        out += [(str(k).lower(), str(v)) for k, v in items]
    return out


def to_request(request: RequestLike) -> pb.TranslateRequest:
    if isinstance(request, pb.TranslateRequest):
        return request
    try:
        return json_format.ParseDict(route_unknown(request, pb.TranslateRequest.DESCRIPTOR), pb.TranslateRequest())
    except (json_format.ParseError, TypeError, ValueError, AttributeError) as err:
        raise RequestError(None, "not a TranslateRequest: %s" % err) from err


def to_json(request: RequestLike) -> Any:
    if isinstance(request, pb.TranslateRequest):
        return json_format.MessageToDict(request, preserving_proto_field_name=True)
    return request


def rest_body(request: RequestLike) -> bytes:
    try:
        return json.dumps(to_json(request)).encode()
    except (TypeError, ValueError) as err:
        raise RequestError(None, "request is not JSON: %s" % err) from err


REST_HEADERS = {"Content-Type": "application/json", "Accept": "application/json"}


def parse_json(raw: bytes) -> Any:
    try:
        return json.loads(raw)
    except ValueError as err:
        raise ResponseError(None, "errsvc answered with something other than JSON: %s" % err) from err


def parse_response(body: Any) -> pb.TranslateResponse:
    try:
        # REST writes additional fields as members of their object.
        return json_format.ParseDict(route_unknown(body, pb.TranslateResponse.DESCRIPTOR), pb.TranslateResponse())
    except (json_format.ParseError, TypeError, ValueError, AttributeError) as err:
        raise ResponseError(None, "not a TranslateResponse: %s" % err) from err
