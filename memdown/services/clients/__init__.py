"""memdown in other coding agents' settings: install and uninstall."""
