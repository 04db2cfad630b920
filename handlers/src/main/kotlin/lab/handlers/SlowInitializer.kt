package lab.handlers

import java.util.concurrent.atomic.AtomicLong

/**
 * The `class-init` trap. A class initializes only once per class loader, so each call loads
 * [SleepingInClinit] afresh in a throwaway loader; its static initializer then blocks.
 */
internal object SlowInitializer {
    private val blockMs = ThreadLocal<Long>()
    private val loads = AtomicLong()

    fun initializeFresh(ms: Long) {
        blockMs.set(ms)
        try {
            val loader = ChildFirstLoader(SleepingInClinit::class.java)
            val fresh = loader.loadClass(SleepingInClinit::class.java.name)
            // Reflection (not Class.forName) runs the initializer from Java frames only,
            // so this trap pins for the initializer alone and not also for a native frame.
            fresh.getMethod("touch").invoke(null)
            loads.incrementAndGet()
        } finally {
            blockMs.remove()
        }
    }

    /** Called from [SleepingInClinit]'s static initializer in the throwaway loader. */
    @JvmStatic
    fun sleepInInitializer() {
        // Not even a sleep(0) when there is nothing to wait for: on a virtual thread it yields.
        val ms = blockMs.get() ?: 0L
        if (ms > 0) Thread.sleep(ms)
    }

    /** Defines one class from its own bytes; everything else comes from the parent. */
    private class ChildFirstLoader(private val isolated: Class<*>) : ClassLoader(isolated.classLoader) {
        override fun loadClass(name: String, resolve: Boolean): Class<*> {
            if (name != isolated.name) return super.loadClass(name, resolve)
            synchronized(getClassLoadingLock(name)) {
                findLoadedClass(name)?.let { return it }
                val resource = isolated.name.replace('.', '/') + ".class"
                val bytes = isolated.classLoader.getResourceAsStream(resource)!!.use { it.readBytes() }
                return defineClass(name, bytes, 0, bytes.size)
            }
        }
    }
}

/** Its static initializer blocks; see [SlowInitializer]. Public so reflection can reach it. */
object SleepingInClinit {
    init {
        SlowInitializer.sleepInInitializer()
    }

    @JvmStatic
    fun touch() = Unit
}
