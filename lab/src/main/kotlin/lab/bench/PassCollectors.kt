package lab.bench

/**
 * What a pass started to load its server (k6, the curve's generators) and to watch it (the wire, JFR, the samplers): however the
 * pass ends, each is stopped, the load first, so that no load reaches a server whose watchers are stopping, then the watchers,
 * the last started first, so that none is stopped while one started after it still reads it. Then each adds what it measured to
 * the pass's record ([PassMeasured]), in the order they started.
 */
internal class PassCollectors {
    private class Started(val name: String, val collector: AutoCloseable, val isLoad: Boolean, val adds: (PassMeasured) -> PassMeasured)

    private val started = mutableListOf<Started>()

    /** What [close] found: the record with each collector's figures, and what failed to stop or to add its figures, by name. */
    class Closed(val measured: PassMeasured, val failures: Map<String, Throwable>)

    /** Keeps the watcher [collector] to be stopped at the pass's end, when it [adds] what it measured; returns it. */
    fun <C : AutoCloseable> add(name: String, collector: C, adds: PassMeasured.(C) -> PassMeasured = { this }): C =
        keep(name, collector, isLoad = false, adds)

    /** Keeps the [load] to be stopped at the pass's end, before the watchers, when it [adds] what it measured; returns it. */
    fun <C : AutoCloseable> addLoad(name: String, load: C, adds: PassMeasured.(C) -> PassMeasured = { this }): C =
        keep(name, load, isLoad = true, adds)

    @Synchronized
    private fun <C : AutoCloseable> keep(name: String, collector: C, isLoad: Boolean, adds: PassMeasured.(C) -> PassMeasured): C {
        started += Started(name, collector, isLoad) { record -> record.adds(collector) }
        return collector
    }

    /**
     * Stops the load and then the watchers, each the last started first, and adds what each measured to [measured]; a collector
     * that fails to stop, or to give its figures, is named in [Closed.failures], not thrown, so the pass's own cleanup still runs.
     */
    @Synchronized
    fun close(measured: PassMeasured): Closed {
        val failures = mutableMapOf<String, Throwable>()
        for (s in started.filter { it.isLoad }.asReversed() + started.filterNot { it.isLoad }.asReversed()) {
            runCatching { s.collector.close() }.onFailure { failures.putIfAbsent(s.name, it) }
        }
        val record = started.fold(measured) { record, s ->
            runCatching { s.adds(record) }.onFailure { failures.putIfAbsent(s.name, it) }.getOrDefault(record)
        }
        return Closed(record, failures)
    }
}
