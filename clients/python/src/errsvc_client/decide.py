"""Acting on an answer: what a caller does next with a translated error.

The helpers read only structured fields of a ``TranslateResponse``, never
message text or ``http_status``, and behave exactly as the Go and TypeScript
SDKs' do: clients/README.md ("Acting on an answer") is their one definition,
and every SDK checks it on every golden vector.

>>> if is_retryable(resp):
...     wait = retry_after(resp)          # None: past the cap, fail fast
"""

from __future__ import annotations

import dataclasses
import math
from typing import Any, Optional, Sequence, Tuple

import grpc
from google.protobuf import json_format
from google.rpc import error_details_pb2, status_pb2
from grpc_status import rpc_status

from errsvc_client.gen import wire
from errsvc_client.gen.errsvc.v1 import translation_service_pb2 as pb

__all__ = [
    "DEFAULT_MAX_WAIT",
    "Decision",
    "Limit",
    "limit_of",
    "TranslatedError",
    "decide",
    "is_retryable",
    "retry_after",
    "should_reauthenticate",
    "same_arguments_safe",
    "to_error",
    "to_status",
]

#: The longest wait, in seconds, :func:`retry_after` accepts unless told
#: otherwise: past it a caller fails fast rather than sleeping
#: (openai-python refuses to retry a wait over 120 s for the same reason).
DEFAULT_MAX_WAIT = 120.0

#: Spellings the Error Class Contract reads as another class (``auth``,
#: from before the rename, is ``auth_required``).
_CLASS_ALIASES = {"auth": wire.ErrorClass.AUTH_REQUIRED}

_CODES_BY_NUMBER = {c.value[0]: c for c in grpc.StatusCode}


@dataclasses.dataclass(frozen=True)
class Decision:
    """Every helper's answer for one response (see :func:`decide`)."""

    retryable: bool
    #: Seconds to wait, or None: do not make the call again.
    retry_after: Optional[float]
    reauthenticate: bool
    same_arguments_safe: bool


def decide(resp: pb.TranslateResponse, *, max_wait: Optional[float] = DEFAULT_MAX_WAIT, idempotent: bool = False) -> Decision:
    """Runs every helper on ``resp``."""
    return Decision(
        retryable=is_retryable(resp),
        retry_after=retry_after(resp, max_wait=max_wait),
        reauthenticate=should_reauthenticate(resp),
        same_arguments_safe=same_arguments_safe(resp, idempotent=idempotent),
    )


def _known_class(resp: pb.TranslateResponse) -> Tuple[str, bool]:
    c = getattr(resp.classification, "class")
    c = _CLASS_ALIASES.get(c, c)
    return c, c in wire.ErrorClass.ALL


def _labby_recovery(resp: pb.TranslateResponse) -> Optional[Tuple[str, str, str]]:
    for le in (resp.labby_error, resp.code_mode_error):
        if le.recovery.action in wire.RecoveryAction.ALL:
            return le.recovery.action, le.recovery.same_arguments, le.side_effects
    return None


def _recovery(resp: pb.TranslateResponse) -> Optional[Tuple[str, str, str]]:
    rec = _labby_recovery(resp)
    if rec is not None:
        return rec
    row = wire.AGENT_RETRY_RECOVERY.get(resp.agent_error.retry)
    if row is not None:
        return row[0], row[1], wire.SideEffects.UNKNOWN
    return None


def is_retryable(resp: pb.TranslateResponse) -> bool:
    """Whether the same call may succeed if made again, possibly after a
    wait: a known class other than transient says no; otherwise the
    recovery advice decides (``retry_later``), and without advice a
    transient class does."""
    if resp.HasField("error"):
        return False
    cls, known = _known_class(resp)
    if known and cls != wire.ErrorClass.TRANSIENT:
        return False
    rec = _recovery(resp)
    if rec is not None:
        return rec[0] == wire.RecoveryAction.RETRY_LATER
    return cls == wire.ErrorClass.TRANSIENT


