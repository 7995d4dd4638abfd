"""Hybrid search really fuses both retrievers (real LanceDB, real packaged model).

Two queries, each answerable by one side only:

- a paraphrase sharing no word with its section: full-text finds nothing,
  only the vector side can answer;
- an exact ticket id buried in a long unrelated section, among sections full
  of near-miss ids: the model ranks the near misses above it, only
  full-text finds the exact token.

Hybrid must answer both. Making hybrid text-only or vector-only (one line in
``services/recall/search.py``) turns this red; ``bench/mutation.py`` checks that.
"""
from __future__ import annotations


import pytest

from memdown import paths
from memdown.api import Memory

pytestmark = pytest.mark.integration

TICKET = "qv7rk2x9"
NEAR_MISSES = ["qv7rk2x8", "qv7rk3x9", "qv7rx2k9", "qv8rk2x9", "qw7rk2x9", "qv7rk2y9",
               "pv7rk2x9", "qv7rj2x9", "qv7rk2z9", "qv6rk2x9", "qv7sk2x9", "qv7rk4x9"]
PARAPHRASE = "background task ran out of RAM"  # no word in common with the Celery section

SECTIONS = [
    "- The nightly Celery job that reconciles invoices crashed with an out-of-memory error.\n"
    "- Fixed it by streaming rows from Postgres with a server-side cursor instead of loading all of them.",
    "- Long planning meeting about the quarterly roadmap, hiring for the platform team and moving standups "
    "to the afternoon.\n"
    f"- The vendor case for the flaky badge printer is {TICKET}; nobody has answered yet.\n"
    "- Agreed that design reviews need two approvals and that the onboarding wiki page gets a rewrite.\n"
    "- Budget for the offsite was approved; travel is booked through the usual agency and the venue has a "
    "projector.\n"
    "- Next sprint focuses on accessibility fixes in the settings screens and on translating the billing "
    "emails into German and Japanese.",
    "- Build broke when the lockfile drifted; regenerated it with pnpm.",
    "- Deploy aborted because the staging bucket policy denied writes.",
    "- Terraform remote state moved to an S3 bucket with DynamoDB locking for staging.",
    "- The React address form flickered because two useEffect hooks fought over the selection.",
    "- Rate quotes were cached in Redis for 15 minutes; shortened the TTL to 300 seconds.",
    "- Webhook retries use exponential backoff capped at ten minutes.",
    "- Migrated the logging setup to structlog with JSON output in production.",
    "- Added pagination to the orders API using opaque cursors.",
    "- Feature flags now load from LaunchDarkly at startup and refresh every minute.",
    "- The CI cache key includes the Python version so wheels are not reused across versions.",
] + [f"- Retry loop in the mailer logged {a} and {b}." for a, b in zip(NEAR_MISSES[::2], NEAR_MISSES[1::2])]


def _day() -> str:
    return "# 2026-05-04\n\n" + "".join(
        f"### {9 + n // 6:02d}:{(n % 6) * 10:02d}\n{body}\n\n" for n, body in enumerate(SECTIONS)
    )


@pytest.fixture(scope="module")
def real_memory(tmp_path_factory: pytest.TempPathFactory) -> Memory:
    # Module-scoped (one model load, one index): set the paths by hand, the
    # autouse isolation fixture is function-scoped.
    base = tmp_path_factory.mktemp("hybrid")
    mp = pytest.MonkeyPatch()
    mp.setenv("HOME", str(base / "home"))
    mp.setenv("MEMDOWN_HOME", str(base / "home" / "memdown"))
    mp.setenv("MEMDOWN_CONFIG", str(base / "home" / "config.toml"))
    root = base / "project" / ".memdown"
    root.parent.mkdir(parents=True)
    mp.setenv("MEMDOWN_DIR", str(root))
    try:
        mem = Memory.open(root)
        mem.init()
        paths.daily_file(root, "2026-05-04").write_text(_day())
        report = mem.index()
        assert report.files_indexed == 1 and report.chunks_total >= len(SECTIONS)
        yield mem
    finally:
        mp.undo()


def _has(hits, needle: str) -> bool:
    return any(needle in h.text for h in hits)


@pytest.fixture
def units_only(real_memory: Memory):
    """The retrievers' own ranking of units (search.window_chars = 0): windows would widen each hit."""
    saved = real_memory.config.values["search"]["window_chars"]
    real_memory.config.values["search"]["window_chars"] = 0
    yield
    real_memory.config.values["search"]["window_chars"] = saved


def test_each_query_is_answered_by_one_retriever_only(real_memory: Memory, units_only):
    """The premise: a single retriever misses one of the two queries."""
    assert real_memory.search(PARAPHRASE, mode="text", k=3) == []
    assert _has(real_memory.search(PARAPHRASE, mode="vector", k=1), "Celery job")
    assert _has(real_memory.search(TICKET, mode="text", k=1), TICKET)
    vector = real_memory.search(TICKET, mode="vector", k=3)
    assert not _has(vector, TICKET), [h.text for h in vector]
    assert all(any(n in h.text for n in NEAR_MISSES) for h in vector)


def test_hybrid_answers_both(real_memory: Memory):
    paraphrase = real_memory.search(PARAPHRASE, k=3)  # the default mode is hybrid
    assert paraphrase and "Celery job" in paraphrase[0].text
    ticket = real_memory.search(TICKET, k=3)
    assert _has(ticket, TICKET), [h.text for h in ticket]


