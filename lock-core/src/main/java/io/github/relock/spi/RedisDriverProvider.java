package io.github.relock.spi;

import java.net.URI;

/**
 * The {@link java.util.ServiceLoader} service a driver registers, both with
 * {@code provides io.github.relock.spi.RedisDriverProvider with ...} in its {@code module-info} and
 * in {@code META-INF/services/io.github.relock.spi.RedisDriverProvider}.
 *
 * <p>Thread-safety: implementations must be stateless or thread-safe.
 */
public interface RedisDriverProvider {

    /** The SPI version of this release of lock-core. */
    int SPI_VERSION = 1;

    /** @return a short unique name, e.g. {@code "jedis"}; the value {@code -Drelock.driver} selects */
    String name();

    /** @return the {@link #SPI_VERSION} this driver was compiled against */
    int spiVersion();

    /**
     * @param nativeClient an application's Redis client object
     * @return whether {@link #create} accepts it
     */
    boolean supports(Object nativeClient);

    /**
     * Wraps an application's existing client; the executor never closes it.
     *
     * @throws IllegalArgumentException if {@link #supports} is false for it
     */
    CommandExecutor create(Object nativeClient, DriverOptions options);

    /**
     * Whether this driver opens connections of its own for {@code uri}: only drivers that say yes
     * are candidates for {@code RedisLocks.connect(uri)}. A driver that only wraps clients the
     * application made returns false, so it never makes {@code connect} ambiguous.
     *
     * <p>{@code RedisLocks.connect} asks only about URIs {@link RedisUri#parse} accepts (it rejects
     * the others before discovery). The default answers yes for every {@code redis://} and
     * {@code rediss://} URI, which is what drivers written before this method existed did: they
     * stay candidates for {@code connect}, as before.
     *
     * @param uri a Redis URI
     * @return whether {@link #connect} can use it
     */
    default boolean supportsUri(URI uri) {
        String scheme = uri.getScheme();
        return "redis".equalsIgnoreCase(scheme) || "rediss".equalsIgnoreCase(scheme);
    }

    /**
     * Opens a client of its own from a {@code redis://[user:password@]host[:port][/db]} or
     * {@code rediss://} URI; the executor closes it on {@link CommandExecutor#close()}.
     *
     * @throws IllegalArgumentException if the URI is not one the driver can use
     * @throws io.github.relock.api.RedisUnavailableException if the server cannot be reached
     */
    CommandExecutor connect(URI uri, DriverOptions options);
}