def _stated_wait_ms(resp: pb.TranslateResponse) -> float:
    """The wait the answer states, in milliseconds, from its most precise
    field; 0.0 when none is stated."""
    for le in (resp.labby_error, resp.code_mode_error):
        if le.recovery.HasField("retry_after_ms"):
            return float(le.recovery.retry_after_ms)
    for d in resp.grpc_status.details:
        if d.Is(error_details_pb2.RetryInfo.DESCRIPTOR):
            ri = error_details_pb2.RetryInfo()
            if d.Unpack(ri) and ri.HasField("retry_delay"):
                ms = ri.retry_delay.seconds * 1000.0 + ri.retry_delay.nanos / 1e6
                return max(ms, 0.0)
    details = resp.agent_error.details
    if "retryAfterMs" in details.fields:
        v = details.fields["retryAfterMs"]
        if v.WhichOneof("kind") == "number_value" and 0 <= v.number_value < math.inf:
            return float(v.number_value)
    if resp.classification.HasField("retry_after_secs"):
        return resp.classification.retry_after_secs * 1000.0
    return 0.0


def retry_after(resp: pb.TranslateResponse, *, max_wait: Optional[float] = DEFAULT_MAX_WAIT) -> Optional[float]:
    """Seconds to wait before making the call again, or None when it should
    not be made again: the answer is not retryable, or the wait it states is
    longer than ``max_wait`` seconds (fail fast; None means no cap). 0.0 when
    the answer states no wait: use your own backoff."""
    if not is_retryable(resp):
        return None
    wait = _stated_wait_ms(resp) / 1000.0
    if max_wait is not None and wait > max_wait:
        return None
    return wait


def should_reauthenticate(resp: pb.TranslateResponse) -> bool:
    """Whether a credential must be re-established before the call can
    succeed: a known class decides (``auth_required``); else the Labby
    recovery action (``reauthenticate``); else the Agent Surface code
    (``NOT_AUTHENTICATED``)."""
    if resp.HasField("error"):
        return False
    cls, known = _known_class(resp)
    if known:
        return cls == wire.ErrorClass.AUTH_REQUIRED
    rec = _labby_recovery(resp)
    if rec is not None:
        return rec[0] == wire.RecoveryAction.REAUTHENTICATE
    return resp.agent_error.code == wire.AgentErrorCode.NOT_AUTHENTICATED


def same_arguments_safe(resp: pb.TranslateResponse, *, idempotent: bool = False) -> bool:
    """Whether repeating the exact call is safe: ``same_arguments`` is
    ``safe``, or ``conditional`` and either the call is idempotent (you say)
    or the envelope says nothing happened (``side_effects: none_expected``).
    It says nothing about whether a repeat helps: ask :func:`is_retryable`."""
    if resp.HasField("error"):
        return False
    rec = _recovery(resp)
    if rec is None:
        return False
    _, same, side = rec
    if same == wire.SameArguments.SAFE:
        return True
    if same == wire.SameArguments.CONDITIONAL:
        return idempotent or side == wire.SideEffects.NONE_EXPECTED
    return False


class TranslatedError(grpc.RpcError, grpc.Call):  # type: ignore[misc]
    """The ``grpc_status`` of a translation as a raisable gRPC error.

    It reads like the error a grpcio stub raises: ``code()``, ``details()``
    and ``trailing_metadata()`` (with ``grpc-status-details-bin``), so
    ``grpc_status.rpc_status.from_call(err)`` returns the ``google.rpc.Status``
    again; ``status`` holds it directly. A server handler can pass
    :func:`to_status`'s result to ``context.abort_with_status``.
    """

    def __init__(self, status: status_pb2.Status) -> None:
        self.status = status
        self._code = _CODES_BY_NUMBER.get(status.code, grpc.StatusCode.UNKNOWN)
        super().__init__(f"{self._code.name}: {status.message}")

    # grpc.Call / grpc.RpcContext
    def code(self) -> grpc.StatusCode:
        return self._code

    def details(self) -> str:
        return self.status.message

    def trailing_metadata(self) -> Sequence[Tuple[str, Any]]:
        st = status_pb2.Status()
        st.CopyFrom(self.status)
        st.code = self._code.value[0]
        return (("grpc-status-details-bin", st.SerializeToString()),)

    def initial_metadata(self) -> Sequence[Tuple[str, Any]]:
        return ()

    def is_active(self) -> bool:
        return False

    def time_remaining(self) -> Optional[float]:
        return None

    def cancel(self) -> bool:
        return False

    def add_callback(self, callback: Any) -> bool:
        return False

    def unpack(self, message_type: Any) -> list:
        """Every detail of this type, unpacked (ErrorInfo, RetryInfo, ...)."""
        out = []
        for d in self.status.details:
            if d.Is(message_type.DESCRIPTOR):
                m = message_type()
                d.Unpack(m)
                out.append(m)
        return out

    def __repr__(self) -> str:
        return "TranslatedError(%s)" % json_format.MessageToJson(self.status, indent=None)


