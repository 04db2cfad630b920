package lab.clients.probe

import lab.support.ProcView
/**
 * The platform threads of this JVM at one instant, counted as the client-threads article counts
 * them. A thread is *active* when it is alive and not interrupted, and *unparked* when its top
 * frame is not `park`: idle pool workers park, while a thread blocked in a socket read or a
 * selector does not. Virtual threads are not listed by the JDK, and cost no OS thread; their
 * carriers are, and are counted like any thread.
 */
data class ThreadCensus(
    /** Every live platform thread the JDK lists. */
    val active: Int,
    val activeUnparked: Int,
    /** Live threads that did not exist at [take]'s `before`. */
    val activeNew: Int,
    /** The article's figure: new, live, and not parked. */
    val activeUnparkedNew: Int,
    /** The unparked new threads by name, digits replaced by `#`: what is doing the waiting. */
    val unparkedNewByName: Map<String, Int>,
    /** The OS's count for the process (`Threads:` in /proc/self/status): the JVM's own threads too. */
    val osThreads: Int?,
) {
    companion object {
        fun take(before: Set<Long>): ThreadCensus {
            val active = Thread.getAllStackTraces().filter { (thread, _) -> thread.isAlive && !thread.isInterrupted }
            val unparked = active.filter { (_, stack) -> stack.firstOrNull()?.methodName != "park" }.keys
            val unparkedNew = unparked.filter { it.threadId() !in before }
            return ThreadCensus(
                active = active.size,
                activeUnparked = unparked.size,
                activeNew = active.keys.count { it.threadId() !in before },
                activeUnparkedNew = unparkedNew.size,
                unparkedNewByName = unparkedNew.groupingBy { nameGroup(it.name) }.eachCount().toSortedMap(),
                osThreads = ProcView.self().threads(),
            )
        }

        /** The ids of the live platform threads: the baseline a census counts new threads against. */
        fun liveIds(): Set<Long> = Thread.getAllStackTraces().keys.filter { it.isAlive }.map { it.threadId() }.toSet()

        /** Live threads not in [before], by name group. */
        fun newSince(before: Set<Long>): List<String> =
            Thread.getAllStackTraces().keys.filter { it.isAlive && it.threadId() !in before }.map { it.name }.sorted()

        fun nameGroup(name: String) = name.replace(Regex("[0-9]+"), "#")
    }
}
