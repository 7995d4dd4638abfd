"""Names in code, file names in paths, public keys and placeholders are kept (issue #27.6, session 10).

The damaging classes left on the report half of ../shared after session 9 (class names read as
random, Windows file names, age public keys, a template connection URL masked whole) and the
harmless-but-changed ones on the tune half (``your-api-key``, ``sk-...``,
``{"projectId":"prj_…"}``), each kept by one mechanism:

- a name in code (``entropy._token``, ``values.code_reference``): called, read from, generic, declared,
  cast or imported, and spelled in words and acronyms (``values.identifier_of_words``);
- a file name in a path (``safe._file_name_in_path``): a generic finding right after a separator of a
  path from a drive, a share, ``~``, ``./`` or a system root; a cut file name of dates and hex
  (``entropy._truncated``);
- an age recipient (``age1`` + 58 bech32 characters), a value under a key that names an id;
- a placeholder (``values.is_placeholder``): ``your-…``, a prefix of at most five
  characters then ``...``, ``?`` (SQL), ``{0}``, the words ``value``/``dummy``; a URL template
  ``user:pass@`` (``safe.known_safe``, and ``context._env_line`` no longer masks such a URL whole).
  ``change-me-please`` is not one: a default left in place is the live secret (test_redact_key_position).

Lines made up in the same shapes; ``STILL_SECRET`` holds the real thing in the look-alike places.
"""
from __future__ import annotations

import pytest

from memdown.redact import redact
from memdown.redact.values import identifier_of_words

KEPT = [
    # a name in code
    "class LinearFP8ToBF16Kernel(torch.autograd.Function):",
    "weight_token = LinearFP8ToBF16Kernel.apply(x, scale)",
    "    const s = new AzureOAuth2ClientV3Helper(config);",
    "import { HTTP2ServerTransportV1Beta } from './transport';",
    "  return fromJSON(creds) as OAuth2Client;",
    # a file name in a path
    r"Saved as C:\Users\ana\Pictures\tumblr_q7rk2Wd8Xc1vz4ptyo2_1280 (2).jpg",
    r"  D:\work\cache\pip\http-v2\b\7\0e4d8c2b9a7f6e5d4c3b2a19f8e7d6c5b4a3928170f…",
    "/home/ana/.cache/thumbs/Tq8xLm3Vn9Kp2Wz7Rb4Yc6Jd.png exists",
    "archived/rollout-2026-02-11T08-15-02-0198b2c3-d4e5-7f60-8a9b-1c2d3e4f5a6b…",
    # public keys and ids
    "Public key: age1zxm3uk8y2p4hjw9g6c0dfq5rt7sv3le8nz4k2q9w6x0e5a7c3vfs8hytd2",
    '{"projectId":"prj_Q7w2Er9Ty4Ui1Op6As3Df8Gh5Jk","orgId":"team_Z3x8Cv1Bn6Mq9Wl2Ek7Ru4Ty"}',
    # placeholders
    "AZURE_SPEECH_KEY=your-speech-key",
    "    'client_secret': 'your_client_secret',",
    "STRIPE_SECRET_KEY=sk_...",
    '    "SERVICE_TOKEN": "value",',
    "cur.execute('SELECT * FROM sessions WHERE refresh_token = ?', (t,))",
    'url = "mysql://{0}:{1}@{2}/shop".format(user, password, host)',
    "Use rtsp://user:pass@camera-ip:554/stream1 for the camera.",
    "DATABASE_URL=postgresql://user:password@localhost:5432/shop",
    'DATABASE_URL="postgresql://ana@localhost:5432/shop"',
]

