"""LanceDB is imported without its REST namespace client's ``__init__``, and nothing else changes.

Each check runs in a fresh interpreter: the deferral only happens before the first ``import lancedb``.
"""
from __future__ import annotations

import subprocess
import sys
import textwrap

import pytest

pytestmark = pytest.mark.integration


def _run(code: str, tmp_path) -> str:
    done = subprocess.run([sys.executable, "-c", textwrap.dedent(code)], cwd=tmp_path, capture_output=True,
                          text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    return done.stdout.strip()


def test_a_local_table_works_without_the_rest_client_being_built(tmp_path) -> None:
    out = _run(f"""
        import sys
        from memdown.index.lance_import import import_lancedb
        lancedb = import_lancedb()
        from lancedb.index import FTS
        db = lancedb.connect({str(tmp_path / 'db')!r})
        t = db.create_table("t", data=[{{"id": "a", "text": "postgres migration failed", "vector": [1.0, 0.0]}},
                                       {{"id": "b", "text": "redis cache ttl", "vector": [0.0, 1.0]}}])
        t.create_fts_index("text")
        text_hit = t.search("migration", query_type="fts").limit(1).to_list()[0]["id"]
        vector_hit = t.search([0.1, 0.9]).limit(1).to_list()[0]["id"]
        print(text_hit, vector_hit, "lance_namespace_urllib3_client.api" in sys.modules,
              "lance_namespace_urllib3_client.api_client" in sys.modules)
    """, tmp_path)
    assert out == "a b False False"


def test_the_rest_client_is_whole_on_first_use(tmp_path) -> None:
    out = _run("""
        from memdown.index.lance_import import import_lancedb
        import_lancedb()
        import lance_namespace, lance_namespace_urllib3_client as client
        from lance_namespace_urllib3_client.models import ListTablesResponse
        api = client.TableApi  # first attribute of the package: its real __init__ runs now
        print(api.__module__, client.ApiClient.__name__, lance_namespace.ListTablesResponse is ListTablesResponse,
              client.Configuration().host is not None)
    """, tmp_path)
    assert out == "lance_namespace_urllib3_client.api.table_api ApiClient True True"


def test_the_lighter_import_leaves_nothing_changed_behind(tmp_path) -> None:
    """The overrides marker, pydantic's deferred build and the paused GC last for the import only; a model
    created during it still validates (built on first use), and LanceDB's classes carry the override marker
    its own checks need."""
    out = _run("""
        import gc, sys
        import overrides
        from pydantic._internal import _config
        checked = overrides.override
        from memdown.index.lance_import import import_lancedb
        lancedb = import_lancedb()
        from lance_namespace import ListTablesResponse
        from lancedb.db import LanceDBConnection
        reply = ListTablesResponse(tables=["t"])
        print(overrides.override is checked, _config.config_defaults["defer_build"], gc.isenabled(),
              reply.tables, ListTablesResponse.__pydantic_complete__,
              getattr(LanceDBConnection.open_table, "__override__", False))
    """, tmp_path)
    assert out == "True False True ['t'] True True"


def test_a_model_created_during_the_import_is_deferred(tmp_path) -> None:
    """The deferral really applies (so its saving is not an accident of the machine): a namespace model
    has no validator until something uses it."""
    out = _run("""
        from memdown.index.lance_import import import_lancedb
        import_lancedb()
        from lance_namespace import DescribeTableRequest
        before = DescribeTableRequest.__pydantic_complete__
        DescribeTableRequest(id=["t"])
        print(before, DescribeTableRequest.__pydantic_complete__)
    """, tmp_path)
    assert out == "False True"
