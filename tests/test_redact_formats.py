"""Configuration files by their format, and Read results with line numbers (issue #27.4)."""
from __future__ import annotations

import random
import string

import pytest

from memdown.redact import redact
from memdown.redact.values import name_like

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


# --- listings: masked unless a known-safe shape (redact/listing.py) --------------------------------

LISTINGS = {
    "env": "APP_ENV=production\nDB_HOST=db\nDB_PASS={S}\nLOG_LEVEL=info\n",
    "compose list": "    environment:\n      - POSTGRES_USER=app\n      - POSTGRES_PASSWORD={S}\n",
    "yaml": "database:\n  host: db.internal\n  pass: {S}\n  pool: 5\n",
    "ini": "[db]\nhost = db\npassword = {S}\n",
    "toml": '[db]\nhost = "db"\nsecret = "{S}"\n',
    "json": '{{\n  "user": "app",\n  "password": "{S}",\n  "port": 5432\n}}\n',
    "php": "'db' => [\n    'user' => 'app',\n    'pass' => '{S}',\n],\n",
    "properties": "app.db.user=shop\napp.db.password={S}\n",
}


def _dotted_secret(rng: random.Random) -> str:
    """A generated password holding a dot before letters: shaped like a file name or an attribute
    (``qvj2JwnPV.eu``), which the value rules kept as one."""
    body = "".join(rng.choice(string.ascii_letters + string.digits) for _ in range(9))
    return body[:3] + str(rng.randint(2, 9)) + rng.choice(string.ascii_uppercase) + body[3:6] + \
        rng.choice(string.ascii_uppercase) + "." + "".join(rng.choice(string.ascii_lowercase) for _ in range(2))


@pytest.mark.parametrize("fmt", sorted(LISTINGS))
@pytest.mark.parametrize("shape", ["plain", "read result"])
def test_a_credential_value_in_a_listing_is_masked_unless_a_safe_shape(fmt, shape):
    """Mutation: ``config_value_safe`` returning True, or ``find_listing_values`` left out of
    ``find_secrets``/``_find_raw`` -> red (the dotted passwords stay)."""
    rng = random.Random(fmt + shape)
    for _ in range(20):
        secret = _dotted_secret(rng)
        text = LISTINGS[fmt].format(S=secret)
        out = redact(numbered(text) if shape != "plain" else text)
        assert secret.split(".")[0][:7] not in out, out


@pytest.mark.parametrize("value", ["${DB_PASSWORD}", "changeme", "<password>", "****", "8", "true", "/run/secrets/db",
                                   "https://vault.example.com/v1/db", "self.password", "{", "fields.Char(",
                                   "xxxx xxxx xxxx", "String", "getpass()", "settings.DB_PASS"])
def test_a_safe_shape_under_a_credential_key_in_a_listing_is_kept(value):
    text = f"[db]\nhost = db\npassword = {value}\nport = 5432\n"
    assert redact(text) == text


AUTH_FILES = {  # OpenVPN auth-user-pass: a user-name line, then a password line
    "alone": "vpnuser\n{S}\n",
    "after a comment": "# /etc/openvpn/auth.txt\nvpnuser\n{S}\n",
    "in a prompt": "please use this:\nops.bot\n{S}\n\nthanks",
    "in a fence": "Here it is:\n```\nvpnuser\n{S}\n```\nIt worked.",
}


@pytest.mark.parametrize("where", sorted(AUTH_FILES))
def test_a_two_line_credential_file_loses_its_password_line(where):
    """Mutation: ``_bare_secret`` returning False -> red."""
    rng = random.Random(where)
    for _ in range(20):
        secret = "".join(rng.choice(string.ascii_letters + string.digits) for _ in range(rng.randint(11, 18)))
        if not (any(c.isdigit() for c in secret) and any(c.isupper() for c in secret)):
            continue
        text = AUTH_FILES[where].format(S=secret)
        assert secret not in redact(text) and secret not in redact(numbered(text))
        assert "vpnuser" in redact(text) or "ops.bot" in redact(text)


@pytest.mark.parametrize("text", [
    "ubuntu\nip-10-0-1-23\n", "README.md\nsetup.py\n", "main\n4f3a2b1c9d8e7f6a5b4c3d2e1f0a9b8c7d6e5f4a\n",
    "    try:\n        run()\n    except:\n        pass\n    finally:\n        close()\n",
    "root\nweb-7d9f8b6c5-x2k4j\n", "deploy\nuser@example.com\n", "origin\nv1.2.3-rc1\n",
    "Output:\nalice\nbob\ncarol\nWd8kP2mZq9Lx\n",  # one of a list of words, not a two-line file
])
def test_two_word_lines_that_are_no_credential_file_are_kept(text):
    assert redact(text) == text


@pytest.mark.parametrize("template", [
    'proxy_set_header Authorization "Key {S}";', "Authorization: Custom {S}",
    'Check whether this works: "pgbouncer" "{S}"',
])
def test_a_header_credential_or_userlist_pair_is_masked_unless_a_safe_shape(template):
    """A header value shaped like a dotted name (``Key VR62.UjQkOtoDXq``) was kept by ``credential_like``;
    a pgbouncer pair after a sentence's colon was not read. Mutations: ``_auth_header`` back to
    ``not credential_like(…)`` alone, or ``_USERLIST`` anchored at the line start only -> red."""
    rng = random.Random(template)
    for _ in range(20):
        letters = "".join(rng.choice(string.ascii_letters) for _ in range(10))
        if letters.islower() or letters.isupper() or name_like(letters):
            continue  # generated, not a camelCase name
        secret = "".join(rng.choice(string.ascii_uppercase) for _ in range(2)) + str(rng.randint(10, 99)) + "." + letters
        out = redact(template.format(S=secret))
        assert secret[-8:] not in out, out


@pytest.mark.parametrize("text", ["Authorization: Bearer <token>", "Authorization: Basic base64(user:pass)",
                                  "**AuthController (OAuth2 authorization code flow):**", 'He said: "hello" "world wide"'])
def test_header_and_pair_shapes_without_a_credential_are_kept(text):
    assert redact(text) == text
