import datetime

from google.protobuf import struct_pb2 as _struct_pb2
from google.protobuf import timestamp_pb2 as _timestamp_pb2
from google.protobuf.internal import containers as _containers
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Iterable as _Iterable, Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class LabbyError(_message.Message):
    __slots__ = ("contract_version", "kind", "message", "origin", "recovery", "side_effects", "service", "action", "tool", "upstream", "command", "prompt", "resource", "cause", "original_kind", "safety", "evidence", "agent_error", "classification", "detail", "required_scopes", "valid", "hint", "additional_fields")
    CONTRACT_VERSION_FIELD_NUMBER: _ClassVar[int]
    KIND_FIELD_NUMBER: _ClassVar[int]
    MESSAGE_FIELD_NUMBER: _ClassVar[int]
    ORIGIN_FIELD_NUMBER: _ClassVar[int]
    RECOVERY_FIELD_NUMBER: _ClassVar[int]
    SIDE_EFFECTS_FIELD_NUMBER: _ClassVar[int]
    SERVICE_FIELD_NUMBER: _ClassVar[int]
    ACTION_FIELD_NUMBER: _ClassVar[int]
    TOOL_FIELD_NUMBER: _ClassVar[int]
    UPSTREAM_FIELD_NUMBER: _ClassVar[int]
    COMMAND_FIELD_NUMBER: _ClassVar[int]
    PROMPT_FIELD_NUMBER: _ClassVar[int]
    RESOURCE_FIELD_NUMBER: _ClassVar[int]
    CAUSE_FIELD_NUMBER: _ClassVar[int]
    ORIGINAL_KIND_FIELD_NUMBER: _ClassVar[int]
    SAFETY_FIELD_NUMBER: _ClassVar[int]
    EVIDENCE_FIELD_NUMBER: _ClassVar[int]
    AGENT_ERROR_FIELD_NUMBER: _ClassVar[int]
    CLASSIFICATION_FIELD_NUMBER: _ClassVar[int]
    DETAIL_FIELD_NUMBER: _ClassVar[int]
    REQUIRED_SCOPES_FIELD_NUMBER: _ClassVar[int]
    VALID_FIELD_NUMBER: _ClassVar[int]
    HINT_FIELD_NUMBER: _ClassVar[int]
    ADDITIONAL_FIELDS_FIELD_NUMBER: _ClassVar[int]
    contract_version: int
    kind: str
    message: str
    origin: str
    recovery: Recovery
    side_effects: str
    service: str
    action: str
    tool: str
    upstream: str
    command: str
    prompt: str
    resource: str
    cause: str
    original_kind: str
    safety: Safety
    evidence: Evidence
    agent_error: AgentError
    classification: Classification
    detail: _struct_pb2.Struct
    required_scopes: _containers.RepeatedScalarFieldContainer[str]
    valid: _containers.RepeatedScalarFieldContainer[str]
    hint: str
    additional_fields: _struct_pb2.Struct
    def __init__(self, contract_version: _Optional[int] = ..., kind: _Optional[str] = ..., message: _Optional[str] = ..., origin: _Optional[str] = ..., recovery: _Optional[_Union[Recovery, _Mapping]] = ..., side_effects: _Optional[str] = ..., service: _Optional[str] = ..., action: _Optional[str] = ..., tool: _Optional[str] = ..., upstream: _Optional[str] = ..., command: _Optional[str] = ..., prompt: _Optional[str] = ..., resource: _Optional[str] = ..., cause: _Optional[str] = ..., original_kind: _Optional[str] = ..., safety: _Optional[_Union[Safety, _Mapping]] = ..., evidence: _Optional[_Union[Evidence, _Mapping]] = ..., agent_error: _Optional[_Union[AgentError, _Mapping]] = ..., classification: _Optional[_Union[Classification, _Mapping]] = ..., detail: _Optional[_Union[_struct_pb2.Struct, _Mapping]] = ..., required_scopes: _Optional[_Iterable[str]] = ..., valid: _Optional[_Iterable[str]] = ..., hint: _Optional[str] = ..., additional_fields: _Optional[_Union[_struct_pb2.Struct, _Mapping]] = ...) -> None: ...

