"""The learning loop: learnings, improvements, reflexion, review (``reflect``), promotion and the reflector.

Hook-facing functions (all light imports): ``fixes.record_failure``,
``fixes.lookup_fix``, ``reflect.pending_counts``, ``reflect.recent_learnings``
and ``reflector.sweep``.
"""
