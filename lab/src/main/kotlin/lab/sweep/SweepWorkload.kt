package lab.sweep

/**
 * What each request of a sweep waits on. Both wait [delayMs]; what differs is who waits:
 * - [DELAY]: the model itself (`/delay?ms=D`: a parked virtual thread, a suspended coroutine, a
 *   blocked platform thread);
 * - [DASHBOARD]: two downstream calls in parallel, the stub answering each after D, so the
 *   server's downstream client holds them too.
 *
 * Each request in flight holds open files: its connection in the server, and for [DASHBOARD] two
 * more to the stub in the server and two in the stub. On a host whose open-files limit is per
 * process (20,000 here, hard), that bounds how many can be in flight ([highestConcurrency]).
 */
enum class SweepWorkload(val slug: String, val serverFilesPerRequest: Int, val stubFilesPerRequest: Int) {
    DELAY("delay", serverFilesPerRequest = 1, stubFilesPerRequest = 0),
    DASHBOARD("dashboard", serverFilesPerRequest = 3, stubFilesPerRequest = 2),
    ;

    fun path(delayMs: Long): String = when (this) {
        DELAY -> "/delay?ms=$delayMs"
        // The stub answers every user alike after its latency; one user keeps the requests identical.
        DASHBOARD -> "/dashboard/user-1"
    }

    /**
     * The most requests in flight that every process of the step can hold open under
     * [openFilesLimit] (per process), leaving [FILES_RESERVED] for the JVM's own (jars, JFR,
     * the selector's pipes). wrk holds one connection a request.
     */
    fun highestConcurrency(openFilesLimit: Long): Int {
        val usable = openFilesLimit - FILES_RESERVED
        return listOf(serverFilesPerRequest, stubFilesPerRequest, WRK_FILES_PER_REQUEST).filter { it > 0 }
            .minOf { usable / it }.toInt()
    }

    companion object {
        const val WRK_FILES_PER_REQUEST = 1

        /** A server at rest holds about 150 files (jars, JFR's repository, epoll); this leaves room for it. */
        const val FILES_RESERVED = 1_000L

        fun bySlug(slug: String): SweepWorkload = entries.firstOrNull { it.slug == slug }
            ?: throw IllegalArgumentException("unknown workload $slug; choose from ${entries.joinToString { it.slug }}")
    }
}
