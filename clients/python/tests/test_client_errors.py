"""Every failure is an ErrsvcError; TLS options, per-call metadata and the
asyncio client, against local fakes (no errsvc needed)."""

from __future__ import annotations

import asyncio
import http.server
import socket
import ssl
import subprocess
import threading
from concurrent import futures
from typing import Any, Iterator

import grpc
import pytest

from errsvc_client import (
    AsyncErrsvcClient,
    ErrsvcClient,
    ErrsvcError,
    RequestError,
    ResponseError,
    TransportError,
    UsageError,
    pb,
    pb_grpc,
)

RATE_LIMITED = {"labby_error": {"kind": "rate_limited", "message": "slow down"}}


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class _Handler(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"  # keep-alive, as errsvc's server does
    body = b"<html>not errsvc</html>"
    status = 200
    seen: list = []

    def do_POST(self) -> None:  # noqa: N802
        self.rfile.read(int(self.headers.get("Content-Length", "0")))
        type(self).seen.append(dict(self.headers, peer=self.client_address))
        self.send_response(self.status)
        self.send_header("Content-Length", str(len(self.body)))
        self.end_headers()
        self.wfile.write(self.body)

    def log_message(self, *args: Any) -> None:
        pass


@pytest.fixture
def http_fake() -> Iterator[tuple]:
    handler = type("H", (_Handler,), {"seen": []})
    srv = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    t = threading.Thread(target=srv.serve_forever, daemon=True)
    t.start()
    yield srv, handler
    srv.shutdown()
    srv.server_close()


def test_request_error_not_parse_error():
    with ErrsvcClient("127.0.0.1:1", "127.0.0.1:1") as c:
        with pytest.raises(RequestError) as info:
            c.translate({"labby_error": {"kind": 5}})  # an unknown member is carried; a wrong type is refused
        assert info.value.code == grpc.StatusCode.INVALID_ARGUMENT
        with pytest.raises(ErrsvcError):
            c.translate_rest({"labby_error": {"kind": object()}})


def test_usage_error_without_http_base():
    with ErrsvcClient("127.0.0.1:1") as c:
        with pytest.raises(UsageError):
            c.translate_rest(RATE_LIMITED)


def test_rest_connection_refused_is_transport_error():
    with ErrsvcClient("127.0.0.1:1", "127.0.0.1:%d" % free_port()) as c:
        with pytest.raises(TransportError) as info:
            c.translate_rest(RATE_LIMITED, timeout=2)
        assert info.value.code == grpc.StatusCode.UNAVAILABLE
        assert isinstance(info.value, ErrsvcError)


def test_grpc_connection_refused_is_transport_error():
    with ErrsvcClient("127.0.0.1:%d" % free_port(), max_attempts=1) as c:
        with pytest.raises(TransportError) as info:
            c.translate(RATE_LIMITED, timeout=2)
        assert info.value.code in (grpc.StatusCode.UNAVAILABLE, grpc.StatusCode.DEADLINE_EXCEEDED)


def test_closed_client_is_usage_error():
    c = ErrsvcClient("127.0.0.1:1", "127.0.0.1:1")
    c.close()
    with pytest.raises(UsageError):
        c.translate(RATE_LIMITED)
    with pytest.raises(UsageError):
        c.translate_rest(RATE_LIMITED)


def test_non_json_answer_is_response_error(http_fake):
    srv, handler = http_fake
    with ErrsvcClient("127.0.0.1:1", "127.0.0.1:%d" % srv.server_address[1]) as c:
        with pytest.raises(ResponseError):
            c.translate_rest(RATE_LIMITED)
        handler.body, handler.status = b"[1, 2]", 200
        with pytest.raises(ResponseError):
            c.translate_rest(RATE_LIMITED)
        handler.body, handler.status = b"<html>bad gateway</html>", 502
        with pytest.raises(ErrsvcError) as info:
            c.translate_rest(RATE_LIMITED)
        assert info.value.http_status == 502


def test_rest_metadata_and_keepalive(http_fake):
    srv, handler = http_fake
    handler.body = b"{}"
    with ErrsvcClient("127.0.0.1:1", "127.0.0.1:%d" % srv.server_address[1], metadata={"x-tenant": "a"}) as c:
        c.translate_rest(RATE_LIMITED, metadata=[("x-request-id", "r1")])
        c.translate_rest(RATE_LIMITED)
    first, second = handler.seen
    assert first["x-tenant"] == "a" and first["x-request-id"] == "r1"
    assert second["x-tenant"] == "a" and "x-request-id" not in second
    # The pool reuses the connection: both calls came from one client port.
    assert first["peer"] == second["peer"]


# --- TLS -------------------------------------------------------------------


def _openssl(*args: str) -> None:
    subprocess.run(["openssl", *args], check=True, capture_output=True)


@pytest.fixture(scope="module")
def certs(tmp_path_factory) -> dict:
    d = tmp_path_factory.mktemp("tls")
    p = {k: str(d / k) for k in ("ca.key", "ca.pem", "srv.key", "srv.csr", "srv.pem", "cli.key", "cli.csr", "cli.pem", "ext")}
    _openssl("req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes", "-keyout", p["ca.key"],
             "-out", p["ca.pem"], "-days", "1", "-subj", "/CN=errsvc test CA")
    with open(p["ext"], "w") as f:
        f.write("subjectAltName=IP:127.0.0.1\n")
    for who in ("srv", "cli"):
        _openssl("req", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes", "-keyout", p[who + ".key"],
                 "-out", p[who + ".csr"], "-subj", "/CN=" + who)
        _openssl("x509", "-req", "-in", p[who + ".csr"], "-CA", p["ca.pem"], "-CAkey", p["ca.key"], "-CAcreateserial",
                 "-out", p[who + ".pem"], "-days", "1", "-extfile", p["ext"])
    return p


@pytest.fixture
def mtls_fake(certs) -> Iterator[tuple]:
    handler = type("H", (_Handler,), {"seen": [], "body": b"{}"})
    srv = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    ctx.load_cert_chain(certs["srv.pem"], certs["srv.key"])
    ctx.load_verify_locations(certs["ca.pem"])
    ctx.verify_mode = ssl.CERT_REQUIRED
    srv.socket = ctx.wrap_socket(srv.socket, server_side=True)
    t = threading.Thread(target=srv.serve_forever, daemon=True)
    t.start()
    yield srv, handler
    srv.shutdown()
    srv.server_close()


def test_rest_mutual_tls(certs, mtls_fake):
    srv, handler = mtls_fake
    base = "https://127.0.0.1:%d" % srv.server_address[1]
    with ErrsvcClient("127.0.0.1:1", base, ca_file=certs["ca.pem"], cert_file=certs["cli.pem"], key_file=certs["cli.key"]) as c:
        assert c.translate_rest(RATE_LIMITED) == pb.TranslateResponse()
    # Without the CA the server is not trusted; without the client cert it refuses.
    with ErrsvcClient("127.0.0.1:1", base) as c:
        with pytest.raises(TransportError):
            c.translate_rest(RATE_LIMITED)
    with ErrsvcClient("127.0.0.1:1", base, ca_file=certs["ca.pem"]) as c:
        with pytest.raises(TransportError):
            c.translate_rest(RATE_LIMITED)


def test_tls_file_errors_are_usage_errors(tmp_path):
    with pytest.raises(UsageError):
        ErrsvcClient("127.0.0.1:1", "https://127.0.0.1:1", ca_file=str(tmp_path / "missing.pem"))
    with pytest.raises(UsageError):
        ErrsvcClient("127.0.0.1:1", cert_file="x.pem")


# --- gRPC metadata and the asyncio client, against a fake servicer --------


class _Echo(pb_grpc.TranslationServiceServicer):
    def Translate(self, request, context):  # noqa: N802
        md = dict(context.invocation_metadata())
        if request.labby_error.kind == "fail":
            context.abort(grpc.StatusCode.INVALID_ARGUMENT, "bad")
        return pb.TranslateResponse(labby_error={"kind": request.labby_error.kind, "message": md.get("x-tenant", "") + "|" + md.get("x-request-id", "")})

    def TranslateStream(self, request_iterator, context):  # noqa: N802
        for r in request_iterator:
            yield pb.TranslateResponse(labby_error={"kind": r.labby_error.kind})


@pytest.fixture(scope="module")
def grpc_fake() -> Iterator[str]:
    srv = grpc.server(futures.ThreadPoolExecutor(max_workers=4))
    pb_grpc.add_TranslationServiceServicer_to_server(_Echo(), srv)
    port = srv.add_insecure_port("127.0.0.1:0")
    srv.start()
    yield "127.0.0.1:%d" % port
    srv.stop(None)


def test_grpc_metadata(grpc_fake):
    with ErrsvcClient(grpc_fake, metadata=[("x-tenant", "a")]) as c:
        assert c.translate(RATE_LIMITED, metadata={"x-request-id": "r1"}).labby_error.message == "a|r1"
        assert c.translate(RATE_LIMITED).labby_error.message == "a|"
        with pytest.raises(ErrsvcError) as info:
            c.translate({"labby_error": {"kind": "fail"}})
        assert info.value.code == grpc.StatusCode.INVALID_ARGUMENT


def test_async_client(grpc_fake):
    async def main() -> None:
        async with AsyncErrsvcClient(grpc_fake, metadata={"x-tenant": "b"}) as c:
            resps = await asyncio.gather(*(c.translate(RATE_LIMITED, metadata={"x-request-id": str(i)}) for i in range(20)))
            assert [r.labby_error.message for r in resps] == ["b|%d" % i for i in range(20)]
            with pytest.raises(ErrsvcError) as info:
                await c.translate({"labby_error": {"kind": "fail"}})
            assert info.value.code == grpc.StatusCode.INVALID_ARGUMENT
            with pytest.raises(RequestError):
                await c.translate({"labby_error": {"kind": 5}})

            async def gen():
                for k in ("a", "b", "c"):
                    yield {"labby_error": {"kind": k}}

            kinds = [r.labby_error.kind async for r in c.translate_stream(gen())]
            assert kinds == ["a", "b", "c"]
            with pytest.raises(UsageError):
                await c.translate_rest(RATE_LIMITED)

    asyncio.run(main())


def test_async_transport_error():
    async def main() -> None:
        async with AsyncErrsvcClient("127.0.0.1:%d" % free_port(), "127.0.0.1:%d" % free_port(), max_attempts=1) as c:
            with pytest.raises(TransportError):
                await c.translate(RATE_LIMITED, timeout=2)
            with pytest.raises(TransportError):
                await c.translate_rest(RATE_LIMITED, timeout=2)

    asyncio.run(main())
