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

class KindRow(_message.Message):
    __slots__ = ("origin", "action", "same_arguments", "relax_with_hints", "side_effects", "http_status", "agent_code", "agent_reason", "grpc_code", "passes_retry_after", "code_mode_keeps", "note")
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
    def __init__(self, origin: _Optional[str] = ..., action: _Optional[str] = ..., same_arguments: _Optional[str] = ..., relax_with_hints: _Optional[bool] = ..., side_effects: _Optional[str] = ..., http_status: _Optional[int] = ..., agent_code: _Optional[str] = ..., agent_reason: _Optional[str] = ..., grpc_code: _Optional[str] = ..., passes_retry_after: _Optional[bool] = ..., code_mode_keeps: _Optional[bool] = ..., note: _Optional[str] = ..., **kwargs) -> None: ...

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
    __slots__ = ("labby_kind", "origin", "action", "same_arguments", "agent_code", "http_status", "grpc_code")
    LABBY_KIND_FIELD_NUMBER: _ClassVar[int]
    ORIGIN_FIELD_NUMBER: _ClassVar[int]
    ACTION_FIELD_NUMBER: _ClassVar[int]
    SAME_ARGUMENTS_FIELD_NUMBER: _ClassVar[int]
    AGENT_CODE_FIELD_NUMBER: _ClassVar[int]
    HTTP_STATUS_FIELD_NUMBER: _ClassVar[int]
    GRPC_CODE_FIELD_NUMBER: _ClassVar[int]
    labby_kind: str
    origin: str
    action: str
    same_arguments: str
    agent_code: str
    http_status: int
    grpc_code: str
    def __init__(self, labby_kind: _Optional[str] = ..., origin: _Optional[str] = ..., action: _Optional[str] = ..., same_arguments: _Optional[str] = ..., agent_code: _Optional[str] = ..., http_status: _Optional[int] = ..., grpc_code: _Optional[str] = ...) -> None: ...

class OriginRow(_message.Message):
    __slots__ = ("side_effects", "code_mode_origin")
    SIDE_EFFECTS_FIELD_NUMBER: _ClassVar[int]
    CODE_MODE_ORIGIN_FIELD_NUMBER: _ClassVar[int]
    side_effects: str
    code_mode_origin: str
    def __init__(self, side_effects: _Optional[str] = ..., code_mode_origin: _Optional[str] = ...) -> None: ...

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
