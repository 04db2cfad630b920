package lab.stub

import kotlinx.serialization.Serializable

/**
 * The stub's `/stats` body. `cancelled` counts calls whose client closed the connection
 * before the answer was due: how tests see that a server cancelled its downstream calls.
 */
@Serializable
data class StubStats(val started: Long, val finished: Long, val cancelled: Long)
