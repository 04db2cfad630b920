"""make io-bench: Ktor's IO against plain JVM IO."""
