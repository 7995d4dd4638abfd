"""The class corpus (issue #18) against ``memdown.redact``: leaks and false positives.

    python bench/secrets/classes/evaluate.py --split dev            # tune on this
    python bench/secrets/classes/evaluate.py --split test --fp      # report this, once
    python bench/secrets/classes/evaluate.py --errors               # every leak and changed line

Leak: any 10-character piece of a format's secret (``corpus.leaked``) survives ``redact``.
False positives (``--fp``): the fraction of non-empty lines ``redact`` changes, on
  - code: every ``*.py`` of the running interpreter's standard library (``sysconfig`` stdlib);
  - prose: the ``*.md``/``*.rst``/``*.txt`` files of installed packages (site-packages), and
    the user prompts of ``../shared/transcripts`` (read in place, never copied);
  - the tricky hand-written non-secrets of ``nonsecrets.txt``.
A changed code line counts as *breaking code* when the change is outside a string literal's
value (checked with ``tokenize``: the changed span must lie inside one STRING token's quotes
or one COMMENT).
"""
from __future__ import annotations

import argparse
import io
import json
import sys
import sysconfig
import time
import tokenize
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parent.parent.parent
sys.path.insert(0, str(HERE.parent))
sys.path.insert(0, str(REPO))

from corpus import leaked  # noqa: E402

TRANSCRIPTS = REPO.parent / "shared" / "transcripts"


def load_formats(split: str = "all") -> list[dict]:
    rows = [json.loads(line) for line in (HERE / "formats.jsonl").read_text(encoding="utf-8").splitlines()]
    return [r for r in rows if split in ("all", r["split"])]


def load_nonsecrets() -> list[str]:
    lines = (HERE / "nonsecrets.txt").read_text(encoding="utf-8").splitlines()
    return [ln.replace("\\n", "\n") for ln in lines if ln.strip() and not ln.startswith("# ")]


def code_files() -> list[Path]:
    """The standard library itself (the base interpreter's site-packages left out)."""
    return sorted(p for p in Path(sysconfig.get_paths()["stdlib"]).rglob("*.py")
                  if "site-packages" not in p.parts and "dist-packages" not in p.parts)


def prose_files() -> list[Path]:
    site = Path(sysconfig.get_paths()["purelib"])
    return sorted(p for ext in ("*.md", "*.rst", "*.txt") for p in site.rglob(ext)
                  if "RECORD" not in p.name and p.stat().st_size < 2_000_000)


def transcript_prompts() -> list[str]:
    """User prompts (typed text, not tool results) of the shared transcripts."""
    out: list[str] = []
    for path in sorted(TRANSCRIPTS.rglob("*.jsonl")) if TRANSCRIPTS.is_dir() else []:
        for line in path.read_text(encoding="utf-8", errors="replace").splitlines():
            try:
                entry = json.loads(line)
            except ValueError:
                continue
            msg = entry.get("message") if isinstance(entry, dict) else None
            if entry.get("type") != "user" or not isinstance(msg, dict):
                continue
            content = msg.get("content")
            if isinstance(content, str):
                out.append(content)
            elif isinstance(content, list):
                out += [b.get("text", "") for b in content if isinstance(b, dict) and b.get("type") == "text"]
    return [t for t in out if t.strip()]


def string_spans(source: str) -> list[tuple[int, int]] | None:
    """(start, end) offsets of every string literal's value and every comment (prose, not code);
    None when the file does not tokenize."""
    starts = [0]
    for line in source.splitlines(keepends=True):
        starts.append(starts[-1] + len(line))
    spans = []
    try:
        for tok in tokenize.generate_tokens(io.StringIO(source).readline):
            if tok.type in (tokenize.STRING, tokenize.COMMENT) or getattr(tokenize, "FSTRING_MIDDLE", -1) == tok.type:
                s = starts[tok.start[0] - 1] + tok.start[1]
                e = starts[tok.end[0] - 1] + tok.end[1]
                if tok.type == tokenize.STRING:
                    q = tok.string.lstrip("rbfuRBFU")
                    quote = 3 if q[:3] in ('"""', "'''") else 1
                    s, e = s + (len(tok.string) - len(q)) + quote, e - quote
                spans.append((s, e))
    except (tokenize.TokenError, SyntaxError, IndentationError):
        return None
    return spans


def fp_on(texts: list[tuple[str, str]], redact, python: bool) -> tuple[int, int, int, list[str]]:
    changed = total = breaking = 0
    examples: list[str] = []
    from memdown.redact import find_secrets

    for name, text in texts:
        out = redact(text)
        lines = [ln for ln in text.splitlines() if ln.strip()]
        total += len(lines)
        if out == text:
            continue
        spans = find_secrets(text)
        literal = string_spans(text) if python else None
        hit_lines = set()
        for kind, s, e in spans:
            line_no = text.count("\n", 0, s)
            hit_lines.add(line_no)
            inside = literal is not None and any(a <= s and e <= b for a, b in literal)
            if python and not inside:
                breaking += 1
            row = text[text.rfind("\n", 0, s) + 1:text.find("\n", e) if text.find("\n", e) >= 0 else len(text)]
            examples.append(f"{'BREAKS ' if python and not inside else ''}{name}:{line_no + 1}: {kind}: {row[:200]!r}")
        changed += len(hit_lines)
    return changed, total, breaking, examples


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--split", choices=["dev", "test", "all"], default="dev")
    ap.add_argument("--fp", action="store_true", help="also run the large false-positive corpus")
    ap.add_argument("--errors", action="store_true")
    ap.add_argument("--worker", action="store_true", help="with detect-secrets (the worker's redaction)")
    args = ap.parse_args()
    import memdown.redact as redaction

    redaction.enable_maintained_detectors(args.worker)
    redact = redaction.redact
    formats = load_formats(args.split)
    leaks = [f for f in formats if leaked(f["secret"], redact(f["text"]))]
    print(f"split={args.split}: {len(formats) - len(leaks)} of {len(formats)} formats redacted "
          f"({(len(formats) - len(leaks)) / len(formats):.1%}); leaked {len(leaks)}")
    for f in leaks:
        print(f"  LEAK {f['id']} [{f['class']}]: {redact(f['text'])[:220]!r}")
    tricky = [t for t in load_nonsecrets() if redact(t) != t]
    print(f"tricky non-secrets changed: {len(tricky)} of {len(load_nonsecrets())}")
    for t in tricky:
        print(f"  FP {t!r} -> {redact(t)!r}")
    if not args.fp:
        return 0
    t0 = time.process_time()
    code = [(str(p), p.read_text(encoding="utf-8", errors="replace")) for p in code_files()]
    prose = [(str(p), p.read_text(encoding="utf-8", errors="replace")) for p in prose_files()]
    prose += [(f"prompt{i}", t) for i, t in enumerate(transcript_prompts())]
    for label, texts, python in (("code (stdlib)", code, True), ("prose", prose, False)):
        changed, total, breaking, examples = fp_on(texts, redact, python)
        print(f"FP {label}: {changed} of {total} lines changed = {changed / max(total, 1):.4%}"
              + (f"; {breaking} spans outside a string literal or comment" if python else ""))
        for ex in examples[:300] if args.errors else [e for e in examples if e.startswith("BREAKS")][:20]:
            print("   ", ex)
    print(f"CPU {time.process_time() - t0:.1f} s")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
