package io.github.relock.core;

import io.github.relock.api.LockClient;
import io.github.relock.api.LockOptions;
import io.github.relock.core.internal.client.DefaultLockClient;
import io.github.relock.spi.CommandExecutor;
import io.github.relock.spi.DriverOptions;
import io.github.relock.spi.RedisDriverProvider;
import io.github.relock.spi.RedisUri;
import java.net.URI;
import java.net.URISyntaxException;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.ServiceConfigurationError;
import java.util.ServiceLoader;
import java.util.UUID;
import java.util.stream.Collectors;

/**
 * Entry point: turns a Redis client into a {@link LockClient}.
 *
 * <pre>{@code
 * RedisClient jedis = RedisClient.create("redis://localhost:6379"); // Jedis 8
 * LockClient locks = RedisLocks.create(jedis);              // uses the app's client
 * LockClient own   = RedisLocks.connect("redis://localhost:6379"); // driver opens its own
 * }</pre>
 *
 * <p>Drivers are found with {@link ServiceLoader} ({@code driver-jedis}, {@code driver-lettuce},
 * or any other implementation of {@link RedisDriverProvider}). When several could serve, the
 * system property {@value #DRIVER_PROPERTY} names the one to use.
 *
 * <p>Errors, the same for {@code create} and {@code connect}: {@link IllegalStateException} when
 * the class or module path holds no driver this lock-core can use (the message names every driver
 * discovery dropped, with the SPI version it was built for, and the artifacts to add), or when
 * {@code connect} finds no driver that opens connections from a URI;
 * {@link IllegalArgumentException} when the argument is at fault: a malformed URI, a client type no
 * driver supports, or several drivers that could serve it with no {@value #DRIVER_PROPERTY} to pick one.
 *
 * <p>Thread-safety: stateless; safe for use by several threads.
 */
public final class RedisLocks {

    /** System property naming the driver to use when several are present, e.g. {@code jedis}. */
    public static final String DRIVER_PROPERTY = "relock.driver";

    private static final System.Logger LOG = System.getLogger(RedisLocks.class.getName());
    private static final String ARTIFACTS =
            "add io.github.relock:relock-jedis or io.github.relock:relock-lettuce (versions from io.github.relock:relock-bom)";

    private RedisLocks() {
    }

    /**
     * Wraps the application's client with default options. relock never closes that client.
     *
     * @param nativeClient e.g. a Jedis {@code UnifiedJedis} ({@code RedisClient}, {@code RedisClusterClient}) or a Lettuce {@code RedisClient}
     * @return a lock client; close it when done
     * @throws NullPointerException if {@code nativeClient} is null
     * @throws IllegalStateException if no usable driver is on the class or module path (the message
     *     names drivers dropped for an SPI version mismatch or a load failure, and the artifacts to add)
     * @throws IllegalArgumentException if no driver supports the client's type, or several do and
     *     {@value #DRIVER_PROPERTY} does not pick one
     */
    public static LockClient create(Object nativeClient) {
        return create(nativeClient, LockOptions.defaults());
    }

    /**
     * Wraps the application's client. relock never closes that client.
     *
     * @param nativeClient e.g. a Jedis {@code UnifiedJedis} ({@code RedisClient}, {@code RedisClusterClient}) or a Lettuce {@code RedisClient}
     * @param options lock options
     * @return a lock client; close it when done
     * @throws NullPointerException if an argument is null
     * @throws IllegalStateException if no usable driver is on the class or module path (the message
     *     names drivers dropped for an SPI version mismatch or a load failure, and the artifacts to add)
     * @throws IllegalArgumentException if no driver supports the client's type, or several do and
     *     {@value #DRIVER_PROPERTY} does not pick one
     */
    public static LockClient create(Object nativeClient, LockOptions options) {
        Objects.requireNonNull(nativeClient, "nativeClient must not be null (pass your Jedis or Lettuce client)");
        options = withOwnClientId(Objects.requireNonNull(options, "options must not be null"));
        Discovery found = discover();
        List<RedisDriverProvider> all = found.usable();
        if (all.isEmpty()) {
            throw found.noDriver();
        }
        List<RedisDriverProvider> fit = new ArrayList<>();
        for (RedisDriverProvider p : all) {
            if (p.supports(nativeClient)) {
                fit.add(p);
            }
        }
        if (fit.isEmpty()) {
            throw new IllegalArgumentException("no relock driver supports a client of type "
                    + nativeClient.getClass().getName() + " (drivers found: " + names(all) + found.droppedNote()
                    + "); pass one of the client types the drivers document");
        }
        RedisDriverProvider chosen = choose(fit, found, "client type " + nativeClient.getClass().getName());
        CommandExecutor executor = chosen.create(nativeClient, driverOptions(options));
        LOG.log(System.Logger.Level.INFO, "relock client {0} on driver ''{1}'' for {2}",
                options.clientId().orElseThrow(), chosen.name(), nativeClient.getClass().getName());
        return DefaultLockClient.open(executor, options, true);
    }

