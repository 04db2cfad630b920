package lab.stub

/**
 * The ways the stub fails a `/profile` call on request, for the tests that hold every server
 * to the same answer when its downstream misbehaves. A fault is chosen by the user id alone
 * ([userId]), which the server under test passes on unchanged, so a test picks one through
 * `/dashboard/{userId}` and no server knows that faults exist. The `/metrics` call of the
 * same dashboard is answered as usual.
 */
enum class StubFault(val slug: String) {
    /** A 500 with a JSON error body. */
    SERVER_ERROR("500"),

    /** A 404, as for a user the downstream does not know. */
    NOT_FOUND("404"),

    /** A 200 whose body is not the stub's JSON. */
    NOT_JSON("not-json"),

    /** A 200 whose `Content-Length` promises more than is sent before the connection closes. */
    CUT_SHORT("cut-short"),

    /** The connection reset (TCP RST) instead of an answer. */
    RESET("reset"),

    /** No answer at all, for as long as the caller waits: the servers' downstream timeout decides. */
    HANG("hang"),
    ;

    val userId: String get() = "fault-$slug"

    companion object {
        fun forUser(userId: String): StubFault? = entries.firstOrNull { it.userId == userId }
    }
}
