"""Services: the operations the CLI, the hooks and the daemon share."""