class Recovery(_message.Message):
    __slots__ = ("action", "same_arguments", "guidance", "retry_after_ms", "additional_fields")
    ACTION_FIELD_NUMBER: _ClassVar[int]
    SAME_ARGUMENTS_FIELD_NUMBER: _ClassVar[int]
    GUIDANCE_FIELD_NUMBER: _ClassVar[int]
    RETRY_AFTER_MS_FIELD_NUMBER: _ClassVar[int]
    ADDITIONAL_FIELDS_FIELD_NUMBER: _ClassVar[int]
    action: str
    same_arguments: str
    guidance: str
    retry_after_ms: int
    additional_fields: _struct_pb2.Struct
    def __init__(self, action: _Optional[str] = ..., same_arguments: _Optional[str] = ..., guidance: _Optional[str] = ..., retry_after_ms: _Optional[int] = ..., additional_fields: _Optional[_Union[_struct_pb2.Struct, _Mapping]] = ...) -> None: ...

class Safety(_message.Message):
    __slots__ = ("read_only_hint", "destructive_hint", "idempotent_hint", "open_world_hint", "additional_fields")
    READ_ONLY_HINT_FIELD_NUMBER: _ClassVar[int]
    DESTRUCTIVE_HINT_FIELD_NUMBER: _ClassVar[int]
    IDEMPOTENT_HINT_FIELD_NUMBER: _ClassVar[int]
    OPEN_WORLD_HINT_FIELD_NUMBER: _ClassVar[int]
    ADDITIONAL_FIELDS_FIELD_NUMBER: _ClassVar[int]
    read_only_hint: bool
    destructive_hint: bool
    idempotent_hint: bool
    open_world_hint: bool
    additional_fields: _struct_pb2.Struct
    def __init__(self, read_only_hint: _Optional[bool] = ..., destructive_hint: _Optional[bool] = ..., idempotent_hint: _Optional[bool] = ..., open_world_hint: _Optional[bool] = ..., additional_fields: _Optional[_Union[_struct_pb2.Struct, _Mapping]] = ...) -> None: ...

class Evidence(_message.Message):
    __slots__ = ("content", "structured_content", "parsed_error", "omitted_content_blocks", "additional_fields")
    CONTENT_FIELD_NUMBER: _ClassVar[int]
    STRUCTURED_CONTENT_FIELD_NUMBER: _ClassVar[int]
    PARSED_ERROR_FIELD_NUMBER: _ClassVar[int]
    OMITTED_CONTENT_BLOCKS_FIELD_NUMBER: _ClassVar[int]
    ADDITIONAL_FIELDS_FIELD_NUMBER: _ClassVar[int]
    content: _containers.RepeatedCompositeFieldContainer[EvidenceBlock]
    structured_content: _struct_pb2.Value
    parsed_error: _struct_pb2.Value
    omitted_content_blocks: int
    additional_fields: _struct_pb2.Struct
    def __init__(self, content: _Optional[_Iterable[_Union[EvidenceBlock, _Mapping]]] = ..., structured_content: _Optional[_Union[_struct_pb2.Value, _Mapping]] = ..., parsed_error: _Optional[_Union[_struct_pb2.Value, _Mapping]] = ..., omitted_content_blocks: _Optional[int] = ..., additional_fields: _Optional[_Union[_struct_pb2.Struct, _Mapping]] = ...) -> None: ...

class EvidenceBlock(_message.Message):
    __slots__ = ("type", "text", "mime_type", "encoded_bytes", "data_omitted", "content_omitted", "uri", "additional_fields")
    TYPE_FIELD_NUMBER: _ClassVar[int]
    TEXT_FIELD_NUMBER: _ClassVar[int]
    MIME_TYPE_FIELD_NUMBER: _ClassVar[int]
    ENCODED_BYTES_FIELD_NUMBER: _ClassVar[int]
    DATA_OMITTED_FIELD_NUMBER: _ClassVar[int]
    CONTENT_OMITTED_FIELD_NUMBER: _ClassVar[int]
    URI_FIELD_NUMBER: _ClassVar[int]
    ADDITIONAL_FIELDS_FIELD_NUMBER: _ClassVar[int]
    type: str
    text: str
    mime_type: str
    encoded_bytes: int
    data_omitted: bool
    content_omitted: bool
    uri: str
    additional_fields: _struct_pb2.Struct
    def __init__(self, type: _Optional[str] = ..., text: _Optional[str] = ..., mime_type: _Optional[str] = ..., encoded_bytes: _Optional[int] = ..., data_omitted: _Optional[bool] = ..., content_omitted: _Optional[bool] = ..., uri: _Optional[str] = ..., additional_fields: _Optional[_Union[_struct_pb2.Struct, _Mapping]] = ...) -> None: ...

