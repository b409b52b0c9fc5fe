"""The Python examples of docs/INTEGRATIONS.md ("Retry adapters"), run as
written against the mock provider (a rate-limit 429 with retry-after: 1,
then 200) and the live errsvc: each must print ok."""

from __future__ import annotations

import importlib.util
import os
import re
import subprocess
import sys

import pytest

from _scenario import MockProvider, load_scenario, repo_root

EXAMPLE = re.compile(r"<!-- example: ([a-z0-9-]+) -->\s*```python\n(.*?)```", re.S)
NEEDS = {"python-openai": "openai", "python-anthropic": "anthropic", "python-litellm": "litellm", "python-openai-agents": "agents"}


def examples():
    text = (repo_root() / "docs" / "INTEGRATIONS.md").read_text(encoding="utf-8")
    found = dict(EXAMPLE.findall(text))
    assert set(NEEDS) <= set(found), sorted(found)
    return found


EXAMPLES = examples()


@pytest.fixture(scope="module")
def mock():
    m = MockProvider(load_scenario())
    yield m
    m.close()


@pytest.mark.parametrize("name", sorted(NEEDS))
def test_doc_example(name: str, mock: MockProvider, client) -> None:
    if importlib.util.find_spec(NEEDS[name]) is None:  # not imported here: the example imports it
        pytest.skip("%s is not installed" % NEEDS[name])
    key = "docs-" + name
    mock.steps[key] = next(s for s in load_scenario()["steps"] if s["name"] == "rate_limit_429")
    env = dict(
        os.environ,
        OPENAI_BASE_URL=mock.url + "/" + key + "/v1",
        ANTHROPIC_BASE_URL=mock.url + "/" + key,
        OPENAI_API_KEY="sk-test",
        ANTHROPIC_API_KEY="sk-ant-test",
        LITELLM_LOCAL_MODEL_COST_MAP="True",
        OPENAI_AGENTS_DISABLE_TRACING="1",  # no trace export to the network
    )
    out = subprocess.run([sys.executable, "-c", EXAMPLES[name]], env=env, capture_output=True, text=True, timeout=120)
    lines = out.stdout.strip().splitlines()
    assert out.returncode == 0 and lines and lines[-1] == "ok", (out.stdout, out.stderr[-3000:])
    assert mock.took(key)[0] == 2, "the 429 retried once"
