"""Recording what a session did: capture jobs, the worker, entries, signal mining and import of earlier history."""
