package lab.handlers

import java.security.MessageDigest

/**
 * The `/cpu` work: a chain of SHA-256 rounds. It is deterministic, so every server must
 * return the same digest for the same count, which proves they did the same work.
 */
object CpuWork {
    private val SEED = "loom-lab".toByteArray()

    fun digest(iterations: Int): String {
        val sha256 = MessageDigest.getInstance("SHA-256")
        var state = SEED
        repeat(iterations) { state = sha256.digest(state) }
        return state.toHexString()
    }
}
