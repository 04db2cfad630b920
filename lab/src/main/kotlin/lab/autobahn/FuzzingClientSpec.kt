package lab.autobahn

import kotlinx.serialization.json.JsonArray
import kotlinx.serialization.json.JsonObject
import kotlinx.serialization.json.JsonPrimitive
import kotlinx.serialization.json.buildJsonObject
import kotlinx.serialization.json.put
import java.io.File
import java.net.URI

/**
 * The spec file `wstest -m fuzzingclient -s <file>` runs from: one server ([agent] at the
 * server's `/ws`), the [cases], and [folder] as the report's folder, where wstest writes its
 * `index.json` (every case's verdicts and duration) and a page for each case.
 */
object FuzzingClientSpec {
    const val INDEX = "index.json"

    fun write(folder: File, agent: String, server: URI, cases: List<String>): File {
        val spec = buildJsonObject {
            put("outdir", folder.absolutePath)
            put(
                "servers",
                JsonArray(
                    listOf(
                        buildJsonObject {
                            put("agent", agent)
                            put("url", "ws://${server.host}:${server.port}/ws")
                        },
                    ),
                ),
            )
            put("cases", JsonArray(cases.map { JsonPrimitive(it.trim()) }))
            put("exclude-cases", JsonArray(emptyList()))
            put("exclude-agent-cases", JsonObject(emptyMap()))
        }
        return File(folder, "fuzzingclient.json").apply { writeText(spec.toString()) }
    }
}