class AgentError(_message.Message):
    __slots__ = ("code", "message", "retry", "details", "additional_fields")
    CODE_FIELD_NUMBER: _ClassVar[int]
    MESSAGE_FIELD_NUMBER: _ClassVar[int]
    RETRY_FIELD_NUMBER: _ClassVar[int]
    DETAILS_FIELD_NUMBER: _ClassVar[int]
    ADDITIONAL_FIELDS_FIELD_NUMBER: _ClassVar[int]
    code: str
    message: str
    retry: str
    details: _struct_pb2.Struct
    additional_fields: _struct_pb2.Struct
    def __init__(self, code: _Optional[str] = ..., message: _Optional[str] = ..., retry: _Optional[str] = ..., details: _Optional[_Union[_struct_pb2.Struct, _Mapping]] = ..., additional_fields: _Optional[_Union[_struct_pb2.Struct, _Mapping]] = ...) -> None: ...

class Classification(_message.Message):
    __slots__ = ("retry_after_secs", "recognized", "additional_fields")
    CLASS_FIELD_NUMBER: _ClassVar[int]
    RETRY_AFTER_SECS_FIELD_NUMBER: _ClassVar[int]
    RECOGNIZED_FIELD_NUMBER: _ClassVar[int]
    ADDITIONAL_FIELDS_FIELD_NUMBER: _ClassVar[int]
    retry_after_secs: int
    recognized: bool
    additional_fields: _struct_pb2.Struct
    def __init__(self, retry_after_secs: _Optional[int] = ..., recognized: _Optional[bool] = ..., additional_fields: _Optional[_Union[_struct_pb2.Struct, _Mapping]] = ..., **kwargs) -> None: ...

class ClassifiedError(_message.Message):
    __slots__ = ("code", "message", "retry_after_secs", "detail", "provider_code", "status", "additional_fields")
    CODE_FIELD_NUMBER: _ClassVar[int]
    MESSAGE_FIELD_NUMBER: _ClassVar[int]
    CLASS_FIELD_NUMBER: _ClassVar[int]
    RETRY_AFTER_SECS_FIELD_NUMBER: _ClassVar[int]
    DETAIL_FIELD_NUMBER: _ClassVar[int]
    PROVIDER_CODE_FIELD_NUMBER: _ClassVar[int]
    STATUS_FIELD_NUMBER: _ClassVar[int]
    ADDITIONAL_FIELDS_FIELD_NUMBER: _ClassVar[int]
    code: str
    message: str
    retry_after_secs: float
    detail: _struct_pb2.Struct
    provider_code: str
    status: int
    additional_fields: _struct_pb2.Struct
    def __init__(self, code: _Optional[str] = ..., message: _Optional[str] = ..., retry_after_secs: _Optional[float] = ..., detail: _Optional[_Union[_struct_pb2.Struct, _Mapping]] = ..., provider_code: _Optional[str] = ..., status: _Optional[int] = ..., additional_fields: _Optional[_Union[_struct_pb2.Struct, _Mapping]] = ..., **kwargs) -> None: ...

class ProviderResponse(_message.Message):
    __slots__ = ("provider", "status", "headers", "body", "received_at", "base_url", "additional_fields")
    class HeadersEntry(_message.Message):
        __slots__ = ("key", "value")
        KEY_FIELD_NUMBER: _ClassVar[int]
        VALUE_FIELD_NUMBER: _ClassVar[int]
        key: str
        value: str
        def __init__(self, key: _Optional[str] = ..., value: _Optional[str] = ...) -> None: ...
    PROVIDER_FIELD_NUMBER: _ClassVar[int]
    STATUS_FIELD_NUMBER: _ClassVar[int]
    HEADERS_FIELD_NUMBER: _ClassVar[int]
    BODY_FIELD_NUMBER: _ClassVar[int]
    RECEIVED_AT_FIELD_NUMBER: _ClassVar[int]
    BASE_URL_FIELD_NUMBER: _ClassVar[int]
    ADDITIONAL_FIELDS_FIELD_NUMBER: _ClassVar[int]
    provider: str
    status: int
    headers: _containers.ScalarMap[str, str]
    body: str
    received_at: _timestamp_pb2.Timestamp
    base_url: str
    additional_fields: _struct_pb2.Struct
    def __init__(self, provider: _Optional[str] = ..., status: _Optional[int] = ..., headers: _Optional[_Mapping[str, str]] = ..., body: _Optional[str] = ..., received_at: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., base_url: _Optional[str] = ..., additional_fields: _Optional[_Union[_struct_pb2.Struct, _Mapping]] = ...) -> None: ...

