package lab.handlers

import kotlinx.serialization.Serializable

// The JSON bodies of the contract. They are small data classes kept together because
// each is a few lines and they only make sense as a set.

/** The `/json` body: TechEmpower's classic message. */
@Serializable
data class Greeting(val message: String = "Hello, World!")

/** Every 4xx and 5xx body: one sentence that says what was wrong and what to send instead. */
@Serializable
data class ErrorBody(val error: String)

/** What the downstream stub answers on `/profile/{userId}`. */
@Serializable
data class Profile(val userId: String, val name: String, val tier: String)

/** What the downstream stub answers on `/metrics/{userId}`. */
@Serializable
data class Metrics(val userId: String, val visits: Long, val sessions: Long)

/** The `/dashboard/{userId}` body: both downstream answers, combined. */
@Serializable
data class Dashboard(val userId: String, val profile: Profile, val metrics: Metrics)

/** The `/cpu` body: the digest proves every server did the same work. */
@Serializable
data class CpuResult(val iterations: Int, val sha256: String)

/** The `/delay` body. */
@Serializable
data class DelayResult(val delayedMs: Long)

/** The `/pin/{trap}` body. */
@Serializable
data class PinResult(val trap: String, val blockedMs: Long)

/**
 * The `/stats` body: what the server is (its engine and model, which servers.json must match)
 * and its own view of its load. `threads` counts live platform threads (virtual threads are
 * not in it), which is the figure the models differ on.
 */
@Serializable
data class ServerStats(val engine: String, val model: String, val openSockets: Int, val inFlightRequests: Int, val threads: Int)
