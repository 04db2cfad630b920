package lab.handlers

/** The two calls `/dashboard/{userId}` makes to the downstream stub, in parallel. */
object DownstreamPaths {
    fun profile(userId: String): String = "/profile/$userId"

    fun metrics(userId: String): String = "/metrics/$userId"

    /** Where servers and the stub meet unless told otherwise (`make stub` listens here). */
    const val DEFAULT_URL = "http://127.0.0.1:8090"
}