    /**
     * Wraps the application's client with a driver chosen by the caller, bypassing discovery (for
     * tests, custom drivers, or several drivers on one path). relock never closes that client.
     *
     * @param provider the driver
     * @param nativeClient a client {@code provider} supports
     * @param options lock options
     * @return a lock client; close it when done
     * @throws IllegalArgumentException if the provider does not support the client
     */
    public static LockClient create(RedisDriverProvider provider, Object nativeClient, LockOptions options) {
        Objects.requireNonNull(provider, "provider must not be null");
        Objects.requireNonNull(nativeClient, "nativeClient must not be null (pass your Jedis or Lettuce client)");
        options = withOwnClientId(Objects.requireNonNull(options, "options must not be null"));
        if (!provider.supports(nativeClient)) {
            throw new IllegalArgumentException("driver '" + provider.name() + "' does not support a client of type "
                    + nativeClient.getClass().getName());
        }
        return DefaultLockClient.open(provider.create(nativeClient, driverOptions(options)), options, true);
    }

    /**
     * Lets a driver open its own connection.
     *
     * @param uri {@code redis://[user:password@]host[:port][/db]} or {@code rediss://...}
     * @return a lock client that closes its connection on {@link LockClient#close()}
     * @throws IllegalArgumentException if the URI is malformed or not of that form (see
     *     {@link RedisUri#parse}), or several drivers could open it and
     *     {@value #DRIVER_PROPERTY} does not pick one
     * @throws IllegalStateException if no usable driver is present, or none opens connections from a
     *     URI ({@link RedisDriverProvider#supportsUri})
     */
    public static LockClient connect(String uri) {
        return connect(uri, LockOptions.defaults());
    }

    /**
     * Lets a driver open its own connection.
     *
     * @param uri {@code redis://[user:password@]host[:port][/db]} or {@code rediss://...}
     * @param options lock options ({@link LockOptions#commandTimeout()} becomes the client's timeout)
     * @return a lock client that closes its connection on {@link LockClient#close()}
     * @throws IllegalArgumentException if the URI is malformed or not of that form (see
     *     {@link RedisUri#parse}), or several drivers could open it and
     *     {@value #DRIVER_PROPERTY} does not pick one
     * @throws IllegalStateException if no usable driver is present, or none opens connections from a
     *     URI ({@link RedisDriverProvider#supportsUri})
     */
    public static LockClient connect(String uri, LockOptions options) {
        Objects.requireNonNull(uri, "uri must not be null");
        try {
            return connect(new URI(uri.trim()), options);
        } catch (URISyntaxException e) {
            // neither the input nor e's message (which repeats it) may carry the password onwards
            throw new IllegalArgumentException("malformed Redis URI '" + RedisUri.redact(uri) + "': " + e.getReason()
                    + (e.getIndex() < 0 ? "" : " at index " + e.getIndex())
                    + "; expected redis://[user:password@]host[:port][/db] or rediss://...");
        }
    }

    /**
     * Lets a driver open its own connection.
     *
     * @param uri {@code redis://[user:password@]host[:port][/db]} or {@code rediss://...}
     * @param options lock options
     * @return a lock client that closes its connection on {@link LockClient#close()}
     * @throws IllegalArgumentException if the URI is malformed or not of that form (see
     *     {@link RedisUri#parse}), or several drivers could open it and
     *     {@value #DRIVER_PROPERTY} does not pick one
     * @throws IllegalStateException if no usable driver is present, or none opens connections from a
     *     URI ({@link RedisDriverProvider#supportsUri})
     */
    public static LockClient connect(URI uri, LockOptions options) {
        Objects.requireNonNull(uri, "uri must not be null");
        options = withOwnClientId(Objects.requireNonNull(options, "options must not be null"));
        String shown = RedisUri.parse(uri).redacted(); // a malformed URI fails here, whatever the drivers
        Discovery found = discover();
        if (found.usable().isEmpty()) {
            throw found.noDriver();
        }
        List<RedisDriverProvider> all = found.usable().stream().filter(p -> p.supportsUri(uri)).toList();
        if (all.isEmpty()) {
            throw new IllegalStateException("no relock driver opens connections from a URI (drivers found: "
                    + names(found.usable()) + ", none accepts " + shown + found.droppedNote()
                    + "); wrap a client you create with RedisLocks.create(client), or " + ARTIFACTS);
        }
        RedisDriverProvider chosen = choose(all, found, "URI " + shown);
        CommandExecutor executor = chosen.connect(uri, driverOptions(options));
        LOG.log(System.Logger.Level.INFO, "relock client {0} on driver ''{1}'' connected to {2}",
                options.clientId().orElseThrow(), chosen.name(), shown);
        return DefaultLockClient.open(executor, options, true);
    }

