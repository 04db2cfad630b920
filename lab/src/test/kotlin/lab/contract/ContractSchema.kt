package lab.contract

import kotlinx.serialization.ExperimentalSerializationApi
import kotlinx.serialization.KSerializer
import kotlinx.serialization.descriptors.PolymorphicKind
import kotlinx.serialization.descriptors.PrimitiveKind
import kotlinx.serialization.descriptors.SerialDescriptor
import kotlinx.serialization.descriptors.SerialKind
import kotlinx.serialization.descriptors.StructureKind
import kotlinx.serialization.json.Json
import kotlinx.serialization.json.JsonArray
import kotlinx.serialization.json.JsonElement
import kotlinx.serialization.json.JsonNull
import kotlinx.serialization.json.JsonObject
import kotlinx.serialization.json.JsonPrimitive
import kotlinx.serialization.json.buildJsonArray
import kotlinx.serialization.json.buildJsonObject
import kotlinx.serialization.json.jsonObject
import kotlinx.serialization.json.put
import kotlinx.serialization.json.putJsonArray
import kotlinx.serialization.json.putJsonObject

/**
 * A JSON Schema (draft 2020-12) of what a serializable class writes, made from its serializer's descriptor: each class a
 * definition named by its serial name, a property for each element, required where the class gives it no default,
 * nullable where its type is. The harness writes its JSON documents (`manifest.json`) with the default [Json], which leaves
 * out a property equal to its default; a reader must then know the default, so the schema gives it for each class in
 * [withDefaults], read off an instance built from the class's required properties alone.
 */
@OptIn(ExperimentalSerializationApi::class)
class ContractSchema(private val title: String, private val root: KSerializer<*>, private val withDefaults: List<KSerializer<*>>) {
    private val definitions = sortedMapOf<String, JsonObject>()
    private val defaults: Map<String, JsonObject> = withDefaults.associate { name(it.descriptor) to defaultsOf(it) }

    fun json(): JsonObject {
        val top = schemaOf(root.descriptor)
        return buildJsonObject {
            put("\$schema", "https://json-schema.org/draft/2020-12/schema")
            put("title", title)
            put("about", ABOUT)
            top.forEach { (key, value) -> put(key, value) }
            putJsonObject("\$defs") { definitions.forEach { (key, value) -> put(key, value) } }
        }
    }

    private fun schemaOf(descriptor: SerialDescriptor): JsonObject {
        val bare = when {
            descriptor.isInline -> schemaOf(descriptor.getElementDescriptor(0))
            else -> when (val kind = descriptor.kind) {
                PrimitiveKind.STRING, PrimitiveKind.CHAR -> type("string")
                PrimitiveKind.BOOLEAN -> type("boolean")
                PrimitiveKind.BYTE, PrimitiveKind.SHORT, PrimitiveKind.INT, PrimitiveKind.LONG -> type("integer")
                PrimitiveKind.FLOAT, PrimitiveKind.DOUBLE -> type("number")
                SerialKind.ENUM -> buildJsonObject {
                    putJsonArray("enum") { names(descriptor, 0 until descriptor.elementsCount).forEach { add(JsonPrimitive(it)) } }
                }
                StructureKind.LIST -> buildJsonObject {
                    put("type", "array")
                    put("items", schemaOf(descriptor.getElementDescriptor(0)))
                }
                StructureKind.MAP -> buildJsonObject {
                    put("type", "object")
                    put("additionalProperties", schemaOf(descriptor.getElementDescriptor(1)))
                }
                StructureKind.CLASS, StructureKind.OBJECT -> reference(descriptor)
                is PolymorphicKind, SerialKind.CONTEXTUAL -> JsonObject(emptyMap())
                else -> error("no schema for a ${descriptor.serialName} of kind $kind")
            }
        }
        return if (descriptor.isNullable) buildJsonObject { put("anyOf", JsonArray(listOf(bare, type("null")))) } else bare
    }

    private fun reference(descriptor: SerialDescriptor): JsonObject {
        val name = name(descriptor)
        if (name !in definitions) {
            definitions[name] = JsonObject(emptyMap()) // a class that refers to itself finds itself being defined
            val itsDefaults = defaults[name]
            definitions[name] = buildJsonObject {
                put("type", "object")
                putJsonObject("properties") {
                    (0 until descriptor.elementsCount).forEach { i ->
                        val property = descriptor.getElementName(i)
                        val schema = schemaOf(descriptor.getElementDescriptor(i))
                        val default = itsDefaults?.get(property)
                        val given = default != null && descriptor.isElementOptional(i)
                        put(property, if (given) JsonObject(schema + ("default" to default!!)) else schema)
                    }
                }
                putJsonArray("required") { requiredOf(descriptor).forEach { add(JsonPrimitive(it)) } }
                put("additionalProperties", false)
            }
        }
        return buildJsonObject { put("\$ref", "#/\$defs/$name") }
    }

    /** The optional properties' values in an instance given only its required ones, each a placeholder of its kind. */
    private fun defaultsOf(serializer: KSerializer<*>): JsonObject {
        @Suppress("UNCHECKED_CAST")
        val any = serializer as KSerializer<Any?>
        val written = everyDefault.encodeToJsonElement(any, Json.decodeFromJsonElement(any, placeholder(serializer.descriptor))).jsonObject
        val descriptor = serializer.descriptor
        val optional = (0 until descriptor.elementsCount).filter { descriptor.isElementOptional(it) }.map { descriptor.getElementName(it) }
        return JsonObject(optional.associateWith { written.getValue(it) })
    }

    private fun placeholder(descriptor: SerialDescriptor): JsonElement = when {
        descriptor.isNullable -> JsonNull
        descriptor.isInline -> placeholder(descriptor.getElementDescriptor(0))
        else -> when (descriptor.kind) {
            PrimitiveKind.STRING, PrimitiveKind.CHAR -> JsonPrimitive("")
            PrimitiveKind.BOOLEAN -> JsonPrimitive(false)
            is PrimitiveKind -> JsonPrimitive(0)
            SerialKind.ENUM -> JsonPrimitive(descriptor.getElementName(0))
            StructureKind.LIST -> buildJsonArray {}
            StructureKind.MAP -> JsonObject(emptyMap())
            StructureKind.CLASS, StructureKind.OBJECT -> buildJsonObject {
                (0 until descriptor.elementsCount).filterNot { descriptor.isElementOptional(it) }
                    .forEach { put(descriptor.getElementName(it), placeholder(descriptor.getElementDescriptor(it))) }
            }
            else -> error("no placeholder for a ${descriptor.serialName}")
        }
    }

    private fun requiredOf(descriptor: SerialDescriptor) =
        (0 until descriptor.elementsCount).filterNot { descriptor.isElementOptional(it) }.map { descriptor.getElementName(it) }

    private fun names(descriptor: SerialDescriptor, elements: Iterable<Int>) = elements.map { descriptor.getElementName(it) }

    private fun type(name: String) = buildJsonObject { put("type", name) }

    private fun name(descriptor: SerialDescriptor) = descriptor.serialName.removeSuffix("?")

    companion object {
        private val everyDefault = Json { encodeDefaults = true }
        const val ABOUT = "Generated from the Kotlin classes that write it (lab.contract.ContractSchema, held to this file by " +
            "lab.contract.ContractSchemaTest): do not edit; change the class, run its test, and copy the file it names over this one."
    }
}
