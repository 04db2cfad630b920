package lab.jetty

import lab.handlers.WebSocketHandshake
import org.eclipse.jetty.server.Handler
import org.eclipse.jetty.server.Request
import org.eclipse.jetty.server.Response
import org.eclipse.jetty.util.Callback

/**
 * Refuses a bad WebSocket handshake with the core's answer before Jetty's upgrade handler sees
 * it, so the Jetty servers refuse one exactly as the Ktor server does. Jetty's own refusal of a
 * version it does not speak is a 426 without the `Sec-WebSocket-Version` header RFC 6455 4.4
 * requires.
 */
internal class HandshakeCheck(upgrades: Handler) : Handler.Wrapper(upgrades) {
    override fun handle(request: Request, response: Response, callback: Callback): Boolean {
        val version = request.connectionMetaData.httpVersion.asString()
        val refusal = WebSocketHandshake.refusal(request.httpURI.path, version) { request.headers[it] }
            ?: return super.handle(request, response, callback)
        response.send(refusal, callback)
        return true
    }
}
