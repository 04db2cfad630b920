package lab.io;

import io.ktor.network.selector.SelectorManager;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.nio.channels.SocketChannel;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;

/**
 * What a bulk socket write costs through each API: one op connects to a loopback drain, writes
 * {@code sizeBytes} (128 MiB by default, as in the 2021 article) as the same 64 KiB chunks, and closes.
 *
 * <p>The pitfall the article reported: a Ktor raw socket took 675 ms where a JVM socket took 88 ms
 * (Ktor 1.x). {@link #blockingSocketPlatform} is the baseline; {@link #blockingSocketVirtual} runs the same
 * code on a virtual thread; {@link #nioSocketChannel} is NIO's blocking route.
 *
 * <p>An op ends only when the {@link LoopbackDrain} has read the connection to its end and counted exactly
 * {@code sizeBytes}, so the time includes every byte arriving, not just the kernel accepting it; the op
 * throws otherwise. The drain runs in the same JVM (on loopback that is the honest setup: the other end
 * costs the same for every variant), on its own platform thread.
 *
 * <p>Run: {@code make io-bench}, or {@code java -jar io-bench/target/io-bench.jar --out DIR --only SocketWrite}.
 */
@BenchmarkMode(Mode.SingleShotTime)
@OutputTimeUnit(TimeUnit.MILLISECONDS)
@State(Scope.Benchmark)
public class SocketWriteBenchmark {
    /** Bytes per connection; a test passes a small size. */
    @Param("134217728")
    public long sizeBytes;

    private LoopbackDrain drain;
    private SelectorManager selector;
    private byte[] chunk;
    /** Direct, so the channel writes straight from it: a heap buffer would add a copy through a hidden direct one. */
    private ByteBuffer directChunk;

    @Setup(Level.Trial)
    public void startDrain() {
        drain = new LoopbackDrain();
        selector = KtorSocketWrite.newSelector();
        chunk = Chunks.pattern();
        directChunk = ByteBuffer.allocateDirect(chunk.length).put(chunk).flip();
    }

    @TearDown(Level.Trial)
    public void stopDrain() throws IOException {
        selector.close();
        drain.close();
    }

    /** A Ktor raw TCP socket, {@code openWriteChannel(autoFlush = false)}, {@code writeFully} per chunk. */
    @Benchmark
    public long ktorSocket() {
        int localPort = KtorSocketWrite.writeAll(selector, LoopbackDrain.HOST, drain.getPort(), chunk, sizeBytes);
        return drain.awaitExactly(localPort, sizeBytes);
    }

    /** A blocking {@code java.net.Socket} on the benchmark's platform thread: the baseline. */
    @Benchmark
    public long blockingSocketPlatform() throws IOException {
        return drain.awaitExactly(writeBlocking(), sizeBytes);
    }

    /** {@link #blockingSocketPlatform}'s code on a new virtual thread that this thread joins. */
    @Benchmark
    public long blockingSocketVirtual() throws Exception {
        return drain.awaitExactly(VirtualThreadCall.join(this::writeBlocking), sizeBytes);
    }

    /** A blocking-mode NIO {@code SocketChannel} writing from a direct buffer. */
    @Benchmark
    public long nioSocketChannel() throws IOException {
        int localPort;
        try (SocketChannel channel = SocketChannel.open(new InetSocketAddress(LoopbackDrain.HOST, drain.getPort()))) {
            localPort = ((InetSocketAddress) channel.getLocalAddress()).getPort();
            long remainingBytes = sizeBytes;
            while (remainingBytes > 0) {
                int lengthBytes = (int) Math.min(directChunk.capacity(), remainingBytes);
                directChunk.clear().limit(lengthBytes);
                while (directChunk.hasRemaining()) channel.write(directChunk);
                remainingBytes -= lengthBytes;
            }
        }
        return drain.awaitExactly(localPort, sizeBytes);
    }

    /** Writes {@code sizeBytes} through a blocking socket and returns its local port, for the drain. */
    private int writeBlocking() throws IOException {
        try (Socket socket = new Socket(LoopbackDrain.HOST, drain.getPort())) {
            OutputStream output = socket.getOutputStream();
            long remainingBytes = sizeBytes;
            while (remainingBytes > 0) {
                int lengthBytes = (int) Math.min(chunk.length, remainingBytes);
                output.write(chunk, 0, lengthBytes);
                remainingBytes -= lengthBytes;
            }
            return socket.getLocalPort();
        }
    }
}
