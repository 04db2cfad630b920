package lab.stub

import kotlinx.serialization.Serializable

/**
 * The stub's `/stats` body. `cancelled` counts calls whose client closed the connection
 * before the answer was due: how tests see that a server cancelled its downstream calls.
 * `connections` counts the connections that carried a call (not those that only asked for
 * `/stats` or `/health`): against `started`, whether a server's client keeps its connections
 * (a few for many calls) or opens one for each call.
 */
@Serializable
data class StubStats(val started: Long, val finished: Long, val cancelled: Long, val connections: Long = 0)
