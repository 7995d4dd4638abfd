"""The learning loop: learnings, improvements, mistakes (``reflexion.md``), review, promotion and the sweep.

Modules by job: ``review`` is the service behind ``memdown reflect`` (analyze,
promote, dismiss, undo, show); ``sweep`` folds near-duplicate signals and
expires stale ones after a session; ``mistakes`` is the ``reflexion.md`` file
of mistakes and the rules or fixes that prevent them.

Hook-facing functions (all light imports): ``fixes.record_failure``,
``fixes.lookup_fix``, ``review.pending_counts``, ``review.recent_learnings``
and ``sweep.sweep``.
"""
