"""limit_of on every golden vector's response and on hand-made answers; no
server needed."""

from __future__ import annotations

import datetime

from google.protobuf import json_format

from errsvc_client import LimitDecision, is_retryable, limit_of, pb
from conftest import OK_VECTORS


def parse(d: dict) -> pb.TranslateResponse:
    return json_format.ParseDict(d, pb.TranslateResponse())


def test_limit_of_agrees_with_is_retryable_on_golden_answers() -> None:
    n = 0
    for v in OK_VECTORS:
        resp = parse(v["response"])
        lim = limit_of(resp)
        if lim is None:
            continue
        n += 1
        assert (lim.decision == LimitDecision.STOP_AND_TELL_A_PERSON) == (not is_retryable(resp)), v["name"]
        assert lim.scope, v["name"]
    assert n > 0


def test_limit_target_and_labby_detail() -> None:
    lim = limit_of(parse({"classification": {"class": "transient"}, "limit": {
        "kind": "rate", "dimension": "tokens", "scope": "organization", "reset_at": "2025-06-01T12:06:00Z",
        "remaining": "0", "limit": "30000", "decision": "wait_until_reset"}}))
    assert lim is not None
    assert (lim.kind, lim.dimension, lim.scope, lim.remaining, lim.limit, lim.decision) == ("rate", "tokens", "organization", 0, 30000, "wait_until_reset")
    assert lim.reset_at == datetime.datetime(2025, 6, 1, 12, 6, tzinfo=datetime.timezone.utc)

    d = limit_of(parse({"classification": {"class": "transient"}, "labby_error": {"kind": "rate_limited", "detail": {
        "limit": {"kind": "rate", "scope": "model", "reset_at": "2025-06-01T12:00:17Z", "limit": 250000}}}}))
    assert d is not None
    assert (d.kind, d.scope, d.limit, d.remaining, d.decision) == ("rate", "model", 250000, None, "wait_until_reset")
    assert d.reset_at == datetime.datetime(2025, 6, 1, 12, 0, 17, tzinfo=datetime.timezone.utc)


def test_derived_decisions() -> None:
    def mk(cls: str, kind: str, decision: str = "") -> object:
        return limit_of(parse({"classification": {"class": cls}, "limit": {"kind": kind, "decision": decision}}))

    assert mk("permanent", "spend").decision == "stop_and_tell_a_person"  # type: ignore[attr-defined]
    assert mk("transient", "capacity").decision == "fail_over"  # type: ignore[attr-defined]
    assert mk("transient", "concurrency", "a-newer-decision").decision == "reduce_concurrency"  # type: ignore[attr-defined]
    u = mk("transient", "burst")
    assert (u.kind, u.scope, u.decision) == ("burst", "unknown", "wait_until_reset")  # type: ignore[attr-defined]
    assert limit_of(parse({"classification": {"class": "permanent"}})) is None
