"""Every test runs in a temporary folder, with no codeact.toml, persona, model or key
taken from the environment it was started in."""

import pytest


@pytest.fixture(autouse=True)
def isolated(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    for name in ("CODEACT_CONFIG", "CODEACT_PERSONA", "CODEACT_MODEL", "OPENAI_API_KEY", "OPENAI_BASE_URL"):
        monkeypatch.delenv(name, raising=False)
