"""Yelp's detect-secrets plugins (Apache-2.0, PyPI ``detect-secrets``) as a second detector.

Used by ``redact`` only in processes that call
``memdown.redact.enable_maintained_detectors()`` (the detached worker). Never
on a hook's fast path: importing detect-secrets costs ~0.3 s (its plugin base
imports ``requests`` for verification, which we never call).

Plugins used: every vendor plugin with a fixed token shape (AWS, Azure
storage, basic-auth URLs, GitHub, GitLab, npm ``.npmrc``, PyPI, SendGrid,
Slack, Stripe, Twilio, Telegram, Discord, OpenAI, JWT, Mailchimp, Square).
Left out: the keyword-plus-guess plugins for Cloudant, IBM Cloud/COS,
SoftLayer and Artifactory (each took longer than all our rules together on
the FP corpus and matches ordinary words followed by a hex run), the
keyword and high-entropy plugins (they flag whole quoted strings and fire on
lockfile digests, git SHAs and base64 images -- ``context.py`` and
``entropy.py`` do that job on values), the public-IP plugin (an address is
not a secret) and the private-key plugin (it matches the BEGIN line only;
``patterns.PEM`` removes the whole block).

A plugin yields the secret text (sometimes just the start of a longer token,
e.g. 24 of a Stripe key's 99 characters); each finding is widened to the
whole token so no tail survives.
"""
from __future__ import annotations

import re
from typing import Any

from .patterns import Span

_SKIP = {"KeywordDetector", "Base64HighEntropyString", "HexHighEntropyString", "IPPublicDetector",
         "PrivateKeyDetector", "CloudantDetector", "IbmCloudIamDetector", "IbmCosHmacDetector",
         "SoftlayerDetector", "ArtifactoryDetector"}
_TOKEN_CHARS = re.compile(r"[A-Za-z0-9_\-+/=.~]")
_plugins: list[Any] | None = None


def available() -> bool:
    return bool(_load())


def _load() -> list[Any]:
    global _plugins
    if _plugins is None:
        try:
            from detect_secrets.core.plugins.util import get_mapping_from_secret_type_to_class
            from detect_secrets.settings import default_settings

            with default_settings():
                _plugins = [cls() for cls in get_mapping_from_secret_type_to_class().values()
                            if cls.__name__ not in _SKIP]
        except Exception:  # noqa: BLE001 -- not installed or incompatible: our own rules still run
            _plugins = []
    return _plugins


def _widen(text: str, start: int, end: int) -> tuple[int, int]:
    while start > 0 and _TOKEN_CHARS.match(text[start - 1]) and text[start - 1] not in ".=/":
        start -= 1
    while end < len(text) and _TOKEN_CHARS.match(text[end]):
        end += 1
    return start, end


MAX_LINE = 10_000  # longer lines are data (minified code, blobs); our own rules still scan them


def find(text: str) -> list[Span]:
    spans: list[Span] = []
    plugins = _load()
    if not plugins:
        return spans
    scanned = text
    if len(text) > MAX_LINE and any(len(line) > MAX_LINE for line in text.split("\n")):
        scanned = "\n".join(line for line in text.split("\n") if len(line) <= MAX_LINE)
    for plugin in plugins:
        kind = re.sub(r"[^a-z0-9]+", "_", plugin.secret_type.lower()).strip("_")
        try:
            found = set(plugin.analyze_string(scanned))
        except Exception:  # noqa: BLE001 -- a plugin bug must not stop redaction
            continue
        for secret in found:
            if not isinstance(secret, str) or len(secret) < 6:
                continue
            pos = text.find(secret)
            while pos >= 0:
                start, end = _widen(text, pos, pos + len(secret))
                spans.append((f"ds_{kind}", start, end))
                pos = text.find(secret, pos + len(secret))
    return spans
