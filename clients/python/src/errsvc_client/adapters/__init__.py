"""Retry adapters: errsvc's decision helpers where the frameworks decide.

* :class:`Advisor` asks errsvc (one Translate call, REST or gRPC, with the
  provider's answer as ``provider_response``) and runs :func:`errsvc_client.decide`;
  when errsvc cannot be reached it logs so and answers ``None``: the
  framework's own behaviour applies.
* :func:`transport` / :func:`openai_client` / :func:`anthropic_client`: an
  httpx transport for the ``openai`` and ``anthropic`` clients. It leaves the
  retry loop (``max_retries``) to the client and sets the headers that loop
  already obeys: ``x-should-retry`` (errsvc's retry decision) and
  ``retry-after-ms`` (errsvc's wait), plus ``x-errsvc-class`` /
  ``x-errsvc-action`` for the caller (a 401 says ``reauthenticate``).
* :func:`errsvc_client.adapters.litellm.completion`: LiteLLM's
  ``completion`` with errsvc deciding the retries (``errsvc_client[litellm]``).
* :func:`errsvc_client.adapters.openai_agents.model`: an OpenAI Agents SDK
  ``OpenAIChatCompletionsModel`` on an ``AsyncOpenAI`` with the asyncio
  transport (``errsvc_client[openai-agents]``).

See docs/INTEGRATIONS.md ("Retry adapters").
"""

from errsvc_client.adapters._advisor import Advice, Advisor, guess_provider
from errsvc_client.adapters.httpx_transport import anthropic_client, async_transport, openai_client, transport

__all__ = ["Advice", "Advisor", "anthropic_client", "async_transport", "guess_provider", "openai_client", "transport"]
