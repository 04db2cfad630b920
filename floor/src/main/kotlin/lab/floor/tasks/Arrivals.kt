package lab.floor.tasks

import java.util.concurrent.atomic.AtomicInteger

/** How many tasks reached their park: counted just before each parks, so a step waits until all of its tasks have. */
internal class Arrivals {
    private val count = AtomicInteger()

    fun one() {
        count.incrementAndGet()
    }

    val total: Int get() = count.get()
}
