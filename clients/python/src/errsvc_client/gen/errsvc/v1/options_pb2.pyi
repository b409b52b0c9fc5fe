from google.protobuf import descriptor_pb2 as _descriptor_pb2
from google.protobuf.internal import containers as _containers
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Iterable as _Iterable, Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional

DESCRIPTOR: _descriptor.FileDescriptor
WIRE_FIELD_NUMBER: _ClassVar[int]
wire: _descriptor.FieldDescriptor
MEANING_FIELD_NUMBER: _ClassVar[int]
meaning: _descriptor.FieldDescriptor
KIND_FIELD_NUMBER: _ClassVar[int]
kind: _descriptor.FieldDescriptor
AGENT_CODE_FIELD_NUMBER: _ClassVar[int]
agent_code: _descriptor.FieldDescriptor
CLASSIFIED_CODE_FIELD_NUMBER: _ClassVar[int]
classified_code: _descriptor.FieldDescriptor
CLASS_FIELD_NUMBER: _ClassVar[int]
class: _descriptor.FieldDescriptor
ORIGIN_FIELD_NUMBER: _ClassVar[int]
origin: _descriptor.FieldDescriptor
ACTION_FIELD_NUMBER: _ClassVar[int]
action: _descriptor.FieldDescriptor
RETRY_FIELD_NUMBER: _ClassVar[int]
retry: _descriptor.FieldDescriptor
GRPC_CODE_FIELD_NUMBER: _ClassVar[int]
grpc_code: _descriptor.FieldDescriptor
JSONRPC_CODE_FIELD_NUMBER: _ClassVar[int]
jsonrpc_code: _descriptor.FieldDescriptor
GATEWAY_ANSWER_FIELD_NUMBER: _ClassVar[int]
gateway_answer: _descriptor.FieldDescriptor

class KindRow(_message.Message):
    __slots__ = ("origin", "action", "same_arguments", "relax_with_hints", "side_effects", "http_status", "agent_code", "agent_reason", "grpc_code", "passes_retry_after", "code_mode_keeps", "note", "limit_kind")
    ORIGIN_FIELD_NUMBER: _ClassVar[int]
    ACTION_FIELD_NUMBER: _ClassVar[int]
    SAME_ARGUMENTS_FIELD_NUMBER: _ClassVar[int]
    RELAX_WITH_HINTS_FIELD_NUMBER: _ClassVar[int]
    SIDE_EFFECTS_FIELD_NUMBER: _ClassVar[int]
    HTTP_STATUS_FIELD_NUMBER: _ClassVar[int]
    CLASS_FIELD_NUMBER: _ClassVar[int]
    AGENT_CODE_FIELD_NUMBER: _ClassVar[int]
    AGENT_REASON_FIELD_NUMBER: _ClassVar[int]
    GRPC_CODE_FIELD_NUMBER: _ClassVar[int]
    PASSES_RETRY_AFTER_FIELD_NUMBER: _ClassVar[int]
    CODE_MODE_KEEPS_FIELD_NUMBER: _ClassVar[int]
    NOTE_FIELD_NUMBER: _ClassVar[int]
    LIMIT_KIND_FIELD_NUMBER: _ClassVar[int]
    origin: str
    action: str
    same_arguments: str
    relax_with_hints: bool
    side_effects: str
    http_status: int
    agent_code: str
    agent_reason: str
    grpc_code: str
    passes_retry_after: bool
    code_mode_keeps: bool
    note: str
    limit_kind: str
    def __init__(self, origin: _Optional[str] = ..., action: _Optional[str] = ..., same_arguments: _Optional[str] = ..., relax_with_hints: _Optional[bool] = ..., side_effects: _Optional[str] = ..., http_status: _Optional[int] = ..., agent_code: _Optional[str] = ..., agent_reason: _Optional[str] = ..., grpc_code: _Optional[str] = ..., passes_retry_after: _Optional[bool] = ..., code_mode_keeps: _Optional[bool] = ..., note: _Optional[str] = ..., limit_kind: _Optional[str] = ..., **kwargs) -> None: ...

