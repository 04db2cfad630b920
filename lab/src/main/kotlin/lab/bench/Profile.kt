package lab.bench

import kotlinx.serialization.ExperimentalSerializationApi
import kotlinx.serialization.Serializable
import kotlinx.serialization.json.Json
import kotlinx.serialization.json.decodeFromStream
import java.io.File

/**
 * One load profile, as declared in `loadtests/profiles/<name>.json`: the only place its
 * numbers live. [load] checks every field, so a typo fails before any server starts.
 */
@Serializable
data class Profile(
    val description: String,
    val idleSockets: Int,
    val socketSteps: Int,
    val stepHoldSeconds: Int,
    val pingIntervalSeconds: Int,
    val jsonRatePerSecond: Int,
    val jsonSeconds: Int,
    val dashboardRatePerSecond: Int,
    val dashboardSeconds: Int,
    val heapMb: Int,
    /** Run each server a second time without the JFR stream, to measure what the stream costs. */
    val compareWithoutJfr: Boolean = false,
) {
    /** How long k6 drives one server: the socket steps, then the JSON phase, then the dashboard phase. */
    val durationSeconds: Int get() = socketSteps * stepHoldSeconds + jsonSeconds + dashboardSeconds

    fun problems(): List<String> = buildList {
        if (idleSockets < 0) add("idleSockets must be 0 or more")
        if (socketSteps < 1) add("socketSteps must be at least 1")
        if (stepHoldSeconds < 1) add("stepHoldSeconds must be at least 1")
        if (pingIntervalSeconds < 1) add("pingIntervalSeconds must be at least 1")
        if (jsonRatePerSecond < 1 || jsonSeconds < 1) add("jsonRatePerSecond and jsonSeconds must be at least 1")
        if (dashboardRatePerSecond < 0 || dashboardSeconds < 0) add("dashboardRatePerSecond and dashboardSeconds must be 0 or more")
        if (heapMb < 64) add("heapMb must be at least 64")
    }

    companion object {
        @OptIn(ExperimentalSerializationApi::class)
        private val strict = Json { ignoreUnknownKeys = false }

        /** Reads and checks a profile; throws [BenchInputException] with a one-line reason. */
        @OptIn(ExperimentalSerializationApi::class)
        fun load(profilesDir: File, name: String): Profile {
            val known = profilesDir.listFiles { f -> f.extension == "json" }.orEmpty().map { it.nameWithoutExtension }.sorted()
            val file = File(profilesDir, "$name.json")
            if (!file.isFile) throw BenchInputException("unknown profile '$name'; choose one of: ${known.joinToString()}")
            val profile = try {
                file.inputStream().use { strict.decodeFromStream<Profile>(it) }
            } catch (e: IllegalArgumentException) {
                throw BenchInputException("$file is not a valid profile: ${e.message?.lineSequence()?.first()}")
            }
            val problems = profile.problems()
            if (problems.isNotEmpty()) throw BenchInputException("$file: ${problems.joinToString("; ")}")
            return profile
        }
    }
}

/** Bad input from the user: reported as one line, with what to do, and never as a stack trace. */
class BenchInputException(message: String) : Exception(message)
