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
]


@pytest.mark.parametrize("line", KEPT)
def test_ordinary_line_is_not_changed(line):
    assert redact(line) == line
