package lab.handlers

/**
 * What a request asks for, after the core has parsed and validated it.
 *
 * Servers turn a request into an [Endpoint] with [Router.route] and then only decide *how*
 * to run it on their thread model (sleep or suspend, which HTTP client, which thread).
 * Every `what` is decided here, once.
 */
sealed interface Endpoint {
    data object Health : Endpoint

    data object Hello : Endpoint

    data class Dashboard(val userId: String) : Endpoint

    data class Delay(val ms: Long) : Endpoint

    data class Cpu(val iterations: Int) : Endpoint

    data class Bytes(val size: Long) : Endpoint

    data class Pin(val trap: PinTrap, val ms: Long) : Endpoint

    data object Stats : Endpoint

    /** `/ws` reached without an upgrade: the WebSocket route itself lives in each server. */
    data object WebSocketWithoutUpgrade : Endpoint

    /** Bad input: the answer is already decided. */
    data class Rejected(val reply: Reply) : Endpoint
}