STILL_SECRET = [
    ("class Xk9fL2mNq8R7tY4wZ1vBq(", "Xk9fL2mNq8R7tY4wZ1vBq"),  # declared, but random
    ("the token is `Xk9fL2mNq8R7tY4wZ1vBq` for now", "Xk9fL2mNq8R7tY4wZ1vBq"),  # a code span, but random
    ("log in with the credentials as AdminPass2024x today", "AdminPass2024x"),  # 'as' in a sentence, not a cast
    ("key = (raw) as Xk9fL2mNq8R7tY4wZ1vBq;", "Xk9fL2mNq8R7tY4wZ1vBq"),  # a cast, but random
    ("key = Q7w2Er9Ty4Ui1Op6As3Df8Gh.strip()", "Q7w2Er9Ty4Ui1Op6As3Df8Gh"),
    ("token: Zq8vR2kLm9xTw4pQ7bNc3Yd6 (from the console)", "Zq8vR2kLm9xTw4pQ7bNc3Yd6"),
    ("curl https://api.example.com/reset/Zq8vR2kLm9xTw4pQ7bNc3Yd6Kf", "Zq8vR2kLm9xTw4pQ7bNc3Yd6Kf"),
    ("AGE-SECRET-KEY-1QZ8K2X7W9L3M4N5P6R7S8T9U0V2W3X4Y5Z6A7B8C9D0E1F2G3H4J5K6L", "QZ8K2X7W9L3M4N5P6R7S8T9U0V2W3X4Y5Z6A7B8C9D0E1F2G3H4J5K6L"),
    ('{"apiKey":"prj_Q7w2Er9Ty4Ui1Op6As3Df8Gh5Jk"}', "Q7w2Er9Ty4Ui1Op6As3Df8Gh5Jk"),
    ("STRIPE_SECRET_KEY=sk_live_4eC39HqLyjWDarjtT1zdp7dc", "4eC39HqLyjWDarjtT1zdp7dc"),
    ("OPENAI_API_KEY=your9Xq2vR7pLw3nZ8kMtB", "your9Xq2vR7pLw3nZ8kMtB"),
    ("the password is hunter2x...", "hunter2x"),
    ("OPENAI_API_KEY=sk-proj-9Xq2vR7pLw3n...", "9Xq2vR7pLw3n"),  # more than a prefix before the dots
    ("see postgres://admin:password@10.0.0.2/db", "admin:password@"),  # a real user's password
    ("SECRET_KEY=exchange-9Xq2vR7pLw3nZ8kM", "exchange-9Xq2vR7pLw3nZ8kM"),
    ("DATABASE_URL=postgresql://shop:Tr0ub4dor-9x@db.internal:5432/shop", "Tr0ub4dor-9x"),
    ("rtsp://admin:cam3ra-Pw77@192.168.0.9:554/stream1", "cam3ra-Pw77"),
    ("SENTRY_DSN=https://f3a9b8c7d6e5f4a3b2c1d0e9f8a7b6c5@o1.ingest.sentry.io/42", "f3a9b8c7d6e5f4a3b2c1d0e9f8a7b6c5"),
    ("SENTRY_DSN=https://abc123@o1.ingest.sentry.io/42", "abc123"),
]


@pytest.mark.parametrize("text", KEPT)
def test_a_name_path_public_key_or_placeholder_is_kept(text: str) -> None:
    assert redact(text) == text


@pytest.mark.parametrize(("text", "secret"), STILL_SECRET)
def test_the_secret_in_the_same_place_is_still_masked(text: str, secret: str) -> None:
    assert secret not in redact(text)


def test_an_identifier_of_words_is_not_a_random_key() -> None:
    assert identifier_of_words("LinearFP8ToBF16Kernel") and identifier_of_words("OAuth2Client")
    assert not identifier_of_words("Xk9fL2mNq8R7tY4wZ1vBq") and not identifier_of_words("hBcdot2xTlrUrtcx2SWthod7dc")


def test_few_random_keys_read_as_an_identifier_of_words() -> None:
    """The predicate keeps a name only in a code position; random keys must rarely pass it (measured 1.3 %)."""
    import random
    import string

    assert not identifier_of_words("lSMH2LXWQZfaxe9Ynz1oAwvo") and not identifier_of_words("BIb4VtiorO6Ome0ZrKYvyvJw")
    rng = random.Random(11)
    keys = ["".join(rng.choice(string.ascii_letters + string.digits) for _ in range(24)) for _ in range(2000)]
    assert sum(map(identifier_of_words, keys)) <= 40  # 2 %
