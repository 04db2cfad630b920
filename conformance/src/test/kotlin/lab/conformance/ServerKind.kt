package lab.conformance

/** The three servers under test, by the module that builds each. */
enum class ServerKind(val model: String) {
    COROUTINE("coroutine"),
    VTHREAD("vthread"),
    PLATFORM("platform"),
    ;

    val module: String get() = "$model-server"

    fun start(vararg args: String, jvmOptions: List<String> = emptyList()): LabProcess = LabProcess.start(
        module,
        *args,
        jvmOptions = jvmOptions,
    )
}
