"""Harm nothing else (issue #27.6): shapes from real transcripts that a rule changed, and must not.

Each line is modelled on a changed line of ../shared/transcripts (third-party text is not copied:
names and values here are made up in the same shape) or on the issue's examples.
"""
from __future__ import annotations

import pytest

from memdown.redact import redact

KEPT = [
    "        if (!(credentials?.email && credentials?.password)) return null;",
    "        passwordLength: credentials?.password?.length",
    "        self.tokens.push(Token::new(TokenType::Plus, lexeme));",
    "            .unwrap_or_else(Token::nil)",
    "use crate::token::Token;",
    '    FORGOT_PASSWORD: "/auth/forgot-password",',
    '    REFRESH_TOKEN: "/auth/refresh-token",',
    '          :password="auth.password"',
    "**✅ PASS: Functionality Validation**",
    "-rw-r--r--  1 ana  staff  52 Dec  4 10:01 FC6857E1-A9E3-48E3-A423-07F68F0AB6C6.session",
    "Camera: iDS-2DE2402IX-D3/W/XM (4MP, 2x optical zoom)",
    "dist/assets/layers-D85udCb7.js                    0.36 kB",
    "project_root = '/var/folders/57/rmrpsdr92ls0p2079hl44s9w0000gn/T/tmp165fxulo'",
    'a pull request for branch "claude/review-development-branch-I5If2" into main',
    "(base) dev@dev-IdeaPad-3-15ITL6:~/src/app$ make",
    "nix build github:NixOS/nixpkgs/nixos-unstable#hello",
    "inputs.home-manager.url = \"github:nix-community/home-manager/release-24.05\";",
    "\tcorrelationToken = *details.CorrelationToken",
    "    val pass: String? = null",
    "      - DB_PASSWORD=${DB_PASSWORD:?set DB_PASSWORD in .env}",
    "      - REDIS_PASSWORD=${REDIS_PASSWORD:-}",
    "Mot de passe SMTP.",
    "unzip capture-2024-05-01T10-22-31Z.zip && tshark -r trace_9f8a7b6c5d4e3f2a1b0c.pcapng",
    "pdflatex thesis_chapter3_v2_final.tex",
    '    print("  PASS: bf16 dtype preservation")',
    "  PASS: Per-block scaling works",
    "   # pass_through_bwd=False: gradients above amax are zeroed",
    '    rsync -a "$HOME/.claude/skills/" "$SYNC_DIR/.claude/skills/"',
    "\t\t\t\t\trefresh_token: session.session!.refresh_token",
    "    throw new \x1b[0m\x1b[39;1mNoSuchElementException\x1b[0m\x1b[35;1m(\x1b[0m",
    # session 7, shapes from the tune half (made up in the same shape)
    "export type ResetTempPasswordDto = z.infer<typeof resetSchema>;",
    '  RESET_PASSWORD = "RESET_PASSWORD",',
    '\tnext_token="$1"',
    "      'api-key': settings.apiKey!,",
    "Pass `with_labels=True` to get the full record",
    "journalctl -u 'worker@staging-box:2' -f",
    "  Set password = HMAC-SHA256(email:salt)",
    "DATABASE_URL=sqlite:///./data/orders.db",
    "pkg/mod/github.com/acme/widget@v0.0.0-20230512101520-3fa1b2c4d5e6/LICENSE: Permission denied",
    "\\x00_ZNKSt3__112basic_stringIcNS_11char_traitsIcEENS_9allocatorIcEEE7compareEPKc",
    '  "23456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnpqrstuvwxyz";',
    "C:\\Users\\Owner（无密码）\\.claude\\projects\\C--Users-Owner\\memory\\*.md",
    "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIHq2mB7xYpLk3vTzR9sWc4Ne8uJdFa0GhQ1oXyZbVrKt dev@laptop",
    "export interface QcQmChatProviderV12OptionsTools {",
    "grep -rIiE 'password|secret|token' src/ | head",
    "echo \"gh not installed\" && gh auth status",
    "        if permission_key in user_permissions:",
    "from server.routers.auth import get_current_user",
    "https://www.figma.com/design/7pk9DL8OzTqHSr3v1IF9mq/Visual-Design?node-id=695-412914",
    "claude mcp add airtable --env AIRTABLE_API_KEY=YOUR_KEY -- npx -y airtable-mcp-server",
    # after the labelled report-half sample (session 7), in made-up words of the same shape
    "    const password = document.getElementById('password') as HTMLInputElement;",
    "+  const changeUserPassword = useCallback(async (uid, newPassword) => {",
    "- Library log: `newToken: 'undefined...'` (because it reads `response.token`)",
    '    cache sync.Map // key: "chart@sha256:xxx" -> value: json.RawMessage',
    "  \x1b[30;42;1m PASS \x1b[39;49;22m\x1b[39m OrderFlowTest\x1b[39m",
    "        uses: 'actions/create-github-app-token@5f1e2d3c4b5a69788796a5b4c3d2e1f0a9b8c7d6'",
    '    <g filter="url(#filter0_0_QwErTy7uIo)">',
    "      const reqErr = err as { code?: number; message?: string } | undefined;",
    "// it is read from SMTP_OAUTH_SECRET in the environment, which",
    "w config set plugins.gateway.security.inboundAuth 'bearer'",
]


STILL_SECRET = [  # the shapes above must not open a hole for the real thing
    ("Server=db;Password=Secret12(;", "Secret12("),
    ("password=Tr0ub4dor&3;", "Tr0ub4dor&3"),
    ("DATABASE_URL=postgres://app:Zq8vR2kLm9x@db/app", "Zq8vR2kLm9x"),
    ("ok I put QM51BYtatFMb8h4ZEAAMtDjvInfwz2DN in there", "QM51BYtatFMb8h4ZEAAMtDjvInfwz2DN"),
    ("git config smtp.password 'Zq8!vR2#kLm9'", "Zq8!vR2#kLm9"),
    ("open https://files.example.com/share/Kq8vR2mL9xTz now", "Kq8vR2mL9xTz"),
]


@pytest.mark.parametrize("line, secret", STILL_SECRET)
def test_a_secret_in_a_nearby_shape_still_goes(line, secret):
    assert secret not in redact(line)


@pytest.mark.parametrize("line", KEPT)
def test_ordinary_line_is_not_changed(line):
    assert redact(line) == line


def test_a_password_on_a_command_line_in_prose_or_code_blocks_goes_but_code_stays():
    # the command rule reads a command wherever it sits (#27.1), not code or prose that names a key
    assert "Zq8vR2kLm9" not in redact("then run `mongodump -u backup -p Zq8vR2kLm9 --db app` again")
    for line in ["# never commit key/secret material even if it slips in", "keys = [l.column_key for l in lines]",
                 "client = AsyncOpenAI(api_key=settings.OPENAI_API_KEY) if settings.OPENAI_API_KEY else None",
                 "grep -ohE 'REG_TOKEN=[A-Z0-9]{20,}' logs/*.txt | sort -u"]:
        assert redact(line) == line
