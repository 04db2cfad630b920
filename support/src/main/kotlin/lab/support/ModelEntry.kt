package lab.support

import kotlinx.serialization.Serializable

/** One way a task can wait and run, as servers.json's `models` declares it; its `fields` say what each means. */
@Serializable
data class ModelEntry(val name: String, val words: String, val what: String, val madeOf: List<String>)
