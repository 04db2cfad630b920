package lab.handlers

import kotlinx.serialization.json.Json
import kotlinx.serialization.serializer

/**
 * The one JSON library and configuration all the servers (and the stub) use, so bodies
 * are identical and serialisation costs the same on every server.
 */
object LabJson {
    val format: Json = Json {
        encodeDefaults = true
        ignoreUnknownKeys = true
    }

    inline fun <reified T> encode(value: T): ByteArray = format.encodeToString(serializer<T>(), value).toByteArray()

    inline fun <reified T> decode(text: String): T = format.decodeFromString(serializer<T>(), text)

    inline fun <reified T> reply(status: Int, value: T, vararg headers: Pair<String, String>): Reply =
        Reply(status, ContentTypes.JSON, encode(value), headers.toList())
}