class McpToolResult(_message.Message):
    __slots__ = ("tool", "is_error", "content", "structured_content", "annotations", "additional_fields")
    TOOL_FIELD_NUMBER: _ClassVar[int]
    IS_ERROR_FIELD_NUMBER: _ClassVar[int]
    CONTENT_FIELD_NUMBER: _ClassVar[int]
    STRUCTURED_CONTENT_FIELD_NUMBER: _ClassVar[int]
    ANNOTATIONS_FIELD_NUMBER: _ClassVar[int]
    ADDITIONAL_FIELDS_FIELD_NUMBER: _ClassVar[int]
    tool: str
    is_error: bool
    content: _containers.RepeatedCompositeFieldContainer[_struct_pb2.Struct]
    structured_content: _struct_pb2.Value
    annotations: Safety
    additional_fields: _struct_pb2.Struct
    def __init__(self, tool: _Optional[str] = ..., is_error: _Optional[bool] = ..., content: _Optional[_Iterable[_Union[_struct_pb2.Struct, _Mapping]]] = ..., structured_content: _Optional[_Union[_struct_pb2.Value, _Mapping]] = ..., annotations: _Optional[_Union[Safety, _Mapping]] = ..., additional_fields: _Optional[_Union[_struct_pb2.Struct, _Mapping]] = ...) -> None: ...

class GrpcStatusError(_message.Message):
    __slots__ = ("code", "message", "details", "status_bin", "additional_fields")
    CODE_FIELD_NUMBER: _ClassVar[int]
    MESSAGE_FIELD_NUMBER: _ClassVar[int]
    DETAILS_FIELD_NUMBER: _ClassVar[int]
    STATUS_BIN_FIELD_NUMBER: _ClassVar[int]
    ADDITIONAL_FIELDS_FIELD_NUMBER: _ClassVar[int]
    code: int
    message: str
    details: _containers.RepeatedCompositeFieldContainer[_struct_pb2.Struct]
    status_bin: bytes
    additional_fields: _struct_pb2.Struct
    def __init__(self, code: _Optional[int] = ..., message: _Optional[str] = ..., details: _Optional[_Iterable[_Union[_struct_pb2.Struct, _Mapping]]] = ..., status_bin: _Optional[bytes] = ..., additional_fields: _Optional[_Union[_struct_pb2.Struct, _Mapping]] = ...) -> None: ...

class JsonRpcError(_message.Message):
    __slots__ = ("code", "message", "data", "additional_fields")
    CODE_FIELD_NUMBER: _ClassVar[int]
    MESSAGE_FIELD_NUMBER: _ClassVar[int]
    DATA_FIELD_NUMBER: _ClassVar[int]
    ADDITIONAL_FIELDS_FIELD_NUMBER: _ClassVar[int]
    code: int
    message: str
    data: _struct_pb2.Value
    additional_fields: _struct_pb2.Struct
    def __init__(self, code: _Optional[int] = ..., message: _Optional[str] = ..., data: _Optional[_Union[_struct_pb2.Value, _Mapping]] = ..., additional_fields: _Optional[_Union[_struct_pb2.Struct, _Mapping]] = ...) -> None: ...

class HttpError(_message.Message):
    __slots__ = ("status", "headers", "body", "received_at", "additional_fields")
    class HeadersEntry(_message.Message):
        __slots__ = ("key", "value")
        KEY_FIELD_NUMBER: _ClassVar[int]
        VALUE_FIELD_NUMBER: _ClassVar[int]
        key: str
        value: str
        def __init__(self, key: _Optional[str] = ..., value: _Optional[str] = ...) -> None: ...
    STATUS_FIELD_NUMBER: _ClassVar[int]
    HEADERS_FIELD_NUMBER: _ClassVar[int]
    BODY_FIELD_NUMBER: _ClassVar[int]
    RECEIVED_AT_FIELD_NUMBER: _ClassVar[int]
    ADDITIONAL_FIELDS_FIELD_NUMBER: _ClassVar[int]
    status: int
    headers: _containers.ScalarMap[str, str]
    body: str
    received_at: _timestamp_pb2.Timestamp
    additional_fields: _struct_pb2.Struct
    def __init__(self, status: _Optional[int] = ..., headers: _Optional[_Mapping[str, str]] = ..., body: _Optional[str] = ..., received_at: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., additional_fields: _Optional[_Union[_struct_pb2.Struct, _Mapping]] = ...) -> None: ...

