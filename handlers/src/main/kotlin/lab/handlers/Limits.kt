package lab.handlers

/**
 * The bounds every server enforces on its inputs, declared once so the three servers
 * reject exactly the same requests. Each bound is a command-line option of every server.
 */
data class Limits(
    /** Longest `/delay` or pinning-trap wait, in ms. A minute covers every profile's slow calls. */
    val maxDelayMs: Long = 60_000,
    /** Most SHA-256 rounds for `/cpu`: about a second of one core, so one request cannot stall a run. */
    val maxCpuIterations: Int = 5_000_000,
    /** Largest `/bytes` body, in bytes: 4 GiB, enough for the large-download experiments. */
    val maxBytes: Long = 4L shl 30,
    /** Largest WebSocket frame or message, in bytes; a bigger one closes the socket with 1009. */
    val maxFrameBytes: Int = 64 * 1024,
    /**
     * Longest a downstream call may take, from sending it to the last byte of its answer, in
     * ms; a slower one is abandoned and `/dashboard` answers 504. Every server's client applies
     * this one bound (the clients' own defaults differ: Ktor's CIO gives up after 15 s, Jetty's
     * client when a connection has been silent for 30 s). It is well above any stub latency the
     * bench runs with.
     */
    val downstreamTimeoutMs: Long = 20_000,
)
