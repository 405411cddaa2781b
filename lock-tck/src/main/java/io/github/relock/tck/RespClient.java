package io.github.relock.tck;

import java.io.BufferedInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/**
 * A minimal blocking RESP2 client the kit uses to inspect and steer the server (FLUSHALL,
 * PUBSUB CHANNELS, CLIENT LIST, INFO, CLIENT KILL ...) without depending on the driver under
 * test. Replies: nil → null, integer → Long, bulk/status → String, array → List, error →
 * {@link RespError}.
 *
 * <p>Thread-safety: not thread-safe; use one per thread.
 */
public final class RespClient implements AutoCloseable {

    /** An error reply. */
    public static final class RespError extends RuntimeException {
        private static final long serialVersionUID = 1L;

        RespError(String message) {
            super(message);
        }
    }

    private final Socket socket;
    private final InputStream in;
    private final OutputStream out;

    /**
     * @param host server host
     * @param port server port
     * @param timeoutMs connect and read timeout
     */
    public RespClient(String host, int port, int timeoutMs) {
        try {
            socket = new Socket();
            socket.connect(new InetSocketAddress(host, port), timeoutMs);
            socket.setSoTimeout(timeoutMs);
            socket.setTcpNoDelay(true);
            in = new BufferedInputStream(socket.getInputStream());
            out = socket.getOutputStream();
        } catch (IOException e) {
            throw new UncheckedIOException("cannot connect to redis at " + host + ":" + port, e);
        }
    }

    /**
     * Sends one command and reads its reply.
     *
     * @param args command and arguments
     * @return the reply
     * @throws RespError on an error reply
     */
    public Object call(String... args) {
        try {
            ByteArrayOutputStream buf = new ByteArrayOutputStream();
            buf.write(('*' + Integer.toString(args.length) + "\r\n").getBytes(StandardCharsets.US_ASCII));
            for (String a : args) {
                byte[] b = a.getBytes(StandardCharsets.UTF_8);
                buf.write(('$' + Integer.toString(b.length) + "\r\n").getBytes(StandardCharsets.US_ASCII));
                buf.write(b);
                buf.write('\r');
                buf.write('\n');
            }
            out.write(buf.toByteArray());
            out.flush();
            Object reply = read();
            if (reply instanceof RespError e) {
                throw new RespError(e.getMessage());
            }
            return reply;
        } catch (IOException e) {
            throw new UncheckedIOException("redis command " + args[0] + " failed", e);
        }
    }

    /**
     * Reads one more reply (for pub/sub pushes after SUBSCRIBE).
     *
     * @return the reply
     */
    public Object readReply() {
        try {
            return read();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private Object read() throws IOException {
        int type = in.read();
        if (type < 0) {
            throw new IOException("connection closed by server");
        }
        String line = readLine();
        switch (type) {
            case '+':
                return line;
            case '-':
                return new RespError(line);
            case ':':
                return Long.parseLong(line);
            case '$': {
                int len = Integer.parseInt(line);
                if (len < 0) {
                    return null;
                }
                byte[] b = in.readNBytes(len);
                in.readNBytes(2);
                return new String(b, StandardCharsets.UTF_8);
            }
            case '*': {
                int n = Integer.parseInt(line);
                if (n < 0) {
                    return null;
                }
                List<Object> list = new ArrayList<>(n);
                for (int i = 0; i < n; i++) {
                    Object o = read();
                    list.add(o);
                }
                return list;
            }
            default:
                throw new IOException("unexpected RESP type byte " + type);
        }
    }

    private String readLine() throws IOException {
        StringBuilder sb = new StringBuilder();
        int c;
        while ((c = in.read()) != '\r') {
            if (c < 0) {
                throw new IOException("connection closed by server");
            }
            sb.append((char) c);
        }
        in.read(); // '\n'
        return sb.toString();
    }

    @Override
    public void close() {
        try {
            socket.close();
        } catch (IOException ignored) {
            // closing
        }
    }
}
