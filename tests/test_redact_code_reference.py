"""A value in key position that is a reference in code or a variable expansion is no secret (issue #27.6,
session 9).

The labelled samples of the report half of ../shared (bench/secrets/damage_labels_report*.jsonl) showed
code in a secret key's place masked: a Go struct field set from another (``Password: reg.Password``), a
camelCase variable (``cfg.S3.SecretKey = s3Secret``, ``refresh_token: savedRefresh``), a back-reference
(``HTTP_AUTHORIZATION=$1``). One predicate, ``values.code_reference``, says "reference, not literal" for
every rule that masks a value after a key (context, general, multiline, prose, listing, safe), so a
listing, an assignment and a known-safe filter cannot disagree. The lines here are made up in the same
shapes, never copied; ``STILL_SECRET`` holds a literal in the nearest shape, so no shape opens a hole.
"""
from __future__ import annotations

import pytest

from memdown.redact import redact
from memdown.redact.values import code_reference, is_placeholder

KEPT = [
    # member access of names, in a Go listing (the listing rule) and alone (the assignment rules)
    "\t\treq.UserName = registry.User\n\t\treq.Password = registry.Password\n\t\treq.Namespace = ns",
    "\t\t\tHost: mirror.Host,\n\t\t\tUserName: mirror.User,\n\t\t\tPassword: mirror.Password,\n\t\t},",
    "    password: this.password,",
    "  $this->token = $request->token;",
    # a camelCase variable of words
    '\tif s3Secret := os.Getenv("S3_SECRET"); s3Secret != "" {\n\t\tcfg.S3.SecretKey = s3Secret\n\t}',
    '\tif s3Key := os.Getenv("S3_KEY"); s3Key != "" {\n\t\tcfg.S3.AccessKey = s3Key\n\t}',
    "  refresh_token: savedRefresh,",
    "const creds = { api_key: storedApiKey, secret: clientSecret };",
    # variable expansions and back-references
    '1. Adding `SetEnvIf Authorization "(.*)" HTTP_AUTHORIZATION=$1` to the Apache config',
    "RewriteRule .* - [E=HTTP_AUTHORIZATION:%{HTTP:Authorization}]\nSetEnvIf Authorization \"(.*)\" HTTP_AUTHORIZATION=$1",
    "set DB_PASSWORD=%DB_PASSWORD%",
]

STILL_SECRET = [
    ("    password: s3cR3tXy9,", "s3cR3tXy9"),
    ("password = hunter2", "hunter2"),
    ("token = Tr0ub4dor&3", "Tr0ub4dor&3"),
    ("\t\treq.UserName = registry.User\n\t\treq.Password = Zq8vR2.kLm9x\n\t\treq.Namespace = ns", "Zq8vR2.kLm9x"),
    ("  refresh_token: 'savedRefresh',", "savedRefresh"),  # quoted: a string literal, whatever its shape
    ('api_key: "s3Key"', "s3Key"),
    ("password = myPassw0rd", "myPassw0rd"),
    ("HTTP_AUTHORIZATION=$1abc9Xq", "$1abc9Xq"),
    ("postgres://app:secretpass@db:5432/app", "secretpass"),  # a URL's password is text, not a variable
]


@pytest.mark.parametrize("text", KEPT)
def test_a_reference_in_key_position_is_kept(text):
    assert redact(text) == text


@pytest.mark.parametrize("text, secret", STILL_SECRET)
def test_a_literal_in_the_nearest_shape_still_goes(text, secret):
    assert secret not in redact(text)


def test_one_predicate_reference_not_literal():
    for value in ("$1", "${PW:-x}", "%PW%", "{{ pw }}", "reg.Password", "$this->token", "savedRefresh", "s3Key",
                  "get_secret()", "auth_token"):
        assert code_reference(value), value
    for value in ("s3cR3tXy9", "hunter2", "Tr0ub4dor&3", "myPassw0rd", "IZphnROc.y05lyrv9jx", "vjd8STY.x"):
        assert not code_reference(value), value
    assert not code_reference("savedRefresh", quoted=True) and code_reference("$1", quoted=True)
    assert is_placeholder("$1") and not is_placeholder("savedRefresh")  # quoted values: expansions only
