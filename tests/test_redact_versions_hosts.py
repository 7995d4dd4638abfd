"""Versions and hosts are known-safe shapes wherever they stand (issue #27.6, session 9).

The labelled report-half samples of ../shared (bench/secrets/damage_labels_report*.jsonl) lost a
package version under a name holding a secret word (``"jsonwebtoken": "^9.0.2"``), a Debian package
version in apt output (``curl amd64 7.88.1-10+deb12u14``) and a cloud host's generated name in a shell
prompt (``root@iZ2ze…Z:~/app#``). A version (``values.version_like``) and a host by its place (after
``user@`` and before ``:~``/``:/`` or `` dir]$``) are kept by every rule: the known-safe filter
(``safe.known_safe``) and the command reader (``commands.safe_piece``). Lines made up in the same
shapes; ``STILL_SECRET`` holds the real thing nearby.
"""
from __future__ import annotations

import pytest

from memdown.redact import redact
from memdown.redact.values import version_like

KEPT = [
    '    "jsonwebtoken": "^9.0.2",',
    '  "dependencies": {\n    "jsonwebtoken": "^8.5.1",\n    "express": "^4.18.2"\n  }',
    "Get:23 http://deb.debian.org/debian bookworm/main amd64 curl amd64 7.88.1-10+deb12u14 [316 kB]",
    "   584→Get:7 http://deb.debian.org/debian bookworm/main amd64 libssl3 amd64 3.0.15-1~deb12u1 [2,025 kB]",
    "(base) root@iZ2zeabc9u22qw8abfjd8bwZ:~/shop/frontend# ls",
    "[deploy@iZbp1f0a9x2k7m3q8w4e5rZ app]$ git pull",
    "scp dist.tar.gz root@iZ2zeabc9u22qw8abfjd8bwZ:/srv/app/",
]

STILL_SECRET = [
    ('    "api_token": "^9Xq2vR7pLw3nZ8kM",', "^9Xq2vR7pLw3nZ8kM"),
    ("password: 1.2.3-Xk9mQ2vR7p", "Xk9mQ2vR7p"),
    ("curl -u admin:Zq8vR2kLm9x7 https://api.example.com", "Zq8vR2kLm9x7"),
    ("ssh root@10.0.0.5 'echo Zq8vR2kLm9xTw4pQ | sudo -S true'", "Zq8vR2kLm9xTw4pQ"),
    ("export API_KEY=iZ2zeabc9u22qw8abfjd8bwZ", "iZ2zeabc9u22qw8abfjd8bwZ"),
]


@pytest.mark.parametrize("text", KEPT)
def test_a_version_or_a_host_is_kept(text):
    assert redact(text) == text


@pytest.mark.parametrize("text, secret", STILL_SECRET)
def test_the_secret_in_the_nearest_shape_still_goes(text, secret):
    assert secret not in redact(text)


def test_version_like():
    for value in ("9.0.2", "^8.5.1", ">=1.2", "7.88.1-10+deb12u14", "1:2.3-4ubuntu0.1", "2.0.0-rc.1", "3.0.15-1~deb12u1"):
        assert version_like(value), value
    for value in ("1.2.3-Xk9mQ2vR7p", "Tr0ub4dor&3", "9Xq2vR7p", "1.2"[:1]):
        assert not version_like(value), value