class AgentCodeRow(_message.Message):
    __slots__ = ("retry", "retries", "details", "cacheable", "labby_kind", "labby_kind_by_reason", "retry_by_reason", "retry_if_idempotent", "retry_if_transient", "message", "http_status", "grpc_code")
    class LabbyKindByReasonEntry(_message.Message):
        __slots__ = ("key", "value")
        KEY_FIELD_NUMBER: _ClassVar[int]
        VALUE_FIELD_NUMBER: _ClassVar[int]
        key: str
        value: str
        def __init__(self, key: _Optional[str] = ..., value: _Optional[str] = ...) -> None: ...
    class RetryByReasonEntry(_message.Message):
        __slots__ = ("key", "value")
        KEY_FIELD_NUMBER: _ClassVar[int]
        VALUE_FIELD_NUMBER: _ClassVar[int]
        key: str
        value: str
        def __init__(self, key: _Optional[str] = ..., value: _Optional[str] = ...) -> None: ...
    RETRY_FIELD_NUMBER: _ClassVar[int]
    RETRIES_FIELD_NUMBER: _ClassVar[int]
    DETAILS_FIELD_NUMBER: _ClassVar[int]
    CACHEABLE_FIELD_NUMBER: _ClassVar[int]
    LABBY_KIND_FIELD_NUMBER: _ClassVar[int]
    LABBY_KIND_BY_REASON_FIELD_NUMBER: _ClassVar[int]
    RETRY_BY_REASON_FIELD_NUMBER: _ClassVar[int]
    RETRY_IF_IDEMPOTENT_FIELD_NUMBER: _ClassVar[int]
    RETRY_IF_TRANSIENT_FIELD_NUMBER: _ClassVar[int]
    MESSAGE_FIELD_NUMBER: _ClassVar[int]
    CLASS_FIELD_NUMBER: _ClassVar[int]
    HTTP_STATUS_FIELD_NUMBER: _ClassVar[int]
    GRPC_CODE_FIELD_NUMBER: _ClassVar[int]
    retry: str
    retries: _containers.RepeatedScalarFieldContainer[str]
    details: _containers.RepeatedScalarFieldContainer[str]
    cacheable: bool
    labby_kind: str
    labby_kind_by_reason: _containers.ScalarMap[str, str]
    retry_by_reason: _containers.ScalarMap[str, str]
    retry_if_idempotent: str
    retry_if_transient: str
    message: str
    http_status: int
    grpc_code: str
    def __init__(self, retry: _Optional[str] = ..., retries: _Optional[_Iterable[str]] = ..., details: _Optional[_Iterable[str]] = ..., cacheable: _Optional[bool] = ..., labby_kind: _Optional[str] = ..., labby_kind_by_reason: _Optional[_Mapping[str, str]] = ..., retry_by_reason: _Optional[_Mapping[str, str]] = ..., retry_if_idempotent: _Optional[str] = ..., retry_if_transient: _Optional[str] = ..., message: _Optional[str] = ..., http_status: _Optional[int] = ..., grpc_code: _Optional[str] = ..., **kwargs) -> None: ...

class ClassifiedCodeRow(_message.Message):
    __slots__ = ("producer", "class_source", "origin", "side_effects", "same_arguments")
    PRODUCER_FIELD_NUMBER: _ClassVar[int]
    CLASS_FIELD_NUMBER: _ClassVar[int]
    CLASS_SOURCE_FIELD_NUMBER: _ClassVar[int]
    ORIGIN_FIELD_NUMBER: _ClassVar[int]
    SIDE_EFFECTS_FIELD_NUMBER: _ClassVar[int]
    SAME_ARGUMENTS_FIELD_NUMBER: _ClassVar[int]
    producer: str
    class_source: str
    origin: str
    side_effects: str
    same_arguments: str
    def __init__(self, producer: _Optional[str] = ..., class_source: _Optional[str] = ..., origin: _Optional[str] = ..., side_effects: _Optional[str] = ..., same_arguments: _Optional[str] = ..., **kwargs) -> None: ...

