"""make audit-pinning: where virtual threads pin."""
