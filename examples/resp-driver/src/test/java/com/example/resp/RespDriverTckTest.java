package com.example.resp;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.relock.api.DistributedLock;
import io.github.relock.api.LockClient;
import io.github.relock.core.RedisLocks;
import io.github.relock.spi.RedisDriverProvider;
import io.github.relock.tck.DriverTck;
import io.github.relock.tck.RuleSlice;
import io.github.relock.tck.fixtures.RedisServer;
import io.github.relock.tck.fixtures.RedisTopology;
import java.io.File;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Certifies the reference driver: the whole driver contract kit ({@link DriverTck}) on the kit's
 * own single server. The rules it cannot run skip, each saying why: those of a cluster (it declares
 * no {@code CLUSTER}) and those that exhaust the application's pool (an {@link RespEndpoint} has
 * none: every connection is the driver's own). The fault and liveness chapters, half its time,
 * run in {@link RespDriverFaultsTckTest}: a test JVM of their own, beside this one.
 */
@RuleSlice(except = {"faults", "liveness"}, elsewhere = "RespDriverFaultsTckTest runs them")
class RespDriverTckTest extends DriverTck {

    @Override
    protected RedisDriverProvider provider() {
        return new RespDriverProvider();
    }

    @Override
    protected Object newNativeClient(RedisServer server) {
        return RespEndpoint.of(server.host(), server.port());
    }

    /** An endpoint holds no connection: nothing to close. */
    @Override
    protected void closeNativeClient(Object nativeClient) {
    }

    /** Rule 28.3 logs in as an ACL user Redis refuses a channel. */
    @Override
    protected Object newNativeClient(RedisTopology topology, String user, String password) {
        RedisServer server = (RedisServer) topology;
        return new RespEndpoint(server.host(), server.port(), user, password, 0);
    }

    /**
     * The kit hands the provider in; an application finds it through
     * {@code META-INF/services}: by its client ({@code create}) and by a URI ({@code connect},
     * which opens a connection at once).
     */
    @Test
    void registeredService_foundByClientAndByUri() {
        try (LockClient byClient = RedisLocks.create(RespEndpoint.of(server().host(), server().port()));
             LockClient byUri = RedisLocks.connect(server().uri().toString())) {
            DistributedLock lock = byClient.getLock("resp:discovery");
            lock.lock();
            assertTrue(byUri.getLock("resp:discovery").isLocked(), "both clients must see one lock");
            lock.unlock();
        }
    }

    /** The boundary: the driver is written from scratch, so no Redis client library is on its class path. */
    @Test
    void classPath_holdsNoRedisClientLibrary() {
        List<String> libraries = Arrays.stream(System.getProperty("java.class.path").split(File.pathSeparator))
                .filter(entry -> entry.matches(".*(jedis|lettuce|redisson|spring-data-redis|netty).*")).toList();
        assertEquals(List.of(), libraries, "a Redis client library is on the reference driver's class path");
        for (String type : List.of("redis.clients.jedis.Jedis", "io.lettuce.core.RedisClient", "org.redisson.Redisson")) {
            assertEquals(null, loadable(type), type + " is on the class path");
        }
    }

    private static Class<?> loadable(String name) {
        try {
            return Class.forName(name, false, RespDriverTckTest.class.getClassLoader());
        } catch (ClassNotFoundException absent) {
            return null;
        }
    }
}