class ClassRow(_message.Message):
    __slots__ = ("labby_kind", "origin", "action", "same_arguments", "agent_code", "http_status", "grpc_code", "route", "same_provider_alternatives_dead")
    LABBY_KIND_FIELD_NUMBER: _ClassVar[int]
    ORIGIN_FIELD_NUMBER: _ClassVar[int]
    ACTION_FIELD_NUMBER: _ClassVar[int]
    SAME_ARGUMENTS_FIELD_NUMBER: _ClassVar[int]
    AGENT_CODE_FIELD_NUMBER: _ClassVar[int]
    HTTP_STATUS_FIELD_NUMBER: _ClassVar[int]
    GRPC_CODE_FIELD_NUMBER: _ClassVar[int]
    ROUTE_FIELD_NUMBER: _ClassVar[int]
    SAME_PROVIDER_ALTERNATIVES_DEAD_FIELD_NUMBER: _ClassVar[int]
    labby_kind: str
    origin: str
    action: str
    same_arguments: str
    agent_code: str
    http_status: int
    grpc_code: str
    route: str
    same_provider_alternatives_dead: bool
    def __init__(self, labby_kind: _Optional[str] = ..., origin: _Optional[str] = ..., action: _Optional[str] = ..., same_arguments: _Optional[str] = ..., agent_code: _Optional[str] = ..., http_status: _Optional[int] = ..., grpc_code: _Optional[str] = ..., route: _Optional[str] = ..., same_provider_alternatives_dead: _Optional[bool] = ...) -> None: ...

class OriginRow(_message.Message):
    __slots__ = ("side_effects", "code_mode_origin", "counts_toward_health", "log_level", "handling_note", "jsonrpc_code")
    SIDE_EFFECTS_FIELD_NUMBER: _ClassVar[int]
    CODE_MODE_ORIGIN_FIELD_NUMBER: _ClassVar[int]
    COUNTS_TOWARD_HEALTH_FIELD_NUMBER: _ClassVar[int]
    LOG_LEVEL_FIELD_NUMBER: _ClassVar[int]
    HANDLING_NOTE_FIELD_NUMBER: _ClassVar[int]
    JSONRPC_CODE_FIELD_NUMBER: _ClassVar[int]
    side_effects: str
    code_mode_origin: str
    counts_toward_health: bool
    log_level: str
    handling_note: str
    jsonrpc_code: int
    def __init__(self, side_effects: _Optional[str] = ..., code_mode_origin: _Optional[str] = ..., counts_toward_health: _Optional[bool] = ..., log_level: _Optional[str] = ..., handling_note: _Optional[str] = ..., jsonrpc_code: _Optional[int] = ...) -> None: ...

class ActionRow(_message.Message):
    __slots__ = ("agent_retry", "guidance")
    AGENT_RETRY_FIELD_NUMBER: _ClassVar[int]
    GUIDANCE_FIELD_NUMBER: _ClassVar[int]
    agent_retry: str
    guidance: str
    def __init__(self, agent_retry: _Optional[str] = ..., guidance: _Optional[str] = ...) -> None: ...

class RetryRow(_message.Message):
    __slots__ = ("action", "same_arguments", "advice")
    ACTION_FIELD_NUMBER: _ClassVar[int]
    SAME_ARGUMENTS_FIELD_NUMBER: _ClassVar[int]
    ADVICE_FIELD_NUMBER: _ClassVar[int]
    action: str
    same_arguments: str
    advice: str
    def __init__(self, action: _Optional[str] = ..., same_arguments: _Optional[str] = ..., advice: _Optional[str] = ...) -> None: ...

