"""Every golden vector against the live errsvc, over gRPC (unary, batch and
stream) and REST."""

from __future__ import annotations

import json
from typing import Any, Dict

import grpc
import pytest
from google.protobuf import any_pb2, json_format, message, symbol_database

from errsvc_client._open_json import route_unknown
from errsvc_client import ErrsvcError, field_violations, pb
from conftest import BAD_VECTORS, MIN_VECTORS, OK_VECTORS, VECTORS, ids

_symbols = symbol_database.Default()


def canonical(msg: message.Message) -> message.Message:
    """A copy of msg whose google.protobuf.Any values are re-packed
    deterministically, so == compares what they hold, not the byte order
    the server's encoder chose for their maps."""
    out = type(msg)()
    out.CopyFrom(msg)
    _canonicalize(out)
    return out


def _canonicalize(msg: message.Message) -> None:
    if msg.DESCRIPTOR.full_name == "google.protobuf.Any":
        inner = _symbols.GetSymbol(msg.TypeName())()
        msg.Unpack(inner)
        _canonicalize(inner)
        msg.Pack(inner, deterministic=True)
        return
    for field, value in msg.ListFields():
        if field.type != field.TYPE_MESSAGE:
            continue
        if field.message_type.GetOptions().map_entry:
            if field.message_type.fields_by_name["value"].type == field.TYPE_MESSAGE:
                for v in value.values():
                    _canonicalize(v)
        elif field.is_repeated:
            for v in value:
                _canonicalize(v)
        else:
            _canonicalize(value)


def expected(v: Dict[str, Any]) -> pb.TranslateResponse:
    # ErrorInfo and RetryInfo inside the Any details resolve through the
    # default pool: googleapis-common-protos' error_details_pb2 is imported
    # by errsvc_client.
    return json_format.ParseDict(v["response"], pb.TranslateResponse())


def assert_response(v: Dict[str, Any], got: pb.TranslateResponse) -> None:
    want = expected(v)
    if canonical(got) != canonical(want):
        got_json = json_format.MessageToDict(got, preserving_proto_field_name=True)
        pytest.fail(
            "response differs from the vector\nwant: %s\n got: %s"
            % (json.dumps(v["response"], sort_keys=True), json.dumps(got_json, sort_keys=True))
        )


def assert_item_error(v: Dict[str, Any], got: pb.TranslateResponse) -> None:
    assert got.HasField("error"), "want an item error naming %r, got %s" % (v["error"]["field"], got)
    assert got.error.code == grpc.StatusCode.INVALID_ARGUMENT.value[0]
    assert v["error"]["field"] in [fv.field for fv in field_violations(got.error)]
    assert got == pb.TranslateResponse(error=got.error), "an item with an error has other fields set"


def check_item(v: Dict[str, Any], got: pb.TranslateResponse) -> None:
    if "error" in v:
        assert_item_error(v, got)
    else:
        assert not got.HasField("error"), got.error
        assert_response(v, got)


def test_enough_vectors():
    assert len(VECTORS) >= MIN_VECTORS
    assert BAD_VECTORS, "no malformed vectors"


@pytest.mark.parametrize("v", OK_VECTORS, ids=ids(OK_VECTORS))
def test_translate(client, v):
    assert_response(v, client.translate(v["request"]))


@pytest.mark.parametrize("v", BAD_VECTORS, ids=ids(BAD_VECTORS))
def test_translate_malformed(client, v):
    with pytest.raises(ErrsvcError) as info:
        client.translate(v["request"])
    assert info.value.code == grpc.StatusCode.INVALID_ARGUMENT
    assert v["error"]["field"] in info.value.fields


BATCH_SIZE = 100


def test_translate_batch(client):
    # In batches of BATCH_SIZE: a server bounds the items of one batch.
    for start in range(0, len(VECTORS), BATCH_SIZE):
        chunk = VECTORS[start : start + BATCH_SIZE]
        resps = client.translate_batch([v["request"] for v in chunk])
        assert len(resps) == len(chunk)
        for v, got in zip(chunk, resps):
            check_item(v, got)


def test_translate_all(client):
    # Every vector over one stream: more than a stream may send at once, so
    # a live server refuses some over its rate and translate_all sends them
    # again.
    resps = client.translate_all(v["request"] for v in VECTORS)
    assert len(resps) == len(VECTORS)
    for v, got in zip(VECTORS, resps):
        check_item(v, got)


def test_translate_stream(client):
    some = VECTORS[:20]
    resps = list(client.translate_stream(v["request"] for v in some))
    assert len(resps) == len(some)
    for v, got in zip(some, resps):
        check_item(v, got)


@pytest.mark.parametrize("v", OK_VECTORS, ids=ids(OK_VECTORS))
def test_translate_rest(client, v):
    # The REST body is the vector's JSON exactly (key order aside)...
    body = client.translate_rest_json(v["request"])
    if body != v["response"]:
        # ...up to the encoding of the Any details; the message must match.
        # (REST writes additional fields as members of their object.)
        assert_response(v, json_format.ParseDict(route_unknown(body, pb.TranslateResponse.DESCRIPTOR), pb.TranslateResponse()))


@pytest.mark.parametrize("v", BAD_VECTORS, ids=ids(BAD_VECTORS))
def test_translate_rest_malformed(client, v):
    with pytest.raises(ErrsvcError) as info:
        client.translate_rest(v["request"])
    assert info.value.http_status == 400
    assert info.value.code == grpc.StatusCode.INVALID_ARGUMENT
    assert v["error"]["field"] in info.value.fields


def test_typed_request(client):
    req = pb.TranslateRequest()
    req.labby_error.kind = "rate_limited"
    req.labby_error.message = "slow down"
    resp = client.translate(req)
    assert resp.labby_error.kind == "rate_limited"
    assert canonical(client.translate_rest(req)) == canonical(resp)


def test_list_vocabularies(client):
    resp = client.list_vocabularies()
    names = {voc.name for voc in resp.vocabularies}
    assert "LabbyKind" in names, names
    kinds = next(voc for voc in resp.vocabularies if voc.name == "LabbyKind")
    assert any(t.term == "rate_limited" for t in kinds.terms)


def test_async_client_every_vector(client):
    """Every vector through the asyncio client, gRPC and REST, 16 at a time."""
    import asyncio

    from conftest import _server_addrs
    from errsvc_client import AsyncErrsvcClient

    grpc_addr, http_addr = _server_addrs()

    async def main() -> None:
        sem = asyncio.Semaphore(16)
        async with AsyncErrsvcClient(grpc_addr, http_addr) as c:

            async def one(v):
                async with sem:
                    if "error" in v:
                        with pytest.raises(ErrsvcError) as info:
                            await c.translate(v["request"])
                        assert v["error"]["field"] in info.value.fields
                        with pytest.raises(ErrsvcError) as info:
                            await c.translate_rest(v["request"])
                        assert info.value.http_status == 400
                    else:
                        assert_response(v, await c.translate(v["request"]))
                        assert_response(v, await c.translate_rest(v["request"]))

            await asyncio.gather(*(one(v) for v in VECTORS))
            assert len((await c.list_vocabularies()).vocabularies) > 5

    asyncio.run(main())
