import java.util.concurrent.locks.ReentrantLock;

import org.eclipse.jetty.io.Connection;
import org.eclipse.jetty.io.EndPoint;
import org.eclipse.jetty.server.Connector;
import org.eclipse.jetty.server.HttpConfiguration;
import org.eclipse.jetty.server.HttpConnectionFactory;
import org.eclipse.jetty.server.internal.HttpConnection;

/**
 * The workaround: an HTTP/1.1 connection factory whose connections run {@code onFillable}, where
 * Jetty reads the socket and parses, on one thread at a time. Otherwise as
 * {@code HttpConnectionFactory.newConnection} makes them (Jetty 12.1).
 */
public class SerialFills extends HttpConnectionFactory {
    public SerialFills(HttpConfiguration http) {
        super(http);
    }

    @Override
    public Connection newConnection(Connector connector, EndPoint endPoint) {
        HttpConnection connection = new HttpConnection(getHttpConfiguration(), connector, endPoint) {
            // Reentrant: where the pool refuses to dispatch the next fill, Jetty runs it on the thread already here.
            private final ReentrantLock filling = new ReentrantLock();

            @Override
            public void onFillable() {
                filling.lock();
                try {
                    super.onFillable();
                } finally {
                    filling.unlock();
                }
            }
        };
        connection.setTransferEncodingChunkMaxLength(getTransferEncodingChunkMaxLength());
        return configure(connection, connector, endPoint);
    }
}
