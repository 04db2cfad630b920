package lab.support

import kotlinx.serialization.Serializable
import kotlinx.serialization.json.Json

/**
 * The lab's servers, from `servers.json` at the repository root (packed into this module's jar,
 * so a harness shipped without the repository reads the list its jars were built with). Every
 * program that runs servers takes its list, its jars and its facts about them from here.
 */
object Catalogue {
    private val declaration: Declaration by lazy {
        val text = Catalogue::class.java.getResource("/servers.json")?.readText()
            ?: error("servers.json is not on the classpath: rebuild with `make build`")
        read(text)
    }

    val servers: List<ServerEntry> get() = declaration.servers

    /** The ways a task can wait and run, which the lab compares, in servers.json's order. */
    val models: List<ModelEntry> get() = declaration.models

    /** Each engine, by the name servers give as theirs, with what the lab changed in it. */
    val engines: Map<String, EngineEntry> get() = declaration.engines

    /** The engines [servers] run on, as a run's manifest records them. */
    fun enginesOf(
        servers: List<ServerEntry>,
    ): Map<String, EngineEntry> = engines.filterKeys { engine -> servers.any { it.engine == engine } }

    val names: List<String> get() = servers.map { it.name }

    fun named(name: String): ServerEntry = servers.firstOrNull { it.name == name } ?: throw UnknownServer(name)

    /**
     * A server or an arm, as a command line writes it: `server`, `server:change+change` or `server:all` (every change of its
     * engine left out), where an alternative named runs in place of its change ([ServerEntry.arm]). A server or change
     * servers.json does not declare is refused by name.
     */
    fun arm(text: String): ServerEntry {
        val (name, changes) = text.trim().split(':', limit = 2).let { it[0].trim() to it.getOrNull(1) }
        val server = named(name)
        val chosen = EngineChanges.parse(server.engine, changes.orEmpty().replace('+', ','))
        val engine = engines[server.engine]
        val declared = engine?.changes?.map { it.name }.orEmpty()
        // The engine's order, so that one arm has one name however its changes were listed.
        return server.arm(
            leftOut = declared.filter { it in chosen.asShipped },
            alternatives = engine?.alternatives.orEmpty().filter { it.name in chosen.alternatives }.associate { it.name to it.insteadOf },
            everyChange = chosen.asShipped.size == declared.size && chosen.alternatives.isEmpty(),
        )
    }

    /** Reads and checks a catalogue's text: a typo fails here, before any server starts. */
    fun parse(text: String): List<ServerEntry> = read(text).servers

    private fun read(text: String): Declaration {
        val declaration = Json.decodeFromString(Declaration.serializer(), text)
        val servers = declaration.servers
        require(servers.isNotEmpty()) { "servers.json declares no server" }
        servers.groupBy { it.name }.filterValues { it.size > 1 }.keys.firstOrNull()?.let {
            throw IllegalArgumentException("servers.json declares $it twice")
        }
        val models = declaration.models.map { it.name }
        require(models.isNotEmpty() && models.toSet().size == models.size) { "servers.json must declare its models, each once: $models" }
        for (model in declaration.models) {
            require(model.madeOf.all { it in models && it != model.name }) {
                "servers.json: model ${model.name} is made of ${model.madeOf.joinToString()}, which must be other models it declares"
            }
        }
        for (s in servers) {
            require(s.name.matches(NAME)) { "servers.json: name '${s.name}' must be lowercase letters, digits and dashes" }
            require(s.model in models) { "servers.json: ${s.name}'s model '${s.model}' is none of ${models.joinToString()}" }
            require(s.engine.matches(NAME)) {
                "servers.json: ${s.name}'s engine '${s.engine}' must be lowercase letters, digits and dashes"
            }
            s.formerNames.firstOrNull { former -> servers.any { it.name == former } }?.let {
                throw IllegalArgumentException("servers.json: ${s.name}'s former name $it is another server's name")
            }
            require(s.jar.startsWith("${s.module}/")) { "servers.json: ${s.name}'s jar ${s.jar} is not in its module ${s.module}" }
            require(s.engine in declaration.engines) { "servers.json: ${s.name}'s engine ${s.engine} is not under engines" }
        }
        for ((engine, entry) in declaration.engines) {
            (entry.changes.map { it.name } + entry.alternatives.map { it.name }).firstOrNull { !it.isChangeName() }?.let {
                throw IllegalArgumentException(
                    "servers.json: engine $engine's change '$it' must be lowercase words joined by dashes, " +
                        "none of them 'and', 'with' or 'without', and not '${EngineChanges.ALL}' (an arm's name is made of them)",
                )
            }
            entry.changes.groupBy { it.name }.filterValues { it.size > 1 }.keys.firstOrNull()?.let {
                throw IllegalArgumentException("servers.json: engine $engine declares the change $it twice")
            }
            entry.changes.firstOrNull { it.kind !in EngineEntry.KINDS }?.let {
                throw IllegalArgumentException(
                    "servers.json: engine $engine's change ${it.name} has kind '${it.kind}', not one of ${EngineEntry.KINDS}",
                )
            }
            for (alternative in entry.alternatives) {
                require(
                    entry.changes.none {
                        it.name == alternative.name
                    } && entry.alternatives.count { it.name == alternative.name } == 1,
                ) {
                    "servers.json: engine $engine declares ${alternative.name} twice"
                }
                require(alternative.insteadOf == null || entry.changes.any { it.name == alternative.insteadOf }) {
                    "servers.json: engine $engine's alternative ${alternative.name} is instead of ${alternative.insteadOf}, which it does not declare"
                }
                require(alternative.kind in EngineEntry.KINDS) {
                    "servers.json: engine $engine's alternative ${alternative.name} has kind '${alternative.kind}', not one of ${EngineEntry.KINDS}"
                }
            }
        }
        return declaration
    }

    private val NAME = Regex("[a-z][a-z0-9-]*")

    /** A change's name, which an arm's name (`server-without-a-and-b-with-c`) must still be read back from. */
    private fun String.isChangeName() =
        matches(NAME) && this != EngineChanges.ALL && split('-').none { it in listOf("and", "with", "without") }

    /** The file's shape; `about` and `fields` document it for a reader. */
    @Serializable
    private class Declaration(
        val about: String,
        val fields: Map<String, String>,
        val models: List<ModelEntry>,
        val engines: Map<String, EngineEntry>,
        val servers: List<ServerEntry>,
    )
}

/** A server name the catalogue does not declare; a former name is answered with the server's name now. */
class UnknownServer(name: String) : IllegalArgumentException(
    Catalogue.servers.firstOrNull { name in it.formerNames }
        ?.let { "server $name is called ${it.name} since 2026-11-29: use that name" }
        ?: "unknown server $name; choose from ${Catalogue.names.joinToString()}",
)
