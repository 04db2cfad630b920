"""A bench pass's own figures: memory at rest, latency, CPU, the runtime, pinning, and the seeds' claims beside them."""
