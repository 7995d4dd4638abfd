"""The labelled secret corpus and the false-positive corpus.

``cases.jsonl`` (written and split dev/test BEFORE any tuning): one line per
case -- ``format``, the fake generator ``gen``, the ``context`` (shell,
prose, yaml, json, code, log, env, ...) and a ``text`` template where
``{S}`` is the secret, ``{S1}``/``{S2}`` its two halves (a wrapped token),
``{SJ}`` the secret JSON-escaped (``\\n``) and ``{SI}`` indented by four
spaces. Cases of one format alternate dev, test, dev, ...

The false-positive corpus is built at run time from ordinary text that holds
no secret: this repository's source and docs, ``git log`` (SHAs), UUIDs,
lockfile hashes (the venv's ``RECORD`` files, npm-style ``integrity`` and
pip ``--hash`` lines), base64 images, file paths, long identifiers, and --
when ``../shared/transcripts`` exists -- the prose, commands and tool output
of real transcripts (read in place, never copied). Units are split dev/test
by a hash of their name.
"""
from __future__ import annotations

import base64
import hashlib
import json
import os
import random
import struct
import subprocess
import sys
import uuid
import zlib
from dataclasses import dataclass
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parent.parent
sys.path.insert(0, str(HERE))

from fakes import Fakes  # noqa: E402

SHARED_TRANSCRIPTS = REPO.parent / "shared" / "transcripts"


@dataclass
class Case:
    id: str
    format: str
    context: str
    split: str
    text: str
    secret: str


def load_cases(seed: int = 42) -> list[Case]:
    fakes = Fakes(seed)
    out: list[Case] = []
    for line in (HERE / "cases.jsonl").read_text(encoding="utf-8").splitlines():
        item = json.loads(line)
        secret = fakes.make(item["gen"])
        half = len(secret) // 2
        text = item["text"].format(
            S=secret, S1=secret[:half], S2=secret[half:],
            SJ=secret.replace("\n", "\\n"), SI=secret.replace("\n", "\n    "),
        )
        out.append(Case(item["id"], item["format"], item["context"], item["split"], text, secret))
    return out


def leaked(secret: str, output: str, window: int = 10) -> bool:
    """Does any ``window``-character piece of the secret survive in ``output``?"""
    for part in secret.split("\n"):
        k = min(window, len(part))
        if k < 6:
            continue
        for i in range(len(part) - k + 1):
            if part[i:i + k] in output:
                return True
    return False


# --- false-positive corpus ----------------------------------------------------


def _split_of(name: str) -> str:
    return "dev" if int(hashlib.sha1(name.encode()).hexdigest(), 16) % 2 == 0 else "test"


def _repo_files() -> dict[str, str]:
    units: dict[str, str] = {}
    globs = ["memdown/**/*.py", "docs/**/*.md", "skills/**/*.md", "README.md", "hooks/*.json",
             "bench/*.py", "pyproject.toml"]
    for pattern in globs:
        for path in sorted(REPO.glob(pattern)):
            rel = path.relative_to(REPO)
            if "redact" in rel.parts or rel.name.startswith("redact"):
                continue  # the detector's own source names the formats it looks for
            units[f"repo:{rel}"] = path.read_text(encoding="utf-8", errors="replace")
    return units


def _git_log() -> dict[str, str]:
    try:
        log = subprocess.run(["git", "-C", str(REPO), "log", "-n", "400", "--stat",
                              "--format=commit %H%nAuthor: %an%nDate: %ad%n%n    %s%n"],
                             capture_output=True, text=True, timeout=60).stdout
    except (OSError, subprocess.SubprocessError):
        return {}
    chunks = log.split("\ncommit ")
    return {f"git:{i}": ("commit " + c if i else c) for i, c in enumerate(chunks[:300]) if c}