def to_error(resp: pb.TranslateResponse) -> Optional[TranslatedError]:
    """The response's ``grpc_status`` as a raisable :class:`TranslatedError`
    with its details, or None when it has none or its code is OK. A code
    outside gRPC's becomes UNKNOWN."""
    if not resp.HasField("grpc_status") or resp.grpc_status.code == 0:
        return None
    return TranslatedError(resp.grpc_status)


def to_status(resp: pb.TranslateResponse) -> Optional[grpc.Status]:
    """The response's ``grpc_status`` as a ``grpc.Status`` for a server's
    ``context.abort_with_status`` (via grpcio-status' ``rpc_status``)."""
    err = to_error(resp)
    if err is None:
        return None
    st = status_pb2.Status()
    st.CopyFrom(err.status)
    st.code = err.code().value[0]
    return rpc_status.to_status(st)


@dataclasses.dataclass(frozen=True)
class Limit:
    """The limit facet of an answer (see :func:`limit_of`): which limit the
    error hit, whose, until when, how much is left, and what to do about it.
    Terms are open strings."""

    #: rate, quota, spend, concurrency, capacity, or a newer term.
    kind: str
    #: requests, tokens, input_tokens, output_tokens, ...; "" when unsaid.
    dimension: str
    #: key, project, organization, account, model, region, or unknown.
    scope: str
    #: When the limit resets (an aware UTC datetime), or None when unsaid.
    reset_at: Optional[Any]
    remaining: Optional[int]
    limit: Optional[int]
    #: wait_until_reset, reduce_concurrency, fail_over or stop_and_tell_a_person.
    decision: str


def limit_of(resp: pb.TranslateResponse) -> Optional[Limit]:
    """The answer's limit facet, or None when the error is not a limit: the
    ``limit`` target, else the Labby envelope's ``detail.limit``. A missing or
    unknown decision is derived as the service derives it: no retry helps
    (:func:`is_retryable`) → stop_and_tell_a_person (a spend cap is never
    retried); capacity → fail_over; concurrency → reduce_concurrency; else
    wait_until_reset.

    >>> lim = limit_of(resp)
    >>> if lim and lim.decision == LimitDecision.FAIL_OVER: ...
    """
    import datetime

    if resp.HasField("error"):
        return None
    if resp.HasField("limit") and resp.limit.kind:
        lim = resp.limit
        out = dict(
            kind=lim.kind,
            dimension=lim.dimension,
            scope=lim.scope,
            reset_at=lim.reset_at.ToDatetime(tzinfo=datetime.timezone.utc) if lim.HasField("reset_at") else None,
            remaining=lim.remaining if lim.HasField("remaining") else None,
            limit=lim.limit if lim.HasField("limit") else None,
            decision=lim.decision,
        )
    else:
        fields = resp.labby_error.detail.fields
        if "limit" not in fields or fields["limit"].WhichOneof("kind") != "struct_value":
            return None
        d = fields["limit"].struct_value.fields

        def text(k: str) -> str:
            return d[k].string_value if k in d and d[k].WhichOneof("kind") == "string_value" else ""

        def count(k: str) -> Optional[int]:
            if k in d and d[k].WhichOneof("kind") == "number_value":
                n = d[k].number_value
                if n >= 0 and n < 2**63 and float(n).is_integer():
                    return int(n)
            return None

        if not text("kind"):
            return None
        reset = None
        if text("reset_at"):
            try:
                reset = datetime.datetime.fromisoformat(text("reset_at").replace("Z", "+00:00"))
            except ValueError:
                reset = None
        out = dict(kind=text("kind"), dimension=text("dimension"), scope=text("scope"), reset_at=reset,
                   remaining=count("remaining"), limit=count("limit"), decision=text("decision"))
    if not out["scope"]:
        out["scope"] = wire.LimitScope.UNKNOWN
    if out["decision"] not in wire.LimitDecision.ALL:
        if not is_retryable(resp):
            out["decision"] = wire.LimitDecision.STOP_AND_TELL_A_PERSON
        elif out["kind"] == wire.LimitKind.CAPACITY:
            out["decision"] = wire.LimitDecision.FAIL_OVER
        elif out["kind"] == wire.LimitKind.CONCURRENCY:
            out["decision"] = wire.LimitDecision.REDUCE_CONCURRENCY
        else:
            out["decision"] = wire.LimitDecision.WAIT_UNTIL_RESET
    return Limit(**out)
