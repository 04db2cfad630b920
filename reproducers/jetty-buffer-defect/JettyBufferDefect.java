import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

import org.eclipse.jetty.http.HttpStatus;
import org.eclipse.jetty.io.Content;
import org.eclipse.jetty.server.ConnectionFactory;
import org.eclipse.jetty.server.Handler;
import org.eclipse.jetty.server.HttpConfiguration;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.ServerConnector;
import org.eclipse.jetty.util.Callback;
import org.eclipse.jetty.util.Jetty;

/**
 * A bad request on one connection corrupts a well-formed request on another, in Jetty 12.1.
 *
 * A plain Jetty server (default configuration, one connector on loopback, a handler that answers
 * "ok") takes N rounds of one client pattern: a request whose header is over the server's limit
 * (64 KB, against the default 8 KB), on a connection of its own, then a well-formed
 * {@code GET /health} on one kept-alive connection. Every GET should be answered 200 "ok". The
 * program prints each one that was not, and how many.
 *
 * <pre>
 * java -cp "$(cat jetty-12.1.14.classpath)" JettyBufferDefect.java [--rounds 3000] [--lock]
 * </pre>
 *
 * {@code --lock} serializes each connection's {@code onFillable} (SerialFills.java), the lab's
 * workaround; it needs a Jetty whose {@code HttpConnection} the lab's code was written against
 * (12.1).
 */
public class JettyBufferDefect {
    static final int OVERSIZE_BYTES = 64 * 1024;
    static final int READ_TIMEOUT_MS = 2_000;

    public static void main(String[] args) throws Exception {
        int rounds = 3_000;
        boolean lock = false;
        for (int i = 0; i < args.length; i++) {
            switch (args[i]) {
                case "--rounds" -> rounds = Integer.parseInt(args[++i]);
                case "--lock" -> lock = true;
                default -> {
                    System.err.println("JettyBufferDefect: unknown argument " + args[i] + "; use [--rounds N] [--lock]");
                    System.exit(2);
                }
            }
        }
        Server server = new Server();
        ServerConnector connector = lock
            ? new ServerConnector(server, (ConnectionFactory) Class.forName("SerialFills").getConstructor(HttpConfiguration.class).newInstance(new HttpConfiguration()))
            : new ServerConnector(server);
        connector.setHost("127.0.0.1");
        connector.setPort(0);
        server.addConnector(connector);
        server.setHandler(new Handler.Abstract() {
            @Override
            public boolean handle(Request request, Response response, Callback callback) {
                response.setStatus(HttpStatus.OK_200);
                Content.Sink.write(response, true, "ok", callback);
                return true;
            }
        });
        server.start();
        try {
            List<String> wrong = run(connector.getLocalPort(), rounds);
            for (String w : wrong) System.out.println(w);
            System.out.printf("Jetty %s%s: %d wrong answers to a well-formed GET in %d rounds%n",
                Jetty.VERSION, lock ? " with the fill lock" : "", wrong.size(), rounds);
        } finally {
            server.stop();
        }
    }

    static List<String> run(int port, int rounds) throws IOException {
        String host = "127.0.0.1:" + port;
        byte[] oversize = ("GET /bad-neighbour HTTP/1.1\r\nHost: " + host + "\r\nX-Big: " + "x".repeat(OVERSIZE_BYTES) + "\r\n\r\n")
            .getBytes(StandardCharsets.US_ASCII);
        byte[] health = ("GET /health HTTP/1.1\r\nHost: " + host + "\r\n\r\n").getBytes(StandardCharsets.US_ASCII);
        List<String> wrong = new ArrayList<>();
        Socket kept = open(port);
        for (int round = 0; round < rounds; round++) {
            try (Socket bad = open(port)) {
                bad.getOutputStream().write(oversize);
                readAnswer(bad.getInputStream());
            } catch (IOException e) {
                // The server may answer and close before it has read all of it: only the other connection is under test.
            }
            String answer;
            try {
                OutputStream out = kept.getOutputStream();
                out.write(health);
                out.flush();
                answer = readAnswer(kept.getInputStream());
            } catch (SocketTimeoutException e) {
                answer = "no answer within " + READ_TIMEOUT_MS + " ms";
            } catch (IOException e) {
                answer = "connection failed: " + e.getMessage();
            }
            if (!answer.equals("200 ok")) {
                wrong.add("round " + round + ": " + shortened(answer));
                kept.close();
                kept = open(port);
            }
        }
        kept.close();
        return wrong;
    }

    /** An answer on one line, at most 160 characters: an error page's title is enough to tell whose answer it was. */
    static String shortened(String answer) {
        String line = answer.replaceAll("\\s+", " ");
        return line.length() <= 160 ? line : line.substring(0, 160) + "...";
    }

    static Socket open(int port) throws IOException {
        Socket socket = new Socket(InetAddress.getLoopbackAddress(), port);
        socket.setSoTimeout(READ_TIMEOUT_MS);
        socket.setTcpNoDelay(true);
        return socket;
    }

    /** One answer's status and body ("200 ok"), or what came instead: a closed connection, or a head that is no answer. */
    static String readAnswer(InputStream in) throws IOException {
        String head = readHead(in);
        if (head == null) return "connection closed";
        String[] lines = head.split("\r\n");
        String[] status = lines[0].split(" ", 3);
        if (status.length < 2 || !status[0].startsWith("HTTP/")) return "not an answer: " + lines[0];
        int length = 0;
        for (String line : lines) {
            if (line.toLowerCase().startsWith("content-length:")) length = Integer.parseInt(line.substring(15).trim());
        }
        byte[] body = in.readNBytes(length);
        return status[1] + " " + new String(body, StandardCharsets.US_ASCII);
    }

    static String readHead(InputStream in) throws IOException {
        ByteArrayOutputStream head = new ByteArrayOutputStream();
        int matched = 0;
        while (matched < 4) {
            int b = in.read();
            if (b < 0) return head.size() == 0 ? null : head.toString(StandardCharsets.US_ASCII);
            head.write(b);
            matched = (b == "\r\n\r\n".charAt(matched)) ? matched + 1 : (b == '\r' ? 1 : 0);
        }
        return head.toString(StandardCharsets.US_ASCII);
    }
}
