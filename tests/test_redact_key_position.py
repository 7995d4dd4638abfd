"""A secret word is a key only in key position (issue #27.6, session 8).

Each class below changed real transcript lines of the tune half of ../shared (labelled in
bench/secrets/damage_labels_tune.jsonl); the lines here are made up in the same shapes, never copied.
The mechanisms: a compound name is about its head (``names.name_says_secret``); a value counts only
right after a key and its separator (``names.key_before``), never because a secret word is somewhere on
the line; prose use of a word (the verb *pass*, a heading) is left alone; ids (hex, UUID-built names,
mangled symbols), paths and file names are known-safe shapes. ``STILL_SECRET`` holds the real thing in
the nearest shape, so no class opens a hole.
"""
from __future__ import annotations

import pytest

from memdown.redact import redact
from memdown.redact.names import key_before, name_says_secret, names_an_id

KEPT = {
    # a compound name is about its head, not any part
    "head noun": [
        '  SecretNamespace: "kube-system"',
        "[GNUPG:] KEY_CONSIDERED 4A1B2C3D4E5F60718293A4B5C6D7E8F901234567 0",
        "/opt/app/app --type=gpu --pseudonymization-salt-handle=3?k?5512345678901234567?4712345678901234567?9 --x",
        "export type RenewAccessPasswordDto = z.infer<",
        "  password_reset_url: https://shop.example.com/account/reset?step=2",
        "VAULT_ADDRESS=0xabc... TOKEN_ADDRESS=0x4f2a... AMOUNT=1000 npx hardhat run deploy.ts",
        "SECRET_NAMESPACE=kube-system kubectl apply -f .",
    ],
    # hex only in key position: not a file name, a URL path or a log field near "api"
    "hex in key position only": [
        "node /srv/.vscode-server/bin/cli --connection-token-file /run/user/0/remote.token.8e1b2c3d4f5a6b7c8d9e0f1a2b3c4d5e --x",
        "Google APIs: ![](https://www.gravatar.com/avatar/5e1f2a3b4c5d6e7f8a9b0c1d2e3f4a5b?s=48&d=identicon)",
        '{"type":"started","key":"v2:5e1f2a3b4c5d6e7f8a9b0c1d2e3f4a5b5e1f2a3b4c5d6e7f8a9b0c1d2e3f4a5b","agentId":"a1b2"}',
    ],
    # a random id under a key that names an id, or inside a URL-encoded URL
    "ids": [
        '2. Run `get_design_context(fileKey="Wq4nTz8LmR2vXk7PbY3cHd", nodeId="12-34")`',
        "- File key: `Wq4nTz8LmR2vXk7PbY3cHd`",
        "redirect_uri=https%3A%2F%2Fteam.example.cn%2Fwiki%2FKQ7x2w9PzaRt4MbNcLd8VeFgHj%3Fnext%3D1",
        "-rw-r--r-- 1 u u 40074 May  7 18:07 ab7c9d1e-2f3a-4b5c-8d6e-7f8a9b0c1d2e-1712345678901_Annual Report.docx",
        "  _ZThn16_NSt3__114basic_iostreamIcNS_11char_traitsIcEEED1Ev _ZTv0_n24_NSt3__113basic_istreamIcNS_11char_traitsIcEEED0Ev",
        "INFO | androidboot.qemu.adb.pubkey=QAAAAPx7Lm2Kq9vR4wT8nB3cY6hD1sF5gJ0aZ7eU2iO9pL4kM8jN3bV6cX1zQ5wE0rT7yU2iO5pA8sD3fG6hJ9kL2",
    ],
    # paths a command names are paths, whatever generated folder they hold; host names are names
    "paths": [
        "  secret: orders-db.cluster-x7k2p9q4m1.eu-central-1.rds.amazonaws.com",
        'adb -s emulator-5554 shell "ls -la /data/app/~~Qx7Lm2Kp-RT4vB9nW==/com.example.tool-Zk3mP8qR==/lib/arm64/" 2>&1',
    ],
    # prose use of a secret word, in key position or not
    "prose": [
        "Wait, these pass the role directly. They should pass `member.team?.name?.toLowerCase()` instead.",
        "  1. Derives a deterministic password from the email using HMAC-SHA256: `Xx1!{hash(email)}`",
        "- **Shared Password Derivation**: HMAC-SHA256(email + ':shared') with a fixed prefix",
        "- Password = derived from the e-mail (HMAC-SHA256)",
        "all 12 tests pass: test_orders.py::test_refund_v2",
        "Fixed by changing the MODEL_CATALOG key `Qwen-2-7b-instruct-hf` to the new repo",
    ],
    # code and messages in key position are not values
    "code": [
        "      fieldErrors.password = 'Password is required';",
        "    request.token = jwt;",
        '  const password = user.profile?.getPassword("x");',
        "  credentials?: LcOpenAiChatModelV12Credentials;",
        "cd repo && git ls-files -z | xargs -0 grep -lIiE 'ghp_|GH_PAT=[^\"$]' 2>/dev/null",
    ],
}

