package io.github.relock.tck.redisson;

import io.github.relock.spi.RedisDriverProvider;
import io.github.relock.tck.DriverKit;
import io.github.relock.tck.EngineSpec;
import io.github.relock.tck.fixtures.RedisServer;
import io.github.relock.tck.fixtures.RedisTopology;
import java.time.Duration;
import org.junit.jupiter.api.Nested;

/**
 * Everything in the kit that does not depend on the driver, in one class: the engine spec
 * ({@link EngineSpec}, whose chapters this class inherits) and the whole Redisson interop chapter
 * ({@link RedissonTck}, nested as {@code RedissonTckChapters}), composed, not copied. relock runs both
 * on its reference driver; a driver whose build runs its driver contract kit in classes of their
 * own (for the test forks) adds this one class to run the rest.
 *
 * <pre>{@code
 * @Topologies({Kind.SINGLE, Kind.CLUSTER, Kind.SENTINEL})
 * class MyDriverEngineSpecTest extends RedissonEngineSpec {
 *     protected RedisDriverProvider provider() { return new MyDriverProvider(); }
 *     protected Object newNativeClient(RedisServer server) { return new MyClient(server.uri()); }
 *     protected Object newNativeClient(RedisTopology t) { ... a client for t ... }
 *     protected void closeNativeClient(Object client) { ((MyClient) client).close(); }
 * }
 * }</pre>
 *
 * <p>Thread-safety: one instance per test, as JUnit creates them.
 */
public abstract class RedissonEngineSpec extends EngineSpec {

    /** Creates the kit (JUnit does this). */
    protected RedissonEngineSpec() {
    }

    /** {@link RedissonTck}'s chapters, run on this kit: every hook answers what the enclosing kit answers. */
    @Nested
    class RedissonTckChapters extends RedissonTck {
        RedissonTckChapters() {
        }

        @Override
        protected RedisDriverProvider provider() {
            return RedissonEngineSpec.this.provider();
        }

        @Override
        protected Object newNativeClient(RedisServer server) {
            return RedissonEngineSpec.this.newNativeClient(server);
        }

        @Override
        protected void closeNativeClient(Object nativeClient) {
            RedissonEngineSpec.this.closeNativeClient(nativeClient);
        }

        @Override
        public RedisServer server() {
            return RedissonEngineSpec.this.server();
        }

        @Override
        public Duration livenessBound() {
            return RedissonEngineSpec.this.livenessBound();
        }

        @Override
        public RedisTopology topology() {
            return RedissonEngineSpec.this.topology();
        }

        @Override
        protected Object newNativeClient(RedisTopology topology) {
            return RedissonEngineSpec.this.newNativeClient(topology);
        }

        @Override
        protected Object newNativeClient(RedisTopology topology, String user, String password) {
            return RedissonEngineSpec.this.newNativeClient(topology, user, password);
        }

        @Override
        protected AutoCloseable exhaustPool(Object nativeClient, String key) {
            return RedissonEngineSpec.this.exhaustPool(nativeClient, key);
        }

        @Override
        protected Class<? extends DriverKit> kitClass() {
            return RedissonEngineSpec.this.kitClass();
        }
    }
}
