package lab.handlers

/**
 * The `native` trap without JNI: `Class.forName` is a native method, and for a class loader
 * of our own the JVM calls back into [ClassLoader.loadClass] from under that native frame.
 * Blocking in the callback blocks with a native frame on the stack, which no JDK can unmount.
 */
internal object NativeFrameBlocker {
    fun blockUnderNativeFrame(ms: Long) {
        val loader = SleepingLoader(ms, NativeFrameBlocker::class.java.classLoader)
        Class.forName(String::class.java.name, false, loader)
    }

    private class SleepingLoader(private val ms: Long, parent: ClassLoader) : ClassLoader(parent) {
        override fun loadClass(name: String, resolve: Boolean): Class<*> {
            if (ms > 0) Thread.sleep(ms)
            return super.loadClass(name, resolve)
        }
    }
}
