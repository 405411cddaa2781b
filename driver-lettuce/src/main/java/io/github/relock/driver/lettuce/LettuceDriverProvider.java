package io.github.relock.driver.lettuce;

import io.github.relock.api.RedisUnavailableException;
import io.github.relock.spi.CommandExecutor;
import io.github.relock.spi.DriverOptions;
import io.github.relock.spi.RedisDriverProvider;
import io.github.relock.spi.RedisUri;
import io.lettuce.core.ClientOptions;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.SocketOptions;
import io.lettuce.core.cluster.RedisClusterClient;
import java.net.URI;
import java.time.Duration;
import java.util.Objects;

/**
 * The relock driver for Lettuce 6.6 to 7.x ({@code name() = "lettuce"}); compiled against the
 * newest Lettuce, proven on 6.6 (with its Netty 4.1) and 7.5 by the {@code lettuce-*} profiles.
 *
 * <p>{@link #create} accepts an application's {@link RedisClient} or {@link RedisClusterClient}.
 * It opens two connections of its own on that client (one command connection, one pub/sub
 * connection that carries every channel, both named {@link DriverOptions#clientName()} with
 * {@code CLIENT SETNAME}) and closes them on {@link CommandExecutor#close()}; it never shuts the
 * client down. A bare {@code StatefulRedisConnection} is not accepted: the driver needs a client to
 * open its pub/sub connection, and sharing an application's connection would expose relock's
 * scripts to the application's {@code MULTI} blocks and blocking commands.
 *
 * <p>{@link #connect} builds a {@link RedisClient} of its own from a {@code redis://} or
 * {@code rediss://} URI, with {@link DriverOptions#commandTimeout()} as connect and command timeout,
 * and shuts it down when the executor is closed.
 *
 * <p>Capabilities: standalone → {@code REPLICA_WAIT}, plus {@code SHARDED_PUBSUB} when the server
 * is Redis 7 or newer; cluster → {@code CLUSTER}, {@code REPLICA_WAIT}.
 *
 * <p>Thread-safety: stateless; safe for use by several threads.
 */
public final class LettuceDriverProvider implements RedisDriverProvider {

    /** Creates the provider ({@link java.util.ServiceLoader} does this). */
    public LettuceDriverProvider() {
    }

    @Override
    public String name() {
        return "lettuce";
    }

    @Override
    public int spiVersion() {
        return SPI_VERSION;
    }

    @Override
    public boolean supports(Object nativeClient) {
        return nativeClient instanceof RedisClient || nativeClient instanceof RedisClusterClient;
    }

    @Override
    public CommandExecutor create(Object nativeClient, DriverOptions options) {
        Objects.requireNonNull(options, "options");
        if (nativeClient instanceof RedisClient client) {
            return LettuceCommandExecutor.forClient(client, options, false, "redis (application's Lettuce RedisClient)");
        }
        if (nativeClient instanceof RedisClusterClient client) {
            return LettuceCommandExecutor.forCluster(client, options, false,
                    "redis cluster (application's Lettuce RedisClusterClient)");
        }
        throw new IllegalArgumentException("the lettuce driver accepts io.lettuce.core.RedisClient or "
                + "io.lettuce.core.cluster.RedisClusterClient, was "
                + (nativeClient == null ? "null" : nativeClient.getClass().getName()));
    }

    @Override
    public CommandExecutor connect(URI uri, DriverOptions options) {
        Objects.requireNonNull(uri, "uri");
        Objects.requireNonNull(options, "options");
        RedisUri parsed;
        try {
            parsed = RedisUri.parse(uri);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("the lettuce driver " + e.getMessage(), e);
        }
        String shown = parsed.redacted();
        RedisURI.Builder b = RedisURI.builder().withHost(parsed.host()).withPort(parsed.port())
                .withDatabase(parsed.database()).withSsl(parsed.ssl());
        if (parsed.password() != null) {
            b = parsed.user() != null ? b.withAuthentication(parsed.user(), parsed.password().toCharArray())
                    : b.withPassword(parsed.password().toCharArray());
        }
        RedisURI redisUri = b.build();
        Duration timeout = options.commandTimeout();
        redisUri.setTimeout(timeout); // also bounds the connection handshake
        redisUri.setClientName(options.clientName()); // sent on every (re)connect
        RedisClient client = RedisClient.create(redisUri);
        try {
            client.setOptions(ClientOptions.builder()
                    // TCP keepalive: a flow that a NAT dropped is found even where relock's PING is off
                    .socketOptions(SocketOptions.builder().connectTimeout(timeout).keepAlive(KEEPALIVE).build())
                    .build());
            return LettuceCommandExecutor.forClient(client, options, true, shown);
        } catch (RuntimeException e) {
            client.shutdown(Duration.ZERO, Duration.ofSeconds(5));
            if (e instanceof RedisUnavailableException || e instanceof IllegalArgumentException) {
                throw e;
            }
            throw new RedisUnavailableException("cannot connect to " + shown + ": " + e.getMessage(), e);
        }
    }

    /** Probes an idle connection after 60 s, then every 10 s; 3 unanswered probes close it. */
    private static final SocketOptions.KeepAliveOptions KEEPALIVE = SocketOptions.KeepAliveOptions.builder().enable()
            .idle(Duration.ofSeconds(60)).interval(Duration.ofSeconds(10)).count(3).build();

    @Override
    public String toString() {
        return "LettuceDriverProvider[lettuce, spi " + SPI_VERSION + "]";
    }
}
