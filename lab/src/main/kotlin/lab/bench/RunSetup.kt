package lab.bench

import java.io.File

/** What every server of a run shares: the profile after the preflight, the tools, and the JVM. */
data class RunSetup(
    val repo: File,
    val profile: Profile,
    val preflight: Preflight.Decision,
    val java: File,
    val jdkFeature: Int,
    val k6: File,
    val script: File,
    val stubUrl: String,
    val pinThresholdMs: Long,
) {
    fun serverFlags(jmxPort: Int): List<String> = JvmFlags.forServer(profile.heapMb, jdkFeature, jmxPort)
}
