from errsvc_client.gen.errsvc.v1 import errors_pb2 as _errors_pb2
from errsvc_client.gen.errsvc.v1 import options_pb2 as _options_pb2
from google.protobuf import struct_pb2 as _struct_pb2
from google.rpc import status_pb2 as _status_pb2
from google.protobuf.internal import containers as _containers
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Iterable as _Iterable, Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class TranslateRequest(_message.Message):
    __slots__ = ("labby_error", "agent_error", "classified_error", "provider_response", "mcp_tool_result", "grpc_status", "jsonrpc_error", "http_error", "targets", "context", "additional_fields")
    LABBY_ERROR_FIELD_NUMBER: _ClassVar[int]
    AGENT_ERROR_FIELD_NUMBER: _ClassVar[int]
    CLASSIFIED_ERROR_FIELD_NUMBER: _ClassVar[int]
    PROVIDER_RESPONSE_FIELD_NUMBER: _ClassVar[int]
    MCP_TOOL_RESULT_FIELD_NUMBER: _ClassVar[int]
    GRPC_STATUS_FIELD_NUMBER: _ClassVar[int]
    JSONRPC_ERROR_FIELD_NUMBER: _ClassVar[int]
    HTTP_ERROR_FIELD_NUMBER: _ClassVar[int]
    TARGETS_FIELD_NUMBER: _ClassVar[int]
    CONTEXT_FIELD_NUMBER: _ClassVar[int]
    ADDITIONAL_FIELDS_FIELD_NUMBER: _ClassVar[int]
    labby_error: _errors_pb2.LabbyError
    agent_error: _errors_pb2.AgentError
    classified_error: _errors_pb2.ClassifiedError
    provider_response: _errors_pb2.ProviderResponse
    mcp_tool_result: _errors_pb2.McpToolResult
    grpc_status: _errors_pb2.GrpcStatusError
    jsonrpc_error: _errors_pb2.JsonRpcError
    http_error: _errors_pb2.HttpError
    targets: _containers.RepeatedScalarFieldContainer[str]
    context: TranslateContext
    additional_fields: _struct_pb2.Struct
    def __init__(self, labby_error: _Optional[_Union[_errors_pb2.LabbyError, _Mapping]] = ..., agent_error: _Optional[_Union[_errors_pb2.AgentError, _Mapping]] = ..., classified_error: _Optional[_Union[_errors_pb2.ClassifiedError, _Mapping]] = ..., provider_response: _Optional[_Union[_errors_pb2.ProviderResponse, _Mapping]] = ..., mcp_tool_result: _Optional[_Union[_errors_pb2.McpToolResult, _Mapping]] = ..., grpc_status: _Optional[_Union[_errors_pb2.GrpcStatusError, _Mapping]] = ..., jsonrpc_error: _Optional[_Union[_errors_pb2.JsonRpcError, _Mapping]] = ..., http_error: _Optional[_Union[_errors_pb2.HttpError, _Mapping]] = ..., targets: _Optional[_Iterable[str]] = ..., context: _Optional[_Union[TranslateContext, _Mapping]] = ..., additional_fields: _Optional[_Union[_struct_pb2.Struct, _Mapping]] = ...) -> None: ...

class TranslateContext(_message.Message):
    __slots__ = ("service", "action", "tool", "upstream", "idempotent", "read_only", "additional_fields")
    SERVICE_FIELD_NUMBER: _ClassVar[int]
    ACTION_FIELD_NUMBER: _ClassVar[int]
    TOOL_FIELD_NUMBER: _ClassVar[int]
    UPSTREAM_FIELD_NUMBER: _ClassVar[int]
    IDEMPOTENT_FIELD_NUMBER: _ClassVar[int]
    READ_ONLY_FIELD_NUMBER: _ClassVar[int]
    ADDITIONAL_FIELDS_FIELD_NUMBER: _ClassVar[int]
    service: str
    action: str
    tool: str
    upstream: str
    idempotent: bool
    read_only: bool
    additional_fields: _struct_pb2.Struct
    def __init__(self, service: _Optional[str] = ..., action: _Optional[str] = ..., tool: _Optional[str] = ..., upstream: _Optional[str] = ..., idempotent: _Optional[bool] = ..., read_only: _Optional[bool] = ..., additional_fields: _Optional[_Union[_struct_pb2.Struct, _Mapping]] = ...) -> None: ...

