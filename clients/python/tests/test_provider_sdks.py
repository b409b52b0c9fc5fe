"""Every openai_error and anthropic_error errsvc emits, read by the official
SDKs' own code: the error parser each client runs on a failed response
(_make_status_error_from_response) and its retry rule (_should_retry). The
bodies must parse into the SDK's status error with the same type, code and
message, and the SDK must retry exactly the answers errsvc calls transient.
No network: the clients are built offline and handed an httpx2.Response."""

from __future__ import annotations

import json
from typing import Any, Dict, List

import anthropic
import httpx2
import openai
import pytest
from anthropic.types.shared.error_type import ErrorType
from openai._constants import MAX_RETRY_AFTER_DELAY

from conftest import OK_VECTORS, ids

WITH_ANSWERS = [v for v in OK_VECTORS if "openai_error" in v["response"]]

# Anthropic's API reference lists request_too_large (413) among its error
# types; this SDK version's ErrorType literal does not, and parses it all
# the same (the type is read as a string).
ANTHROPIC_TYPES = set(ErrorType.__args__) | {"request_too_large"}

OPENAI_CLASSES = {
    400: openai.BadRequestError,
    401: openai.AuthenticationError,
    403: openai.PermissionDeniedError,
    404: openai.NotFoundError,
    409: openai.ConflictError,
    422: openai.UnprocessableEntityError,
    429: openai.RateLimitError,
}

ANTHROPIC_CLASSES = {
    400: anthropic.BadRequestError,
    401: anthropic.AuthenticationError,
    402: anthropic.PaymentRequiredError,
    403: anthropic.PermissionDeniedError,
    404: anthropic.NotFoundError,
    413: anthropic.ContentTooLargeError,
    429: anthropic.RateLimitError,
    529: anthropic.OverloadedError,
}


def test_enough_answers() -> None:
    assert len(WITH_ANSWERS) >= 150, len(WITH_ANSWERS)


def response(answer: Dict[str, Any], url: str) -> httpx2.Response:
    return httpx2.Response(
        answer["status"],
        headers=answer.get("headers", {}),
        content=json.dumps(answer["body"]).encode(),
        request=httpx2.Request("POST", url),
    )


def transient(v: Dict[str, Any]) -> bool:
    c = v["response"].get("classification") or {}
    return c.get("recognized") is True and c.get("class") == "transient"


@pytest.fixture(scope="module")
def openai_client() -> openai.OpenAI:
    return openai.OpenAI(api_key="sk-test-not-a-key", base_url="http://127.0.0.1:9/v1", max_retries=2)


@pytest.fixture(scope="module")
def anthropic_client() -> anthropic.Anthropic:
    return anthropic.Anthropic(api_key="sk-ant-test-not-a-key", base_url="http://127.0.0.1:9", max_retries=2)


@pytest.mark.parametrize("v", WITH_ANSWERS, ids=ids(WITH_ANSWERS))
def test_openai_sdk_reads_openai_error(v: Dict[str, Any], openai_client: openai.OpenAI) -> None:
    answer = v["response"]["openai_error"]
    body = answer["body"]["error"]
    resp = response(answer, "http://127.0.0.1:9/v1/chat/completions")
    err = openai_client._make_status_error_from_response(resp)
    assert isinstance(err, openai.APIStatusError)
    status = answer["status"]
    want_cls = OPENAI_CLASSES.get(status, openai.InternalServerError if status >= 500 else openai.APIStatusError)
    assert type(err) is want_cls, (status, type(err))
    assert err.status_code == status
    assert err.type == body["type"]
    assert err.code == body["code"]
    assert err.param is None
    assert err.body == body
    assert body["message"] == v["response"]["agent_error"]["message"]
    assert body["message"] in str(err)
    # The SDK's own retry rule: x-should-retry, then 408/409/429/5xx; it
    # refuses a Retry-After above MAX_RETRY_AFTER_DELAY seconds.
    retry_after = answer.get("headers", {}).get("Retry-After")
    if retry_after is not None and int(retry_after) > MAX_RETRY_AFTER_DELAY:
        assert not openai_client._should_retry(resp)
    else:
        assert openai_client._should_retry(resp) is transient(v)


@pytest.mark.parametrize("v", WITH_ANSWERS, ids=ids(WITH_ANSWERS))
def test_anthropic_sdk_reads_anthropic_error(v: Dict[str, Any], anthropic_client: anthropic.Anthropic) -> None:
    answer = v["response"]["anthropic_error"]
    body = answer["body"]
    assert body["type"] == "error"
    resp = response(answer, "http://127.0.0.1:9/v1/messages")
    err = anthropic_client._make_status_error_from_response(resp)
    assert isinstance(err, anthropic.APIStatusError)
    status = answer["status"]
    want_cls = ANTHROPIC_CLASSES.get(status, anthropic.InternalServerError if status >= 500 else anthropic.APIStatusError)
    assert isinstance(err, want_cls), (status, type(err))
    assert err.status_code == status
    assert err.type == body["error"]["type"]
    assert err.type in ANTHROPIC_TYPES
    assert err.api_message == v["response"]["agent_error"]["message"]
    assert err.body == body
    assert anthropic_client._should_retry(resp) is transient(v)


def test_the_parsers_can_fail() -> None:
    """A body outside the shapes does not read as one: the checks above can
    fail."""
    c = openai.OpenAI(api_key="sk-test-not-a-key", base_url="http://127.0.0.1:9/v1")
    bad = httpx2.Response(429, content=b'{"message":"no"}', request=httpx2.Request("POST", "http://127.0.0.1:9/v1/x"))
    err = c._make_status_error_from_response(bad)
    assert err.code is None and err.type is None
    a = anthropic.Anthropic(api_key="sk-ant-test-not-a-key", base_url="http://127.0.0.1:9")
    assert a._make_status_error_from_response(bad).type is None
