package lab.support

import java.io.File
import java.io.IOException
import java.io.OutputStream
import java.nio.file.Files
import java.nio.file.StandardCopyOption

/**
 * Writes [target] through a temporary `<name>.part` beside it, moved into place only once
 * [write] has returned, so that [target] is never left half-written under its own name: a
 * reader that finds it may trust it whole. A failed write throws [IllegalStateException]
 * naming the part file, and leaves neither file behind.
 */
fun writeAtomically(target: File, write: (OutputStream) -> Unit) {
    val part = File(target.parentFile, "${target.name}.part")
    try {
        try {
            part.outputStream().buffered(1 shl 16).use(write)
        } catch (e: IOException) {
            throw IllegalStateException("cannot write $part: ${e.message}", e)
        }
        Files.move(part.toPath(), target.toPath(), StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE)
    } finally {
        part.delete()
    }
}