class GrpcCodeRow(_message.Message):
    __slots__ = ("code", "labby_kind", "permanent_reasons", "permanent_kind", "note")
    CODE_FIELD_NUMBER: _ClassVar[int]
    LABBY_KIND_FIELD_NUMBER: _ClassVar[int]
    CLASS_FIELD_NUMBER: _ClassVar[int]
    PERMANENT_REASONS_FIELD_NUMBER: _ClassVar[int]
    PERMANENT_KIND_FIELD_NUMBER: _ClassVar[int]
    NOTE_FIELD_NUMBER: _ClassVar[int]
    code: int
    labby_kind: str
    permanent_reasons: _containers.RepeatedScalarFieldContainer[str]
    permanent_kind: str
    note: str
    def __init__(self, code: _Optional[int] = ..., labby_kind: _Optional[str] = ..., permanent_reasons: _Optional[_Iterable[str]] = ..., permanent_kind: _Optional[str] = ..., note: _Optional[str] = ..., **kwargs) -> None: ...

class JsonRpcCodeRow(_message.Message):
    __slots__ = ("code", "last_code", "name", "labby_kind", "http_status", "retired", "note")
    CODE_FIELD_NUMBER: _ClassVar[int]
    LAST_CODE_FIELD_NUMBER: _ClassVar[int]
    NAME_FIELD_NUMBER: _ClassVar[int]
    LABBY_KIND_FIELD_NUMBER: _ClassVar[int]
    CLASS_FIELD_NUMBER: _ClassVar[int]
    HTTP_STATUS_FIELD_NUMBER: _ClassVar[int]
    RETIRED_FIELD_NUMBER: _ClassVar[int]
    NOTE_FIELD_NUMBER: _ClassVar[int]
    code: int
    last_code: int
    name: str
    labby_kind: str
    http_status: int
    retired: bool
    note: str
    def __init__(self, code: _Optional[int] = ..., last_code: _Optional[int] = ..., name: _Optional[str] = ..., labby_kind: _Optional[str] = ..., http_status: _Optional[int] = ..., retired: _Optional[bool] = ..., note: _Optional[str] = ..., **kwargs) -> None: ...

class GatewayAnswerRow(_message.Message):
    __slots__ = ("agent_codes", "kinds", "min_http_status", "openai_status", "openai_type", "openai_code", "anthropic_status", "anthropic_type")
    CLASS_FIELD_NUMBER: _ClassVar[int]
    AGENT_CODES_FIELD_NUMBER: _ClassVar[int]
    KINDS_FIELD_NUMBER: _ClassVar[int]
    MIN_HTTP_STATUS_FIELD_NUMBER: _ClassVar[int]
    OPENAI_STATUS_FIELD_NUMBER: _ClassVar[int]
    OPENAI_TYPE_FIELD_NUMBER: _ClassVar[int]
    OPENAI_CODE_FIELD_NUMBER: _ClassVar[int]
    ANTHROPIC_STATUS_FIELD_NUMBER: _ClassVar[int]
    ANTHROPIC_TYPE_FIELD_NUMBER: _ClassVar[int]
    agent_codes: _containers.RepeatedScalarFieldContainer[str]
    kinds: _containers.RepeatedScalarFieldContainer[str]
    min_http_status: int
    openai_status: int
    openai_type: str
    openai_code: str
    anthropic_status: int
    anthropic_type: str
    def __init__(self, agent_codes: _Optional[_Iterable[str]] = ..., kinds: _Optional[_Iterable[str]] = ..., min_http_status: _Optional[int] = ..., openai_status: _Optional[int] = ..., openai_type: _Optional[str] = ..., openai_code: _Optional[str] = ..., anthropic_status: _Optional[int] = ..., anthropic_type: _Optional[str] = ..., **kwargs) -> None: ...