class TranslateResponse(_message.Message):
    __slots__ = ("labby_error", "code_mode_error", "agent_error", "classification", "http_status", "grpc_status", "notes", "error", "handling", "http_headers", "grpc_metadata", "openai_error", "anthropic_error", "google_error", "jsonrpc_error", "limit")
    class HttpHeadersEntry(_message.Message):
        __slots__ = ("key", "value")
        KEY_FIELD_NUMBER: _ClassVar[int]
        VALUE_FIELD_NUMBER: _ClassVar[int]
        key: str
        value: str
        def __init__(self, key: _Optional[str] = ..., value: _Optional[str] = ...) -> None: ...
    class GrpcMetadataEntry(_message.Message):
        __slots__ = ("key", "value")
        KEY_FIELD_NUMBER: _ClassVar[int]
        VALUE_FIELD_NUMBER: _ClassVar[int]
        key: str
        value: str
        def __init__(self, key: _Optional[str] = ..., value: _Optional[str] = ...) -> None: ...
    LABBY_ERROR_FIELD_NUMBER: _ClassVar[int]
    CODE_MODE_ERROR_FIELD_NUMBER: _ClassVar[int]
    AGENT_ERROR_FIELD_NUMBER: _ClassVar[int]
    CLASSIFICATION_FIELD_NUMBER: _ClassVar[int]
    HTTP_STATUS_FIELD_NUMBER: _ClassVar[int]
    GRPC_STATUS_FIELD_NUMBER: _ClassVar[int]
    NOTES_FIELD_NUMBER: _ClassVar[int]
    ERROR_FIELD_NUMBER: _ClassVar[int]
    HANDLING_FIELD_NUMBER: _ClassVar[int]
    HTTP_HEADERS_FIELD_NUMBER: _ClassVar[int]
    GRPC_METADATA_FIELD_NUMBER: _ClassVar[int]
    OPENAI_ERROR_FIELD_NUMBER: _ClassVar[int]
    ANTHROPIC_ERROR_FIELD_NUMBER: _ClassVar[int]
    GOOGLE_ERROR_FIELD_NUMBER: _ClassVar[int]
    JSONRPC_ERROR_FIELD_NUMBER: _ClassVar[int]
    LIMIT_FIELD_NUMBER: _ClassVar[int]
    labby_error: _errors_pb2.LabbyError
    code_mode_error: _errors_pb2.LabbyError
    agent_error: _errors_pb2.AgentError
    classification: _errors_pb2.Classification
    http_status: int
    grpc_status: _status_pb2.Status
    notes: _containers.RepeatedCompositeFieldContainer[_errors_pb2.Note]
    error: _status_pb2.Status
    handling: _errors_pb2.Handling
    http_headers: _containers.ScalarMap[str, str]
    grpc_metadata: _containers.ScalarMap[str, str]
    openai_error: _errors_pb2.HttpAnswer
    anthropic_error: _errors_pb2.HttpAnswer
    google_error: _errors_pb2.HttpAnswer
    jsonrpc_error: _errors_pb2.JsonRpcError
    limit: _errors_pb2.Limit
    def __init__(self, labby_error: _Optional[_Union[_errors_pb2.LabbyError, _Mapping]] = ..., code_mode_error: _Optional[_Union[_errors_pb2.LabbyError, _Mapping]] = ..., agent_error: _Optional[_Union[_errors_pb2.AgentError, _Mapping]] = ..., classification: _Optional[_Union[_errors_pb2.Classification, _Mapping]] = ..., http_status: _Optional[int] = ..., grpc_status: _Optional[_Union[_status_pb2.Status, _Mapping]] = ..., notes: _Optional[_Iterable[_Union[_errors_pb2.Note, _Mapping]]] = ..., error: _Optional[_Union[_status_pb2.Status, _Mapping]] = ..., handling: _Optional[_Union[_errors_pb2.Handling, _Mapping]] = ..., http_headers: _Optional[_Mapping[str, str]] = ..., grpc_metadata: _Optional[_Mapping[str, str]] = ..., openai_error: _Optional[_Union[_errors_pb2.HttpAnswer, _Mapping]] = ..., anthropic_error: _Optional[_Union[_errors_pb2.HttpAnswer, _Mapping]] = ..., google_error: _Optional[_Union[_errors_pb2.HttpAnswer, _Mapping]] = ..., jsonrpc_error: _Optional[_Union[_errors_pb2.JsonRpcError, _Mapping]] = ..., limit: _Optional[_Union[_errors_pb2.Limit, _Mapping]] = ...) -> None: ...

class TranslateBatchRequest(_message.Message):
    __slots__ = ("requests", "additional_fields")
    REQUESTS_FIELD_NUMBER: _ClassVar[int]
    ADDITIONAL_FIELDS_FIELD_NUMBER: _ClassVar[int]
    requests: _containers.RepeatedCompositeFieldContainer[TranslateRequest]
    additional_fields: _struct_pb2.Struct
    def __init__(self, requests: _Optional[_Iterable[_Union[TranslateRequest, _Mapping]]] = ..., additional_fields: _Optional[_Union[_struct_pb2.Struct, _Mapping]] = ...) -> None: ...

