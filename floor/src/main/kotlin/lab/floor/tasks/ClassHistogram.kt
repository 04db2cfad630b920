package lab.floor.tasks

/**
 * The live heap, exactly: `GC.class_histogram` first runs a full collection (ZGC, which cannot
 * collect inside the VM operation, runs a synchronous cycle just before it), then walks the objects
 * reachable from the roots and totals their bytes. Unlike heap used after a GC, no garbage and
 * no free space in a region is counted.
 */
object ClassHistogram {
    /** Forces a full GC and returns the bytes of every live object. */
    fun liveBytes(): Long = totalBytes(DiagnosticCommand.run("gcClassHistogram"))

    /** The byte total of a histogram's last line, `Total <instances> <bytes>`. */
    fun totalBytes(histogram: String): Long {
        val total = histogram.lineSequence().map { it.trim() }.lastOrNull { it.startsWith("Total") }
            ?: throw IllegalStateException("a class histogram with no Total line: ${histogram.take(200)}")
        return total.split(Regex("\\s+"))[2].toLong()
    }
}