    private static DriverOptions driverOptions(LockOptions options) {
        return new DriverOptions(options.commandTimeout(), "relock:" + options.clientId().orElseThrow(),
                options.pubSubProbeInterval());
    }

    /** Each client gets its own random id unless the options name one: clients never share owner fields by accident. */
    private static LockOptions withOwnClientId(LockOptions options) {
        return options.clientId().isPresent() ? options
                : options.toBuilder().clientId(UUID.randomUUID().toString()).build();
    }

    private static RedisDriverProvider choose(List<RedisDriverProvider> candidates, Discovery found, String forWhat) {
        String wanted = System.getProperty(DRIVER_PROPERTY);
        if (wanted != null && !wanted.isBlank()) {
            for (RedisDriverProvider p : candidates) {
                if (p.name().equalsIgnoreCase(wanted.trim())) {
                    return p;
                }
            }
            String present = found.usable().stream().anyMatch(p -> p.name().equalsIgnoreCase(wanted.trim()))
                    ? " (driver '" + wanted.trim() + "' is present but cannot serve it)" : "";
            throw new IllegalArgumentException("-D" + DRIVER_PROPERTY + "=" + wanted + " names no driver that can serve "
                    + forWhat + present + "; candidates: " + names(candidates) + found.droppedNote());
        }
        if (candidates.size() > 1) {
            throw new IllegalArgumentException("several relock drivers can serve " + forWhat + ": " + names(candidates)
                    + "; pick one with -D" + DRIVER_PROPERTY + "=<name>");
        }
        return candidates.get(0);
    }

    /**
     * What discovery found: the drivers this lock-core can use, and those it dropped (an SPI
     * version mismatch, a provider that failed to load), which every "no driver" error names.
     */
    record Discovery(List<RedisDriverProvider> usable, List<String> dropped) {
        IllegalStateException noDriver() {
            return new IllegalStateException("no relock driver found on the class or module path"
                    + (dropped.isEmpty() ? "" : " that this lock-core (SPI version " + RedisDriverProvider.SPI_VERSION
                    + ") can use; dropped: " + String.join("; ", dropped) + ";") + " " + ARTIFACTS);
        }

        String droppedNote() {
            return dropped.isEmpty() ? "" : "; dropped: " + String.join("; ", dropped);
        }
    }

    static List<RedisDriverProvider> providers() {
        return discover().usable();
    }

    static Discovery discover() {
        List<RedisDriverProvider> found = new ArrayList<>();
        List<String> dropped = new ArrayList<>();
        ServiceLoader<RedisDriverProvider> loader =
                ServiceLoader.load(RedisDriverProvider.class, RedisLocks.class.getClassLoader());
        var it = loader.iterator();
        while (true) {
            RedisDriverProvider p;
            try {
                if (!it.hasNext()) {
                    break;
                }
                p = it.next();
            } catch (ServiceConfigurationError e) {
                LOG.log(System.Logger.Level.WARNING, "skipping a relock driver that failed to load", e);
                dropped.add("a driver that failed to load (" + e.getMessage() + ")");
                continue;
            }
            if (p.spiVersion() != RedisDriverProvider.SPI_VERSION) {
                dropped.add("driver '" + p.name() + "' (" + p.getClass().getName() + ") built for SPI version "
                        + p.spiVersion() + ", this lock-core speaks " + RedisDriverProvider.SPI_VERSION);
                LOG.log(System.Logger.Level.WARNING, "skipping relock driver ''{0}'' ({1}): built for SPI version {2}, this lock-core has {3}",
                        p.name(), p.getClass().getName(), p.spiVersion(), RedisDriverProvider.SPI_VERSION);
                continue;
            }
            found.add(p);
        }
        return new Discovery(List.copyOf(found), List.copyOf(dropped));
    }

    private static String names(List<RedisDriverProvider> ps) {
        return ps.isEmpty() ? "none"
                : ps.stream().map(p -> p.name() + " (" + p.getClass().getName() + ")").collect(Collectors.joining(", "));
    }
}
