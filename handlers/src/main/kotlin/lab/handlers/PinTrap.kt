package lab.handlers

/**
 * The pinning traps: code that blocks while a virtual thread cannot unmount from its
 * carrier, so the carrier (one of only as many as there are cores) blocks too.
 *
 * What each shows, and on which JDK (JEP 491, in JDK 24, lifted the `synchronized` cases):
 *
 * | trap | blocks while | pins on JDK 21 | pins on JDK 24+ |
 * |---|---|---|---|
 * | `synchronized` | holding a monitor | yes | no |
 * | `lazy` | inside Kotlin's default `by lazy`, which is a `synchronized` block | yes | no |
 * | `class-init` | running a class initializer | yes | yes |
 * | `native` | a native frame is on the stack (a class loader called back from `Class.forName`) | yes | yes |
 *
 * The pitfall: none of these look like blocking code in a review. The fix for the first two
 * is a `ReentrantLock` (or a coroutine `Mutex`); for the last two it is to keep blocking
 * work out of initializers and native callbacks.
 *
 * Run one: `curl 127.0.0.1:8080/pin/lazy?ms=50` against a server, with JFR's
 * `jdk.VirtualThreadPinned` event enabled (`make audit-pinning` does both).
 */
enum class PinTrap(
    val slug: String,
    /** The first JDK feature release on which this trap no longer pins; null if none does yet. */
    private val unpinnedFromJdk: Int?,
) {
    SYNCHRONIZED("synchronized", unpinnedFromJdk = 24) {
        override fun spring(ms: Long) {
            // A lock of its own per call: the trap shows pinning, not contention.
            val lock = Any()
            synchronized(lock) { Thread.sleep(ms) }
        }
    },
    LAZY("lazy", unpinnedFromJdk = 24) {
        override fun spring(ms: Long) {
            val value by lazy {
                Thread.sleep(ms)
                ms
            }
            check(value == ms)
        }
    },
    CLASS_INIT("class-init", unpinnedFromJdk = null) {
        override fun spring(ms: Long) = SlowInitializer.initializeFresh(ms)
    },
    NATIVE("native", unpinnedFromJdk = null) {
        override fun spring(ms: Long) = NativeFrameBlocker.blockUnderNativeFrame(ms)
    },
    ;

    /** Blocks the calling thread for [ms] in this trap's way. Call it from a blocking context. */
    abstract fun spring(ms: Long)

    /** Whether a virtual thread springing this trap pins its carrier on JDK [jdkFeature] (21 or later). */
    fun pinsOn(jdkFeature: Int): Boolean = unpinnedFromJdk == null || jdkFeature < unpinnedFromJdk

    companion object {
        /** Longer than the 20 ms pinning threshold of a bench, so every sprung trap is recorded. */
        const val DEFAULT_BLOCK_MS = 50L

        fun bySlug(slug: String): PinTrap? = entries.firstOrNull { it.slug == slug }
    }
}
