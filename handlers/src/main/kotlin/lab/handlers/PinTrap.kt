package lab.handlers

import java.util.concurrent.locks.ReentrantLock
import kotlin.concurrent.withLock

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
 * The pitfall: none of these look like blocking code in a review. Each trap has a `-fixed`
 * twin that does the same blocking the way that does not pin ([fix] says how in one line), so
 * an audit shows the difference on the same server and JDK.
 *
 * Run one: `curl 127.0.0.1:8080/pin/lazy?ms=50` against a server, with JFR's
 * `jdk.VirtualThreadPinned` event enabled (`make audit-pinning` does both).
 */
enum class PinTrap(
    val slug: String,
    /** The first JDK feature release on which this trap no longer pins; null if none does yet. */
    private val unpinnedFromJdk: Int?,
    /** For a trap, how to avoid it, in one line; for a `-fixed` twin, the trap it fixes. */
    val fix: String,
) {
    SYNCHRONIZED(
        "synchronized",
        unpinnedFromJdk = 24,
        fix = "block under a java.util.concurrent lock (ReentrantLock) or a coroutine Mutex, not a monitor",
    ) {
        override fun spring(ms: Long) {
            // A lock of its own per call: the trap shows pinning, not contention.
            val lock = Any()
            synchronized(lock) { Thread.sleep(ms) }
        }
    },
    LAZY("lazy", unpinnedFromJdk = 24, fix = "use lazy(LazyThreadSafetyMode.PUBLICATION), or compute the value before serving") {
        override fun spring(ms: Long) {
            val value by lazy {
                Thread.sleep(ms)
                ms
            }
            check(value == ms)
        }
    },
    CLASS_INIT("class-init", unpinnedFromJdk = null, fix = "keep blocking work out of static initializers; initialize at startup") {
        override fun spring(ms: Long) = SlowInitializer.initializeFresh(ms)
    },
    NATIVE("native", unpinnedFromJdk = null, fix = "block before or after the native call, never in a callback from it") {
        override fun spring(ms: Long) = NativeFrameBlocker.blockUnderNativeFrame(ms)
    },

    // The same blocking, done the way that does not pin (on any JDK the lab runs: 21 and later).
    SYNCHRONIZED_FIXED("synchronized-fixed", unpinnedFromJdk = FIXED, fix = "synchronized") {
        override fun spring(ms: Long) {
            // A java.util.concurrent lock parks a virtual thread that waits for it; it holds no monitor.
            val lock = ReentrantLock()
            lock.withLock { Thread.sleep(ms) }
        }
    },
    LAZY_FIXED("lazy-fixed", unpinnedFromJdk = FIXED, fix = "lazy") {
        override fun spring(ms: Long) {
            // PUBLICATION takes no lock: racing initializers may both run, and the first result wins.
            val value by lazy(LazyThreadSafetyMode.PUBLICATION) {
                Thread.sleep(ms)
                ms
            }
            check(value == ms)
        }
    },
    CLASS_INIT_FIXED("class-init-fixed", unpinnedFromJdk = FIXED, fix = "class-init") {
        // The class initializes with the traps, before serving (initializeBeforeServing); a call uses it and waits, in plain
        // code. Defining a class under a call, even one whose initializer waits for nothing, is no fix: concurrent calls
        // contend for the class loader's locks under defineClass's native frame, which pins on JDK 21 and 25.
        init {
            SleepingInClinit.touch()
        }

        override fun spring(ms: Long) {
            SleepingInClinit.touch()
            Thread.sleep(ms)
        }
    },
    NATIVE_FIXED("native-fixed", unpinnedFromJdk = FIXED, fix = "native") {
        override fun spring(ms: Long) {
            // The same native call, with the blocking moved out of the callback it makes.
            Thread.sleep(ms)
            NativeFrameBlocker.blockUnderNativeFrame(NO_WAIT)
        }
    },
    ;

    /** Blocks the calling thread for [ms] in this trap's way. Call it from a blocking context. */
    abstract fun spring(ms: Long)

    /** Whether a virtual thread springing this trap pins its carrier on JDK [jdkFeature] (21 or later). */
    fun pinsOn(jdkFeature: Int): Boolean = unpinnedFromJdk == null || jdkFeature < unpinnedFromJdk

    /** A `-fixed` twin: the safe version of the trap named in [fix]. */
    val isFixed: Boolean get() = unpinnedFromJdk == FIXED

    companion object {
        /** Longer than the 20 ms pinning threshold of a bench, so every sprung trap is recorded. */
        const val DEFAULT_BLOCK_MS = 50L

        fun bySlug(slug: String): PinTrap? = entries.firstOrNull { it.slug == slug }

        /**
         * Initializes the traps, and with them the class `class-init-fixed` uses, on the calling thread: a server calls it
         * before serving. A class that initializes under concurrent requests makes virtual threads wait for it, pinned on
         * JDK 21 and 25, so `class-init-fixed` is the fix it names only if that happened first. Reaching this companion runs
         * PinTrap's static initializer, which builds every entry; there is nothing left to do here.
         */
        fun initializeBeforeServing() = Unit
    }
}

// Outside the enum: its entries' arguments cannot read its companion, which initializes after them.

/** A `-fixed` twin pins from no JDK on: it is "unpinned" from before the first the lab runs. */
private const val FIXED = 0

/** The blocking a fixed twin leaves inside the initializer or callback: none. */
private const val NO_WAIT = 0L
