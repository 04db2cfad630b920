"""The latency-throughput curve: its steps, what was sent in each, which held, and its tables."""
