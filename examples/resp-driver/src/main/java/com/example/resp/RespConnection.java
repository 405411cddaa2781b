package com.example.resp;

import io.github.relock.api.LockException;
import io.github.relock.api.RedisErrorException;
import io.github.relock.spi.ErrorReplies;
import io.github.relock.spi.NoScriptException;
import java.io.BufferedInputStream;
import java.io.BufferedOutputStream;
import java.io.ByteArrayOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/**
 * One RESP2 connection over a plain {@link Socket}: the encoder ({@link #send}), the decoder
 * ({@link #read}) and the log-in ({@link #open}). Everything the driver sends and reads passes here.
 *
 * <p>The decoder already speaks the SPI's language (its section <i>Replies</i>, kit rules 1.1.1 to
 * 1.1.3 and 1.3.1): nil → {@code null}; integer → {@link Long}; bulk and status strings →
 * {@link String}, decoded as UTF-8; array → {@code List<Object>}, element by element at any depth,
 * an empty array as an empty list; an error reply → the exception
 * {@link ErrorReplies#toException} classifies it as, as a <em>value</em> ({@link NoScriptException}
 * for {@code NOSCRIPT}, a {@code RedisUnavailableException} for a server that cannot serve now,
 * such as {@code LOADING} or {@code BUSY}, else a {@link RedisErrorException}), returned, not thrown, because an error reply
 * leaves the connection in step and usable. An {@link IOException} means the opposite: the
 * connection is out of step or gone, and its owner closes it.
 *
 * <p>Thread-safety: not thread-safe. One caller at a time sends, and one at a time reads; a sender
 * and a reader may run at once (the pub/sub link does).
 */
final class RespConnection implements AutoCloseable {
    private static final byte[] CRLF = {'\r', '\n'};

    private final Socket socket;
    private final InputStream in;
    private final OutputStream out;

    private RespConnection(Socket socket) throws IOException {
        this.socket = socket;
        this.in = new BufferedInputStream(socket.getInputStream());
        this.out = new BufferedOutputStream(socket.getOutputStream());
    }

    /**
     * Connects and logs in: {@code AUTH} when the endpoint has a password, {@code SELECT} for a
     * database other than 0, and {@code CLIENT SETNAME} (the SPI's {@code DriverOptions.clientName()}
     * for connections a driver opens itself).
     *
     * @param endpoint where to connect
     * @param timeoutMs the connect timeout, and the read timeout of every reply
     * @param clientName the connection's name
     * @return the open connection
     * @throws IOException if the server cannot be reached
     * @throws RedisErrorException if it refuses the log-in (e.g. {@code WRONGPASS})
     */
    static RespConnection open(RespEndpoint endpoint, int timeoutMs, String clientName) throws IOException {
        Socket socket = new Socket();
        try {
            socket.connect(new InetSocketAddress(endpoint.host(), endpoint.port()), timeoutMs);
            socket.setTcpNoDelay(true);
            socket.setSoTimeout(timeoutMs);
            RespConnection c = new RespConnection(socket);
            if (endpoint.password() != null) {
                c.expectOk(endpoint.user() == null ? List.of("AUTH", endpoint.password())
                        : List.of("AUTH", endpoint.user(), endpoint.password()));
            }
            if (endpoint.database() != 0) {
                c.expectOk(List.of("SELECT", Integer.toString(endpoint.database())));
            }
            c.expectOk(List.of("CLIENT", "SETNAME", clientName));
            return c;
        } catch (IOException | RuntimeException e) {
            socket.close();
            throw e;
        }
    }

    /** Reads without a timeout from now on: a pub/sub connection waits for messages as long as it takes. */
    void waitForRepliesForever() throws IOException {
        socket.setSoTimeout(0);
    }

    /** One command and its reply; an error reply is returned as its exception, not thrown. */
    Object call(List<String> command) throws IOException {
        send(command);
        return read();
    }

    /** Encodes {@code command} as a RESP array of bulk strings (UTF-8) and flushes it. */
    void send(List<String> command) throws IOException {
        ByteArrayOutputStream frame = new ByteArrayOutputStream(64);
        frame.writeBytes(("*" + command.size() + "\r\n").getBytes(StandardCharsets.US_ASCII));
        for (String part : command) {
            byte[] bytes = part.getBytes(StandardCharsets.UTF_8);
            frame.writeBytes(("$" + bytes.length + "\r\n").getBytes(StandardCharsets.US_ASCII));
            frame.writeBytes(bytes);
            frame.writeBytes(CRLF);
        }
        out.write(frame.toByteArray()); // one write: a sender never interleaves half a frame
        out.flush();
    }

    /** Decodes one reply (see the class comment for the types). */
    Object read() throws IOException {
        int type = in.read();
        if (type < 0) {
            throw new EOFException("the server closed the connection");
        }
        String line = readLine();
        return switch (type) {
            case '+' -> line;
            case ':' -> Long.parseLong(line);
            case '-' -> ErrorReplies.toException(line, "a command", null); // rules 1.2.x, 1.3.1, 28.7
            case '$' -> {
                int length = Integer.parseInt(line);
                if (length < 0) {
                    yield null;
                }
                byte[] bytes = in.readNBytes(length);
                if (bytes.length < length) {
                    throw new EOFException("the server closed the connection");
                }
                expectCrlf();
                yield new String(bytes, StandardCharsets.UTF_8);
            }
            case '*' -> {
                int count = Integer.parseInt(line);
                if (count < 0) {
                    yield null;
                }
                List<Object> items = new ArrayList<>(count);
                for (int i = 0; i < count; i++) {
                    items.add(read());
                }
                yield items;
            }
            default -> throw new IOException("not a RESP2 reply: type byte " + type);
        };
    }

    @Override
    public void close() {
        try {
            socket.close(); // also wakes a reader blocked on it
        } catch (IOException ignored) {
            // closing is all we wanted
        }
    }

    private void expectOk(List<String> command) throws IOException {
        Object reply = call(command);
        if (reply instanceof LockException refused) {
            throw refused;
        }
    }

    private String readLine() throws IOException {
        ByteArrayOutputStream line = new ByteArrayOutputStream(16);
        for (int b = in.read(); b != '\r'; b = in.read()) {
            if (b < 0) {
                throw new EOFException("the server closed the connection");
            }
            line.write(b);
        }
        if (in.read() != '\n') {
            throw new IOException("a RESP line must end with CRLF");
        }
        return line.toString(StandardCharsets.UTF_8);
    }

    private void expectCrlf() throws IOException {
        if (in.read() != '\r' || in.read() != '\n') {
            throw new IOException("a RESP bulk string must end with CRLF");
        }
    }
}
