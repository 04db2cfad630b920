package lab.handlers

/** The two calls `/dashboard/{userId}` makes to the downstream stub, in parallel. */
object DownstreamPaths {
    fun profile(userId: String): String = "/profile/$userId"

    fun metrics(userId: String): String = "/metrics/$userId"

    /** Both calls of one user's `/dashboard`, made at once. */
    fun dashboard(userId: String): List<String> = listOf(profile(userId), metrics(userId))

    /** How many downstream calls one `/dashboard` request has in flight at once: on a server that blocks, a thread each. */
    val DASHBOARD_CALLS_AT_ONCE: Int = dashboard("").size

    /** Where servers and the stub meet unless told otherwise (`make stub` listens here). */
    const val DEFAULT_URL = "http://127.0.0.1:8090"
}
