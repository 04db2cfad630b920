package lab.stub

import lab.handlers.Metrics
import lab.handlers.Profile
import java.util.zip.CRC32

/** The stub's deterministic answers, so a dashboard body depends only on its user id. */
object StubAnswers {
    private val tiers = listOf("free", "pro", "team")

    fun profile(userId: String): Profile {
        val hash = hash(userId)
        return Profile(userId = userId, name = "User $userId", tier = tiers[(hash % tiers.size).toInt()])
    }

    fun metrics(userId: String): Metrics {
        val hash = hash(userId)
        return Metrics(userId = userId, visits = hash % 100_000, sessions = hash % 1_000)
    }

    private fun hash(userId: String): Long = CRC32().apply { update(userId.toByteArray()) }.value
}
