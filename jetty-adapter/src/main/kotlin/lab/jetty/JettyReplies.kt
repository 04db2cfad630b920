package lab.jetty

import lab.handlers.Reply
import org.eclipse.jetty.http.HttpHeader
import org.eclipse.jetty.server.Response
import org.eclipse.jetty.util.Callback
import java.nio.ByteBuffer

/** Copies a core [Reply] onto a Jetty response, completing [callback] when it is written. */
internal fun Response.send(reply: Reply, callback: Callback) {
    status = reply.status
    headers.put(HttpHeader.CONTENT_TYPE, reply.contentType)
    headers.put(HttpHeader.CONTENT_LENGTH, reply.body.size.toLong())
    reply.headers.forEach { (name, value) -> headers.add(name, value) }
    write(true, ByteBuffer.wrap(reply.body), callback)
}
