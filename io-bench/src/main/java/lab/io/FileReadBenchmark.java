package lab.io;

import java.io.File;
import java.io.FileInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
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
 * What a whole-file read costs through each API: one op reads the whole file, {@code sizeBytes} (128 MiB by
 * default, as in the 2021 article), 64 KiB at a time into a reused buffer.
 *
 * <p>The pitfall the article reported: Ktor's {@code File.readChannel()} took 1240 ms where an
 * {@code InputStream} took 58 ms (Ktor 1.x). {@link #inputStream} is the baseline; {@link #fileChannel} is
 * NIO's route; {@link #virtualThread} is the stream read on a virtual thread, as a Loom server would do it.
 *
 * <p>The file is written once per trial and stays in the page cache, so every op, the first included,
 * reads from memory: this compares the APIs' costs, not the disk (the article's repeated reads were cached
 * too). Each op counts its bytes and throws unless it read exactly {@code sizeBytes}.
 *
 * <p>Run: {@code make io-bench}, or {@code java -jar io-bench/target/io-bench.jar --out DIR --only FileRead}.
 */
@BenchmarkMode(Mode.SingleShotTime)
@OutputTimeUnit(TimeUnit.MILLISECONDS)
@State(Scope.Benchmark)
public class FileReadBenchmark {
    /** Bytes in the file; a test passes a small size. */
    @Param("134217728")
    public long sizeBytes;

    private Path dir;
    private Path file;
    private byte[] buffer;
    /** Direct, so the channel reads straight into it: a heap buffer would add a copy through a hidden direct one. */
    private ByteBuffer directBuffer;

    @Setup(Level.Trial)
    public void createFile() throws IOException {
        dir = Files.createTempDirectory("io-bench-");
        file = PatternFile.create(dir.resolve("pattern.bin"), sizeBytes);
        // A failing op ends the fork without the trial's teardown: the exit hook still removes the file (then the folder).
        dir.toFile().deleteOnExit();
        file.toFile().deleteOnExit();
        buffer = new byte[Chunks.SIZE_BYTES];
        directBuffer = ByteBuffer.allocateDirect(Chunks.SIZE_BYTES);
    }

    @TearDown(Level.Trial)
    public void deleteFile() throws IOException {
        Files.deleteIfExists(file);
        Files.deleteIfExists(dir);
    }

    /** Ktor's {@code File.readChannel()} drained with {@code readAvailable}: the article's slow case. */
    @Benchmark
    public long ktorChannel() {
        return verified(KtorFileRead.readAll(file.toFile(), buffer));
    }

    /** A plain {@code FileInputStream}, unbuffered (the 64 KiB reads need no second buffer): the baseline. */
    @Benchmark
    public long inputStream() throws IOException {
        return verified(readStream());
    }

    /** A blocking NIO {@code FileChannel} into a reused direct buffer. */
    @Benchmark
    public long fileChannel() throws IOException {
        long readBytes = 0;
        try (FileChannel channel = FileChannel.open(file, StandardOpenOption.READ)) {
            while (true) {
                directBuffer.clear();
                int count = channel.read(directBuffer);
                if (count < 0) break;
                readBytes += count;
            }
        }
        return verified(readBytes);
    }

    /** {@link #inputStream}'s code on a new virtual thread that this thread joins. */
    @Benchmark
    public long virtualThread() throws Exception {
        return verified(VirtualThreadCall.join(this::readStream));
    }

    private long readStream() throws IOException {
        long readBytes = 0;
        try (InputStream stream = new FileInputStream(file.toFile())) {
            while (true) {
                int count = stream.read(buffer, 0, buffer.length);
                if (count < 0) break;
                readBytes += count;
            }
        }
        return readBytes;
    }

    private long verified(long readBytes) {
        if (readBytes != sizeBytes) {
            throw new IllegalStateException("read " + readBytes + " bytes, expected " + sizeBytes);
        }
        return readBytes;
    }
}
