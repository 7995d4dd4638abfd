"""Configuration files by their format, and Read results with line numbers (issue #27.4)."""
from __future__ import annotations

import random
import string

import pytest

from memdown.redact import redact

CONFIGS = {
    "redis requirepass": "bind 0.0.0.0\nport 6379\nrequirepass {S}\n",
    "redis masterauth": "replicaof 10.0.0.4 6379\nmasterauth {S}\n",
    "k8s env pair": "        env:\n        - name: DB_PASSWORD\n          value: \"{S}\"\n        - name: DB_HOST\n          value: db\n",
    "ecs json pair": '{{"name": "API_SECRET", "value": "{S}"}}',
    "hadoop xml pair": "<property>\n  <name>fs.s3a.secret.key</name>\n  <value>{S}</value>\n</property>",
    "auth header any scheme": 'proxy_set_header Authorization "Key {S}";',
    "auth header custom": "Authorization: Custom {S}",
    "pgbouncer userlist": '"pgbouncer" "{S}"\n"app" "md5d41d8cd98f00b204e9800998ecf8427e"\n',
    "jdbc oracle thin": "jdbc:oracle:thin:scott/{S}@db01:1521:ORCL",
    "compose list": "services:\n  db:\n    environment:\n      - POSTGRES_PASSWORD={S}\n",
    "pgpass": "db.internal:5432:sales:report:{S}\n",
    "netrc": "machine api.example.com\n  login deploy\n  password {S}\n",
    "ini": "[database]\nhost = db\npasswd = {S}\n",
}


def numbered(text: str, arrow: bool = False) -> str:
    return "\n".join(f"{i:>6}{'→' if arrow else chr(9)}{line}" for i, line in enumerate(text.split("\n"), 1))


def _secret(rng: random.Random) -> str:
    body = "".join(rng.choice(string.ascii_letters + string.digits) for _ in range(14))
    return body[:3] + "7" + body[3:8] + rng.choice("!%*@") + body[8:]


@pytest.mark.parametrize("fmt", sorted(CONFIGS))
@pytest.mark.parametrize("shape", ["plain", "read result", "read result (arrow)"])
def test_a_credential_in_a_config_format_is_masked(fmt, shape):
    rng = random.Random(fmt + shape)
    for _ in range(5):
        secret = _secret(rng)
        text = CONFIGS[fmt].format(S=secret)
        if shape != "plain":
            text = numbered(text, arrow="arrow" in shape)
        out = redact(text)
        assert secret[:6] not in out and secret[-6:] not in out, out
        if shape != "plain":
            assert "     1" in out  # the line numbers stay


@pytest.mark.parametrize("text", [
    "bind 0.0.0.0\nport 6379\nmaxmemory 2gb\n",
    "        - name: DB_PASSWORD\n          valueFrom:\n            secretKeyRef:\n              name: db\n",
    "        - name: DB_HOST\n          value: db.internal.example\n",
    "Authorization: Bearer $TOKEN",
    "password reset\nlogin page\n",
    '"name" "value"\n',
    numbered("import os\nprint(os.getcwd())\n"),
])
def test_config_shapes_without_a_credential_are_kept(text):
    assert redact(text) == text