class Handling(_message.Message):
    __slots__ = ("route", "backoff_floor_secs", "same_provider_alternatives_dead", "counts_toward_health", "cacheable", "log_level", "limit_decision")
    ROUTE_FIELD_NUMBER: _ClassVar[int]
    BACKOFF_FLOOR_SECS_FIELD_NUMBER: _ClassVar[int]
    SAME_PROVIDER_ALTERNATIVES_DEAD_FIELD_NUMBER: _ClassVar[int]
    COUNTS_TOWARD_HEALTH_FIELD_NUMBER: _ClassVar[int]
    CACHEABLE_FIELD_NUMBER: _ClassVar[int]
    LOG_LEVEL_FIELD_NUMBER: _ClassVar[int]
    LIMIT_DECISION_FIELD_NUMBER: _ClassVar[int]
    route: str
    backoff_floor_secs: int
    same_provider_alternatives_dead: bool
    counts_toward_health: bool
    cacheable: bool
    log_level: str
    limit_decision: str
    def __init__(self, route: _Optional[str] = ..., backoff_floor_secs: _Optional[int] = ..., same_provider_alternatives_dead: _Optional[bool] = ..., counts_toward_health: _Optional[bool] = ..., cacheable: _Optional[bool] = ..., log_level: _Optional[str] = ..., limit_decision: _Optional[str] = ...) -> None: ...

class Limit(_message.Message):
    __slots__ = ("kind", "dimension", "scope", "reset_at", "remaining", "limit", "decision", "quota_id", "windows")
    KIND_FIELD_NUMBER: _ClassVar[int]
    DIMENSION_FIELD_NUMBER: _ClassVar[int]
    SCOPE_FIELD_NUMBER: _ClassVar[int]
    RESET_AT_FIELD_NUMBER: _ClassVar[int]
    REMAINING_FIELD_NUMBER: _ClassVar[int]
    LIMIT_FIELD_NUMBER: _ClassVar[int]
    DECISION_FIELD_NUMBER: _ClassVar[int]
    QUOTA_ID_FIELD_NUMBER: _ClassVar[int]
    WINDOWS_FIELD_NUMBER: _ClassVar[int]
    kind: str
    dimension: str
    scope: str
    reset_at: _timestamp_pb2.Timestamp
    remaining: int
    limit: int
    decision: str
    quota_id: str
    windows: _containers.RepeatedCompositeFieldContainer[LimitWindow]
    def __init__(self, kind: _Optional[str] = ..., dimension: _Optional[str] = ..., scope: _Optional[str] = ..., reset_at: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., remaining: _Optional[int] = ..., limit: _Optional[int] = ..., decision: _Optional[str] = ..., quota_id: _Optional[str] = ..., windows: _Optional[_Iterable[_Union[LimitWindow, _Mapping]]] = ...) -> None: ...

class LimitWindow(_message.Message):
    __slots__ = ("dimension", "remaining", "limit", "reset_at", "quota_id")
    DIMENSION_FIELD_NUMBER: _ClassVar[int]
    REMAINING_FIELD_NUMBER: _ClassVar[int]
    LIMIT_FIELD_NUMBER: _ClassVar[int]
    RESET_AT_FIELD_NUMBER: _ClassVar[int]
    QUOTA_ID_FIELD_NUMBER: _ClassVar[int]
    dimension: str
    remaining: int
    limit: int
    reset_at: _timestamp_pb2.Timestamp
    quota_id: str
    def __init__(self, dimension: _Optional[str] = ..., remaining: _Optional[int] = ..., limit: _Optional[int] = ..., reset_at: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., quota_id: _Optional[str] = ...) -> None: ...

class HttpAnswer(_message.Message):
    __slots__ = ("status", "headers", "body")
    class HeadersEntry(_message.Message):
        __slots__ = ("key", "value")
        KEY_FIELD_NUMBER: _ClassVar[int]
        VALUE_FIELD_NUMBER: _ClassVar[int]
        key: str
        value: str
        def __init__(self, key: _Optional[str] = ..., value: _Optional[str] = ...) -> None: ...
    STATUS_FIELD_NUMBER: _ClassVar[int]
    HEADERS_FIELD_NUMBER: _ClassVar[int]
    BODY_FIELD_NUMBER: _ClassVar[int]
    status: int
    headers: _containers.ScalarMap[str, str]
    body: _struct_pb2.Struct
    def __init__(self, status: _Optional[int] = ..., headers: _Optional[_Mapping[str, str]] = ..., body: _Optional[_Union[_struct_pb2.Struct, _Mapping]] = ...) -> None: ...

class Note(_message.Message):
    __slots__ = ("code", "message")
    CODE_FIELD_NUMBER: _ClassVar[int]
    MESSAGE_FIELD_NUMBER: _ClassVar[int]
    code: str
    message: str
    def __init__(self, code: _Optional[str] = ..., message: _Optional[str] = ...) -> None: ...
