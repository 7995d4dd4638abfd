"""Talking to the live-index daemon from outside it: the wire format, ``ask_daemon`` and start/stop/status.

Standard library only (hooks and the CLI's fast path import it), below services, so the session
service can start the daemon and ask it. The daemon itself lives in :mod:`memdown.daemon`.
"""
