"""The labelled corpus of bench/secrets: every format is redacted, by both layers.

``bench/secrets/evaluate.py`` reports the figures (test half); this test
holds the line on every case of both halves, with and without the
detect-secrets layer (only the worker runs it), so a disabled detector goes red.
"""
from __future__ import annotations

import sys

import pytest

from conftest import REPO_ROOT

sys.path.insert(0, str(REPO_ROOT / "bench" / "secrets"))
from corpus import leaked, load_cases  # noqa: E402

import memdown.redact as redaction  # noqa: E402
from memdown.redact import find_secrets, redact  # noqa: E402

CASES = load_cases()
# Hex in code with no credential word nearby cannot be told from a git SHA
# (documented in memdown/redact/entropy.py); these stay visible here.
KNOWN_MISSES = {"twilio_auth_token-0", "unlabelled_hex_credential-2"}


@pytest.fixture(params=["worker", "default"])
def layer(request, monkeypatch):
    """``worker``: with detect-secrets (as the detached worker runs); ``default``: hooks, CLI."""
    monkeypatch.setattr(redaction, "_use_maintained", request.param == "worker")
    if request.param == "worker":
        assert redaction.enable_maintained_detectors(), "detect-secrets is a dependency"
    return request.param


def test_every_case_is_redacted(layer):
    leaks = [c.id for c in CASES if c.id not in KNOWN_MISSES and leaked(c.secret, redact(c.text))]
    assert leaks == []


def test_known_misses_are_still_misses(layer):
    # When one starts being caught, move it out of KNOWN_MISSES.
    assert {c.id for c in CASES if leaked(c.secret, redact(c.text))} == KNOWN_MISSES


def test_corpus_covers_the_reported_formats():
    formats = {c.format for c in CASES}
    assert len(formats) >= 42
    for name in ("mysql_p_flag", "sshpass_p", "docker_login_p", "aws_secret_key_prose", "password_in_prose",
                 "unlabelled_base64_credential", "unlabelled_hex_credential", "huggingface_token", "gitlab_pat",
                 "sendgrid_api_key", "npm_token", "azure_storage_account_key", "yaml_value_next_line",
                 "json_value_next_line", "wrapped_token"):
        assert name in formats
    assert {c.split for c in CASES} == {"dev", "test"}


def test_redaction_is_idempotent_on_the_corpus(layer):
    for case in CASES:
        once = redact(case.text)
        assert redact(once) == once, case.id
        assert find_secrets(once) == [], case.id


def test_fake_values_are_generated_not_stored():
    text = (REPO_ROOT / "bench" / "secrets" / "cases.jsonl").read_text()
    assert not any(c.secret in text for c in CASES)


@pytest.mark.parametrize("text", [
    "mkdir -p build/out && ssh -p 2222 host",
    "mysql -u root -p shop",
    "docker login -u bot --password-stdin registry.acme.io",
    "the password is required",
    "the token is expired, refresh it",
    "key: value",
    "commit 3f786850e387550fdab836ed7e6dc881de23001b fixes the login page",
    '"integrity": "sha512-Zm9vYmFyYmF6cXV4Zm9vYmFyYmF6cXV4Zm9vYmFyYmF6cXV4Zm9vYmFy"',
    "see memdown/models/all-MiniLM-L6-v2/NOTICE",
    "![x](data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==)",
    "docker pull ghcr.io/acme/app@sha256:9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08",
    "session 4a1b2c3d-1111-4222-8333-444455556666 resumed",
])
def test_ordinary_text_is_untouched(text, layer):
    assert redact(text) == text


def test_worker_layer_adds_detect_secrets(monkeypatch):
    # A Twilio-style id outside our hex-only pattern: only detect-secrets' plugin knows it.
    text = "sid " + "AC" + "zyxwvutsrqponmlkjihgfedcba012345"
    monkeypatch.setattr(redaction, "_use_maintained", False)
    assert redact(text) == text
    assert redaction.enable_maintained_detectors()
    assert redact(text) == "sid [REDACTED:ds_twilio_api_key]"