def _png_b64(rng: random.Random, side: int) -> str:
    raw = b"".join(b"\x00" + rng.randbytes(side * 3) for _ in range(side))

    def chunk(tag: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + tag + data + struct.pack(">I", zlib.crc32(tag + data))

    png = (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", side, side, 8, 2, 0, 0, 0))
           + chunk(b"IDAT", zlib.compress(raw)) + chunk(b"IEND", b""))
    return base64.b64encode(png).decode()


def _synthetic(rng: random.Random) -> dict[str, str]:
    units: dict[str, str] = {}
    for n in range(40):
        ids = [str(uuid.UUID(int=rng.getrandbits(128), version=4)) for _ in range(6)]
        units[f"uuid:{n}"] = "\n".join([
            f"request_id={ids[0]} status=200 duration_ms={rng.randrange(900)}",
            f"Session {ids[1]} resumed from ~/.claude/projects/-home-dev-app/{ids[2]}.jsonl",
            f'{{"id": "{ids[3]}", "parentUuid": "{ids[4]}", "type": "assistant"}}',
            f"INSERT INTO jobs (id) VALUES ('{ids[5]}');",
        ])
    for n in range(30):
        lines = []
        for _ in range(8):
            name = rng.choice(["lodash", "react-dom", "@babel/core", "typescript", "esbuild", "vite"])
            digest = base64.b64encode(rng.randbytes(64)).decode()
            lines.append(f'      "resolved": "https://registry.npmjs.org/{name}/-/{name.split("/")[-1]}-1.{n}.0.tgz",')
            lines.append(f'      "integrity": "sha512-{digest}",')
            lines.append(f"    requests==2.{n}.0 \\\n        --hash=sha256:{rng.randbytes(32).hex()}")
            lines.append(f"  checksum = \"{rng.randbytes(32).hex()}\"")
            lines.append(f"sha256:{rng.randbytes(32).hex()}  dist/app-{n}.tar.gz")
            lines.append(f"docker pull ghcr.io/acme/app@sha256:{rng.randbytes(32).hex()}")
            lines.append(f"etag: \"{rng.randbytes(16).hex()}\"  md5={rng.randbytes(16).hex()}")
        units[f"lock:{n}"] = "\n".join(lines)
    for n in range(12):
        img = _png_b64(rng, 8 + n)
        units[f"image:{n}"] = "\n".join([
            f"![screenshot](data:image/png;base64,{img})",
            f'<img alt="logo" src="data:image/png;base64,{img}">',
            f'{{"type": "image", "source": {{"type": "base64", "media_type": "image/png", "data": "{img}"}}}}',
        ])
    words = ["user", "session", "token", "count", "auth", "password", "reset", "flow", "secret", "manager",
             "key", "value", "cache", "config", "handler", "provider", "factory", "builder", "api"]
    for n in range(20):
        idents = []
        for _ in range(10):
            parts = [rng.choice(words) for _ in range(rng.randrange(3, 7))]
            idents.append("_".join(parts))
            idents.append(parts[0] + "".join(p.title() for p in parts[1:]))
        units[f"ident:{n}"] = "\n".join(f"    {a} = {b}({c})" for a, b, c in zip(idents, idents[1:], idents[2:]))
    return units


def _paths() -> dict[str, str]:
    units: dict[str, str] = {}
    base = Path(sys.prefix) / "lib"
    found = sorted(str(p) for p in base.glob("python3*/site-packages/*/*.py"))[:3000]
    for i in range(0, len(found), 200):
        units[f"paths:{i // 200}"] = "\n".join(found[i:i + 200])
    records = sorted(base.glob("python3*/site-packages/*.dist-info/RECORD"))[:40]
    for path in records:
        units[f"record:{path.parent.name}"] = path.read_text(encoding="utf-8", errors="replace")[:20_000]
    return units


def _transcripts() -> dict[str, str]:
    if not SHARED_TRANSCRIPTS.is_dir():
        return {}
    from memdown.transcript.parser import parse_transcript

    units: dict[str, str] = {}
    for path in sorted(SHARED_TRANSCRIPTS.rglob("*.jsonl")):
        try:
            transcript = parse_transcript(path, include_subagents=False)
        except Exception:  # noqa: BLE001 -- a file the parser refuses is not prose
            continue
        parts: list[str] = []
        for turn in transcript.turns:
            parts.append(turn.prompt)
            parts.extend(turn.assistant_texts)
            for call in turn.tool_calls:
                parts.append(json.dumps(call.input, ensure_ascii=False))
                if call.result:
                    parts.append(call.result[:4000])
        units[f"transcript:{path.relative_to(SHARED_TRANSCRIPTS)}"] = "\n".join(parts)
    return units


def load_fp_units(include_transcripts: bool = True) -> list[tuple[str, str, str]]:
    """``(name, split, text)`` for every unit of ordinary, secret-free text."""
    rng = random.Random(7)
    units = {**_repo_files(), **_git_log(), **_synthetic(rng), **_paths()}
    if include_transcripts and os.environ.get("MEMDOWN_BENCH_NO_TRANSCRIPTS") != "1":
        units.update(_transcripts())
    return [(name, _split_of(name), text) for name, text in units.items()]