STILL_SECRET = [
    ("DB_PASSWORD_PROD=Zq8vR2kLm9x", "Zq8vR2kLm9x"),
    ("export GH_PAT=ghx_Zq8vR2kLm9", "Zq8vR2kLm9"),
    ("API_KEYS=Zq8vR2kLm9,Xk9mQ2vR7p", "Zq8vR2kLm9"),
    ('JWT_SECRET_KEY = "change-me-please"', "change-me-please"),
    ("password_confirmation: hunter2!x", "hunter2!x"),
    ('api_key = "6ca0869f6193ac0d40fa6ae74ed01260"', "6ca0869f6193ac0d40fa6ae74ed01260"),
    ("new api creds: `3f2a9c8b7d6e5f4a3b2c1d0e9f8a7b6c`", "3f2a9c8b7d6e5f4a3b2c1d0e9f8a7b6c"),
    ("--api-key 6ca0869f6193ac0d40fa6ae74ed01260", "6ca0869f6193ac0d40fa6ae74ed01260"),
    ("the password is Tr0ub4dor&3", "Tr0ub4dor&3"),
    ("pass: Zq8vR2kLm9x!", "Zq8vR2kLm9x!"),
    ("smtp pass: Zq8vR2kLm9x!", "Zq8vR2kLm9x!"),
    ("password: Zq8vR2kLm9x.eu-west-1", "Zq8vR2kLm9x"),
    ("log in with password Tr0ub4dor&3 now", "Tr0ub4dor&3"),
    ("Das Passwort für den Router ist sommer!12", "sommer!12"),
    ('auth_token = "8f9a7c6b5d4e3f2a1b0c9d8e"', "8f9a7c6b5d4e3f2a1b0c9d8e"),
    ("password = 'correct horse battery staple'", "correct horse battery staple"),
    ("db_password = myodoo", "myodoo"),
    ("sshpass -p /etc/app/Xk9mQ2vR7pLw3nZ8 ssh host", "Xk9mQ2vR7pLw3nZ8"),
    ("agent-token_5b7c9d1e-2f3a-4b5c-8d6e-7f8a9b0c1d2e", "5b7c9d1e-2f3a-4b5c-8d6e-7f8a9b0c1d2e"),
]


@pytest.mark.parametrize("line", [line for lines in KEPT.values() for line in lines])
def test_a_line_without_a_secret_in_key_position_is_kept(line):
    assert redact(line) == line


@pytest.mark.parametrize("line, secret", STILL_SECRET)
def test_the_secret_in_the_nearest_shape_still_goes(line, secret):
    assert secret not in redact(line)


def test_a_name_is_about_its_head():
    for name in ("SecretNamespace", "KEY_CONSIDERED", "salt-handle", "ResetPasswordDto", "password_reset_url", "pubkey"):
        assert name_says_secret(name) is None, name
    for name in ("DB_PASSWORD_PROD", "SECRET_2", "password_confirmation", "secret_key_base", "adminPassword"):
        assert name_says_secret(name) == "strong", name
    assert name_says_secret("JWT_SECRET_KEY") == "strong"  # a weak head after a strong part
    assert name_says_secret("GITHUB_TOKEN_READONLY") == "weak"


def test_key_position_is_a_key_and_its_separator_right_before():
    assert key_before('api_key = "') == "api_key"
    assert key_before("new api creds: `") == "new api creds"
    assert key_before("--token ") == "token"
    assert key_before("/run/user/0/remote.token.") is None
    assert key_before("[GNUPG:] KEY_CONSIDERED ") is None
    assert names_an_id("fileKey") and names_an_id("File key") and not names_an_id("api_key")
