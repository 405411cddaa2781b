package io.github.relock.tck;

import java.net.URI;
import java.util.Locale;
import java.util.concurrent.locks.ReentrantLock;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.ParameterContext;
import org.junit.jupiter.api.extension.ParameterResolver;

/**
 * JUnit 5 extension that gives tests a real Redis server.
 *
 * <ul>
 *   <li>{@code REDIS_URL} set: that server is used (never stopped or restarted).</li>
 *   <li>{@code -Drelock.test.redis=docker}: a Testcontainers {@code redis:7} container
 *       (needs a Docker engine and Testcontainers on the test class path).</li>
 *   <li>Otherwise: the static {@code redis-server} 7.0.15 binary from
 *       {@code org.signal:embedded-redis}, started once per test JVM on a free loopback port and
 *       stopped when the JVM exits.</li>
 * </ul>
 * Use {@code @ExtendWith(RedisFixture.class)} and take a {@link RedisServer} parameter, or call
 * {@link #shared()}. Tests that stop or restart a server, or need several, call
 * {@link RedisServer#startEmbedded()} themselves.
 *
 * <p>Thread-safety: safe for use by several threads.
 */
public final class RedisFixture implements ParameterResolver {
    private static final ReentrantLock LOCK = new ReentrantLock();
    private static volatile RedisServer shared;

    /** Creates the extension (JUnit does this). */
    public RedisFixture() {
    }

    /** @return the suite-wide server, started on first use */
    public static RedisServer shared() {
        RedisServer s = shared;
        if (s != null) {
            return s;
        }
        LOCK.lock();
        try {
            if (shared == null) {
                shared = create();
            }
            return shared;
        } finally {
            LOCK.unlock();
        }
    }

    /** @return whether tests may stop or restart servers (false when {@code REDIS_URL} is used) */
    public static boolean canControlServers() {
        return shared().isEmbedded();
    }

    private static RedisServer create() {
        String url = System.getenv("REDIS_URL");
        if (url != null && !url.isBlank()) {
            return RedisServer.external(URI.create(url.trim()));
        }
        String mode = System.getProperty("relock.test.redis", "embedded").toLowerCase(Locale.ROOT);
        if (mode.equals("docker")) {
            return DockerRedis.start();
        }
        if (!mode.equals("embedded")) {
            throw new IllegalArgumentException("relock.test.redis must be 'embedded' or 'docker', was '" + mode + "'");
        }
        RedisServer s = RedisServer.startEmbedded();
        Runtime.getRuntime().addShutdownHook(new Thread(s::stop, "relock-redis-stop"));
        return s;
    }

    @Override
    public boolean supportsParameter(ParameterContext pc, ExtensionContext ec) {
        return pc.getParameter().getType() == RedisServer.class;
    }

    @Override
    public Object resolveParameter(ParameterContext pc, ExtensionContext ec) {
        return shared();
    }
}
