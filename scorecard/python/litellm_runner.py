"""LiteLLM's own error mapping and retry rule over the provider fixtures.

For every fixture, with the clock pinned to the fixture's:

1. the provider's own LiteLLM error class, as its HTTP handler raises it:
   `ProviderConfigManager.get_provider_chat_config(model, provider)
   .get_error_class(body, status, headers)` (headers as an httpx.Headers, as
   the handler has them);
2. `litellm.exception_type(model, that error, provider)`: the exception
   LiteLLM raises to its caller (RateLimitError, ContextWindowExceededError,
   AuthenticationError, ...);
3. retry: `litellm._should_retry(status_code of that exception)`; wait_s:
   `litellm._calculate_retry_after(...)` when it retries and the answer has
   a Retry-After (the one header it reads; a value it refuses gives its own
   backoff, and that is what it waits), else null;
4. class: LiteLLM's exception class read in the Error Class Contract's terms
   (the table CLASSES below; the generic APIError by LiteLLM's own retry rule).

A 2xx answer never reaches the error mapping (an error inside a 200 stream
or body is LiteLLM's stream parsers' business, not run here): class null,
retry false (`_should_retry(200)`).

Usage: python litellm_runner.py OUT.json [FIXTURES]
"""
import os
import random
import sys
from importlib.metadata import version

os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")  # offline: the packaged cost map

import httpx
import litellm
from litellm.types.utils import LlmProviders
from litellm.utils import ProviderConfigManager

import corpus

litellm.suppress_debug_info = True

# The fixture's provider -> LiteLLM's provider and a model name it knows.
PROVIDERS = {
    "openai": ("openai", "gpt-4o"),
    "openai_responses": ("openai", "gpt-4o"),
    "chatgpt": ("openai", "gpt-4o"),
    "codex": ("openai", "gpt-4o"),
    "generic": ("openai", "gpt-4o"),
    "anthropic": ("anthropic", "claude-sonnet-4-20250514"),
    "azure": ("azure", "gpt-4o"),
    "bedrock": ("bedrock", "anthropic.claude-3-5-sonnet-20240620-v1:0"),
    "gemini": ("gemini", "gemini-2.5-pro"),
    "vertex": ("vertex_ai", "gemini-2.5-pro"),
    "groq": ("groq", "llama-3.3-70b-versatile"),
    "mistral": ("mistral", "mistral-large-latest"),
    "cohere": ("cohere_chat", "command-r-plus"),
    "together": ("together_ai", "meta-llama/Llama-3.3-70B-Instruct-Turbo"),
    "fireworks": ("fireworks_ai", "accounts/fireworks/models/llama-v3p1-70b-instruct"),
    "deepseek": ("deepseek", "deepseek-chat"),
    "xai": ("xai", "grok-3"),
    "openrouter": ("openrouter", "openai/gpt-4o"),
    "perplexity": ("perplexity", "sonar"),
    "cerebras": ("cerebras", "llama3.1-8b"),
    "deepinfra": ("deepinfra", "meta-llama/Meta-Llama-3.1-70B-Instruct"),
    "huggingface": ("huggingface", "meta-llama/Llama-3.3-70B-Instruct"),
    "tgi": ("huggingface", "tgi"),
    "ollama": ("ollama", "llama3"),
    "vllm": ("hosted_vllm", "llama3"),
    "sglang": ("hosted_vllm", "llama3"),
    "llamacpp": ("llamafile", "llama3"),
    "lmstudio": ("lm_studio", "llama3"),
    "sagemaker": ("sagemaker", "jumpstart-llama3"),
    "ai21": ("ai21_chat", "jamba-1.5-large"),
    "nlp_cloud": ("nlp_cloud", "chatdolphin"),
    "litellm": ("litellm_proxy", "gpt-4o"),
}

# LiteLLM's exception classes in the Error Class Contract's terms; the first
# match in this order wins (ContextWindowExceededError is a BadRequestError).
CLASSES = [
    ("ContextWindowExceededError", "context_overflow"),
    ("ContentPolicyViolationError", "permanent"),
    ("AuthenticationError", "auth_required"),
    ("PermissionDeniedError", "permanent"),
    ("RateLimitError", "transient"),
    ("Timeout", "transient"),
    ("APIConnectionError", "transient"),
    ("ServiceUnavailableError", "transient"),
    ("InternalServerError", "transient"),
    ("BadGatewayError", "transient"),
    ("BadRequestError", "permanent"),
    ("UnprocessableEntityError", "permanent"),
    ("NotFoundError", "permanent"),
    ("UnsupportedParamsError", "permanent"),
    ("BudgetExceededError", "permanent"),
]


def class_of(exc, status):
    names = {c.__name__ for c in type(exc).__mro__ if c.__module__.startswith("litellm")}
    for name, cls in CLASSES:
        if name in names:
            return cls
    # The generic APIError (or anything else): LiteLLM's own status rule.
    return "transient" if litellm._should_retry(status) else "permanent"


def mapped(fx):
    a = fx["answer"]
    provider, model = PROVIDERS.get(a["provider"].lower(), ("openai", "gpt-4o"))
    headers = httpx.Headers(a["headers"])
    config = ProviderConfigManager.get_provider_chat_config(model=model, provider=LlmProviders(provider))
    if config is None:
        raise SystemExit(f"{fx['name']}: LiteLLM has no chat config for {provider}")
    err = config.get_error_class(error_message=a["body"], status_code=a["status"], headers=headers)
    try:
        litellm.exception_type(model=model, original_exception=err, custom_llm_provider=provider)
    except Exception as e:  # exception_type raises the mapped exception
        return e, headers
    return err, headers


def litellm_answer(fx):
    status = fx["answer"]["status"]
    if 200 <= status < 300:
        return corpus.answer(retry=bool(litellm._should_retry(status)))
    exc, headers = mapped(fx)
    code = getattr(exc, "status_code", None) or status
    retry = bool(litellm._should_retry(code))
    wait = None
    if retry and "retry-after" in headers:  # the one header LiteLLM reads
        random.seed(0)  # LiteLLM adds up to 0.75 s of jitter
        wait = round(float(litellm._calculate_retry_after(remaining_retries=2, max_retries=2, response_headers=headers)), 3)
    return corpus.answer(cls=class_of(exc, code), retry=retry, wait_s=wait)


def main(out, folder=None):
    meta = {"classifier": "LiteLLM", "version": "litellm " + version("litellm"),
            "how": "get_error_class -> exception_type -> _should_retry(status), _calculate_retry_after; class from the exception class",
            "notions": ["class", "retry", "wait"]}
    answers = {}
    for fx in corpus.fixtures(folder):
        with corpus.frozen_clock(fx):
            answers[fx["name"]] = litellm_answer(fx)
    corpus.write(out, meta, answers)


if __name__ == "__main__":
    main(*sys.argv[1:])
