package lab.stub

import io.netty.bootstrap.ServerBootstrap
import io.netty.channel.Channel
import io.netty.channel.ChannelInitializer
import io.netty.channel.MultiThreadIoEventLoopGroup
import io.netty.channel.nio.NioIoHandler
import io.netty.channel.socket.SocketChannel
import io.netty.channel.socket.nio.NioServerSocketChannel
import io.netty.handler.codec.http.HttpObjectAggregator
import io.netty.handler.codec.http.HttpServerCodec
import io.netty.handler.codec.http.HttpServerKeepAliveHandler
import java.net.InetSocketAddress
import java.util.concurrent.TimeUnit

/**
 * The downstream service behind `/dashboard`. It is event-driven so that it stays cheap and
 * out of the way of the server being measured, which shares the machine with it.
 */
class StubServer(private val host: String, private val port: Int, private val latencyMs: Long) : AutoCloseable {
    val counters = StubCounters()

    // One event loop: the stub's work is timers and tiny writes.
    private val group = MultiThreadIoEventLoopGroup(1, NioIoHandler.newFactory())
    private lateinit var channel: Channel

    /** Binds and returns the port, which is the chosen one when [port] is 0. */
    fun start(): Int {
        channel = ServerBootstrap()
            .group(group)
            .channel(NioServerSocketChannel::class.java)
            .childHandler(object : ChannelInitializer<SocketChannel>() {
                override fun initChannel(ch: SocketChannel) {
                    ch.pipeline().addLast(
                        HttpServerCodec(),
                        HttpServerKeepAliveHandler(),
                        HttpObjectAggregator(64 * 1024),
                        StubHandler(latencyMs, counters),
                    )
                }
            })
            .bind(host, port).sync().channel()
        return (channel.localAddress() as InetSocketAddress).port
    }

    fun awaitClose() {
        channel.closeFuture().sync()
    }

    override fun close() {
        if (::channel.isInitialized) channel.close().sync()
        group.shutdownGracefully(0, 2, TimeUnit.SECONDS).sync()
    }
}