class TranslateBatchResponse(_message.Message):
    __slots__ = ("responses",)
    RESPONSES_FIELD_NUMBER: _ClassVar[int]
    responses: _containers.RepeatedCompositeFieldContainer[TranslateResponse]
    def __init__(self, responses: _Optional[_Iterable[_Union[TranslateResponse, _Mapping]]] = ...) -> None: ...

class ListVocabulariesRequest(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...

class ListVocabulariesResponse(_message.Message):
    __slots__ = ("vocabularies",)
    VOCABULARIES_FIELD_NUMBER: _ClassVar[int]
    vocabularies: _containers.RepeatedCompositeFieldContainer[Vocabulary]
    def __init__(self, vocabularies: _Optional[_Iterable[_Union[Vocabulary, _Mapping]]] = ...) -> None: ...

class Vocabulary(_message.Message):
    __slots__ = ("name", "source", "terms")
    NAME_FIELD_NUMBER: _ClassVar[int]
    SOURCE_FIELD_NUMBER: _ClassVar[int]
    TERMS_FIELD_NUMBER: _ClassVar[int]
    name: str
    source: str
    terms: _containers.RepeatedCompositeFieldContainer[Term]
    def __init__(self, name: _Optional[str] = ..., source: _Optional[str] = ..., terms: _Optional[_Iterable[_Union[Term, _Mapping]]] = ...) -> None: ...

class Term(_message.Message):
    __slots__ = ("term", "enum_value", "meaning", "kind", "agent_code", "classified_code", "origin", "action", "retry", "grpc_code", "jsonrpc_code", "gateway_answer", "defined_by")
    TERM_FIELD_NUMBER: _ClassVar[int]
    ENUM_VALUE_FIELD_NUMBER: _ClassVar[int]
    MEANING_FIELD_NUMBER: _ClassVar[int]
    KIND_FIELD_NUMBER: _ClassVar[int]
    AGENT_CODE_FIELD_NUMBER: _ClassVar[int]
    CLASSIFIED_CODE_FIELD_NUMBER: _ClassVar[int]
    CLASS_FIELD_NUMBER: _ClassVar[int]
    ORIGIN_FIELD_NUMBER: _ClassVar[int]
    ACTION_FIELD_NUMBER: _ClassVar[int]
    RETRY_FIELD_NUMBER: _ClassVar[int]
    GRPC_CODE_FIELD_NUMBER: _ClassVar[int]
    JSONRPC_CODE_FIELD_NUMBER: _ClassVar[int]
    GATEWAY_ANSWER_FIELD_NUMBER: _ClassVar[int]
    DEFINED_BY_FIELD_NUMBER: _ClassVar[int]
    term: str
    enum_value: str
    meaning: str
    kind: _options_pb2.KindRow
    agent_code: _options_pb2.AgentCodeRow
    classified_code: _options_pb2.ClassifiedCodeRow
    origin: _options_pb2.OriginRow
    action: _options_pb2.ActionRow
    retry: _options_pb2.RetryRow
    grpc_code: _options_pb2.GrpcCodeRow
    jsonrpc_code: _options_pb2.JsonRpcCodeRow
    gateway_answer: _options_pb2.GatewayAnswerRow
    defined_by: str
    def __init__(self, term: _Optional[str] = ..., enum_value: _Optional[str] = ..., meaning: _Optional[str] = ..., kind: _Optional[_Union[_options_pb2.KindRow, _Mapping]] = ..., agent_code: _Optional[_Union[_options_pb2.AgentCodeRow, _Mapping]] = ..., classified_code: _Optional[_Union[_options_pb2.ClassifiedCodeRow, _Mapping]] = ..., origin: _Optional[_Union[_options_pb2.OriginRow, _Mapping]] = ..., action: _Optional[_Union[_options_pb2.ActionRow, _Mapping]] = ..., retry: _Optional[_Union[_options_pb2.RetryRow, _Mapping]] = ..., grpc_code: _Optional[_Union[_options_pb2.GrpcCodeRow, _Mapping]] = ..., jsonrpc_code: _Optional[_Union[_options_pb2.JsonRpcCodeRow, _Mapping]] = ..., gateway_answer: _Optional[_Union[_options_pb2.GatewayAnswerRow, _Mapping]] = ..., defined_by: _Optional[str] = ..., **kwargs) -> None: ...
