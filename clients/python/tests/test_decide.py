"""The decision helpers on every golden vector's response and every hand-made
case of clients/testdata/decision-cases.json; no server needed. The records
go to $ERRSVC_DECISIONS_DIR/python.json for clients/test.sh to compare with
the Go and TypeScript SDKs'."""

from __future__ import annotations

import json
import os
import pathlib
from typing import Any, Dict, List, Tuple

import grpc
import pytest
from google.protobuf import json_format
from google.rpc import error_details_pb2
from grpc_status import rpc_status

import errsvc_client
from errsvc_client import (
    DEFAULT_MAX_WAIT,
    AgentErrorCode,
    ErrorClass,
    TranslatedError,
    decide,
    is_retryable,
    pb,
    retry_after,
    same_arguments_safe,
    should_reauthenticate,
    to_error,
    to_status,
    vocabulary_pb2,
    options_pb2,
    wire,
)
from conftest import OK_VECTORS, golden_dir


def load_cases() -> List[Tuple[str, pb.TranslateResponse]]:
    out = [(v["name"], json_format.ParseDict(v["response"], pb.TranslateResponse())) for v in OK_VECTORS]
    path = golden_dir().parent.parent / "clients" / "testdata" / "decision-cases.json"
    for c in json.loads(path.read_text())["cases"]:
        out.append(("case." + c["name"], json_format.ParseDict(c["response"], pb.TranslateResponse())))
    return out


CASES = load_cases()
BY_NAME = dict(CASES)


def ms(seconds: Any) -> Any:
    return None if seconds is None else seconds * 1000.0


def record(resp: pb.TranslateResponse) -> Dict[str, Any]:
    r: Dict[str, Any] = {
        "retryable": is_retryable(resp),
        "retry_after_ms": ms(retry_after(resp)),
        "retry_after_ms_cap_10s": ms(retry_after(resp, max_wait=10)),
        "retry_after_ms_uncapped": ms(retry_after(resp, max_wait=None)),
        "reauthenticate": should_reauthenticate(resp),
        "same_arguments_safe": same_arguments_safe(resp),
        "same_arguments_safe_idempotent": same_arguments_safe(resp, idempotent=True),
        "error": None,
    }
    err = to_error(resp)
    if err is not None:
        r["error"] = {
            "code": err.code().value[0],
            "message": err.details(),
            "details": [d.type_url.rsplit("/", 1)[-1] for d in err.status.details],
        }
    return r


def test_enough_cases():
    assert len(CASES) > 500


def test_records_written():
    out = {name: record(resp) for name, resp in CASES}
    d = os.environ.get("ERRSVC_DECISIONS_DIR")
    if d:
        sdk = os.environ.get("ERRSVC_DECISIONS_SDK", "python")
        pathlib.Path(d, sdk + ".json").write_text(json.dumps({"sdk": sdk, "cases": out}, indent=1))


HALTED = {"permanent", "auth_required", "context_overflow", "auth"}


@pytest.mark.parametrize("name,resp", CASES, ids=[c[0] for c in CASES])
def test_properties(name, resp):
    """Properties that follow from the contracts, whatever the precedence."""
    cls = getattr(resp.classification, "class")
    retryable = is_retryable(resp)
    if retryable:
        assert cls not in HALTED
        assert not resp.HasField("error")
    wait = retry_after(resp, max_wait=None)
    assert (wait is not None) == retryable
    if wait is not None:
        assert wait >= 0
        assert retry_after(resp, max_wait=wait) == wait
        if wait > 0:
            assert retry_after(resp, max_wait=wait - 1e-6) is None
    assert retry_after(resp, max_wait=DEFAULT_MAX_WAIT) in (None, wait)
    reauth = should_reauthenticate(resp)
    assert not (reauth and retryable)
    if cls == "auth_required":
        assert reauth
    if same_arguments_safe(resp):
        assert same_arguments_safe(resp, idempotent=True)
    if resp.labby_error.recovery.same_arguments in ("never", "discouraged"):
        assert not same_arguments_safe(resp, idempotent=True)
    check_error(resp)


def check_error(resp: pb.TranslateResponse) -> None:
    err = to_error(resp)
    if not resp.HasField("grpc_status") or resp.grpc_status.code == 0:
        assert err is None
        return
    assert isinstance(err, grpc.RpcError) and isinstance(err, TranslatedError)
    want = resp.grpc_status.code if resp.grpc_status.code <= 16 else grpc.StatusCode.UNKNOWN.value[0]
    assert err.code().value[0] == want
    assert err.details() == resp.grpc_status.message
    # grpcio-status reads it like an error a stub raised: the google.rpc.Status comes back.
    back = rpc_status.from_call(err)
    assert back is not None and list(back.details) == list(resp.grpc_status.details)
    assert back.message == resp.grpc_status.message
    st = to_status(resp)
    assert st is not None and st.code.value[0] == want
    with pytest.raises(grpc.RpcError):
        raise err


BEHAVIOUR = {
    "provider.openai-429-rpm-retry-after": (True, 1.0, False, True),
    "labby.retry_after.rate_limited": (True, 2.5, False, True),
    "provider.openai-429-insufficient-quota": (False, None, False, False),
    "provider.generic-429-body-text-go-duration": (True, None, False, True),
    "rule.timeout_not_idempotent": (False, None, False, False),
    "rule.caller_recovery_wins": (False, None, False, False),
    "agent.code.NOT_AUTHENTICATED": (False, None, True, False),
    "rule.auth_alias": (False, None, True, False),
    "agent.code.NOT_AUTHORIZED": (False, None, False, False),
    "rule.targets_subset": (True, 0.0, False, False),
    "rule.rate_limited_fraction_ms": (True, 0.021, False, True),
    "case.auth_alias_class": (False, None, True, False),
    "case.agent_only_yes": (True, 0.0, False, True),
    "case.wait_at_cap_exactly": (True, 10.0, False, False),
    "case.item_error": (False, None, False, False),
}


@pytest.mark.parametrize("name", sorted(BEHAVIOUR))
def test_behaviour(name):
    d = decide(BY_NAME[name])
    assert (d.retryable, d.retry_after, d.reauthenticate, d.same_arguments_safe) == BEHAVIOUR[name]


def test_retry_info_detail_unpacks():
    err = to_error(BY_NAME["case.retry_info_only"])
    (ri,) = err.unpack(error_details_pb2.RetryInfo)
    assert ri.retry_delay.ToMilliseconds() == 2500
    assert retry_after(BY_NAME["case.retry_info_only"]) == 2.5


def test_wire_constants_match_descriptors():
    """The generated constants equal the (wire) options Python's own
    descriptors carry, vocabulary by vocabulary."""
    for name, enum in vocabulary_pb2.DESCRIPTOR.enum_types_by_name.items():
        wires = {v.GetOptions().Extensions[options_pb2.wire] for v in enum.values if v.number != 0}
        assert getattr(wire, name).ALL == wires, name
        assert wire.VOCABULARIES[name] == wires
    assert set(wire.VOCABULARIES) == set(vocabulary_pb2.DESCRIPTOR.enum_types_by_name)


def test_wire_constants_read():
    resp = BY_NAME["agent.code.RATE_LIMITED"]
    assert resp.agent_error.code == AgentErrorCode.RATE_LIMITED == errsvc_client.wire.AgentErrorCode.RATE_LIMITED
    assert getattr(resp.classification, "class") == ErrorClass.TRANSIENT
