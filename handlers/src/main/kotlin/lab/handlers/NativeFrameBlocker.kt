package lab.handlers

/**
 * The `native` trap without JNI: `Class.forName` is a native method, and for a class loader
 * of our own the JVM calls back into [ClassLoader.loadClass] from under that native frame.
 * Blocking in the callback blocks with a native frame on the stack, which no JDK can unmount.
 */
internal object NativeFrameBlocker {
    fun blockUnderNativeFrame(ms: Long) {
        val loader = SleepingLoader(ms)
        Class.forName(String::class.java.name, false, loader)
    }

    /**
     * Its parent is the bootstrap loader, which takes no lock shared between calls: the application's loader
     * locks each class name, and a call that waited for another's lock under `Class.forName`'s native frame would pin
     * for the lock, the `-fixed` twin too, whatever the callback did.
     */
    private class SleepingLoader(private val ms: Long) : ClassLoader(null) {
        override fun loadClass(name: String, resolve: Boolean): Class<*> {
            if (ms > 0) Thread.sleep(ms)
            return super.loadClass(name, resolve)
        }
    }
}
