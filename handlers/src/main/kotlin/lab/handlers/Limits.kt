package lab.handlers

/**
 * The bounds every server enforces on its inputs, declared once so the servers
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
    /**
     * Longest a request's head (its request line and headers) may take to arrive, from its first
     * byte, in ms; a slower one is answered 408 and its connection closed ([RequestHeadTimeout]).
     * A client that trickles its head would otherwise keep a connection, and the engine's buffer
     * for it, for as long as it likes. The clock runs only while a head is arriving: an idle
     * keep-alive connection or an open WebSocket is never timed (neither engine closes those).
     */
    val requestHeadTimeoutMs: Long = 10_000,
) {
    companion object {
        /**
         * Frames a WebSocket holds each way: received and not yet echoed, or echoed and not yet
         * written. A client that never reads its echoes is then pushed back through TCP, instead of
         * filling the server's heap with echoes it will not take (SlowReaderTest). Jetty's servers
         * keep to it by demanding the next frame only once an echo is out; the Ktor server by the
         * capacity of its sessions' queues. Not an option: Jetty's demand has no other setting.
         */
        const val WEB_SOCKET_FRAMES_QUEUED = 1

        /**
         * Connections a server's downstream client may hold open to the stub at once, and calls it
         * may queue behind them. Far above what a process can open here (20,000 files, hard), so no
         * client queues a call or refuses one of its own accord: the open-files limit, the same for
         * every server, is the bound the concurrency sweep meets. Ktor's CIO client held 100
         * connections to one host by default and failed a call that waited 5 s for one (its connect
         * timeout covers the wait), which failed most `/dashboard`s at 1,000 in flight (FINDINGS.md,
         * "Ktor's CIO client counts its wait for a connection against its connect timeout"). Jetty's
         * client holds 64 and queues 1,024 by default.
         */
        const val DOWNSTREAM_CONNECTIONS_MAX = 100_000

        /**
         * Connections a server's listening socket holds accepted by the kernel and not yet by the
         * server (listen(2)'s backlog; the kernel caps it at net.core.somaxconn). Netty asks for
         * somaxconn (4,096 here), Jetty for the JDK's default of 50; declared so both engines ask
         * alike. The sweep, whose connections start spread over one wait, saw no difference from
         * it (docs/JOURNAL.md, "Fair downstream clients and accept queues, measured"), so it is not
         * shown to be the cause of the seconds-long tail seen when wrk opened 4,000 connections at
         * once on a cold Jetty server.
         */
        const val ACCEPT_BACKLOG = 4_096
    }
}
