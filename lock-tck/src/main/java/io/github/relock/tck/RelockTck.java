package io.github.relock.tck;

import io.github.relock.spi.RedisDriverProvider;
import io.github.relock.tck.fixtures.RedisServer;
import io.github.relock.tck.fixtures.RedisTopology;
import java.time.Duration;
import org.junit.jupiter.api.Nested;

/**
 * The whole relock compatibility kit: the driver contract ({@link DriverTck}, whose chapters this
 * class inherits) and the engine spec ({@link EngineSpec}, whose own chapters it nests as
 * {@code EngineSpecChapters}), for a driver author who wants everything in one class. A driver needs to
 * pass {@link DriverTck}; the engine's chapters do not depend on the client and relock runs them
 * once per topology on its reference driver, but a conforming driver passes them as well.
 *
 * <p>Nothing is declared twice: the engine's chapters are declared once (in {@link EngineSpec}
 * and the chapters it inherits), and the two chapters both kits share (21 liveness, 23 lock
 * listeners) run once, as part of the driver contract. {@code RelockCompositionTest} in
 * {@code verification/tck-selftest} fails if this class's rules differ from {@code DriverTck} ∪
 * {@code EngineSpec}.
 *
 * <pre>{@code
 * @Topologies({Kind.SINGLE, Kind.CLUSTER, Kind.SENTINEL}) // optional: one server without it
 * class MyDriverTckTest extends RelockTck {
 *     protected RedisDriverProvider provider() { return new MyDriverProvider(); }
 *     protected Object newNativeClient(RedisServer server) { return new MyClient(server.uri()); }
 *     protected void closeNativeClient(Object client) { ((MyClient) client).close(); }
 * }
 * }</pre>
 *
 * <p>Thread-safety: one instance per test, as JUnit creates them.
 */
public abstract class RelockTck extends DriverTck {

    /** Creates the kit (JUnit does this). */
    protected RelockTck() {
    }

    /**
     * The engine spec's chapters that the driver contract does not have ({@code EngineChapters}),
     * run on this kit: every hook answers what the enclosing kit answers.
     */
    @Nested
    class EngineSpecChapters extends EngineChapters {
        EngineSpecChapters() {
        }

        @Override
        protected RedisDriverProvider provider() {
            return RelockTck.this.provider();
        }

        @Override
        protected Object newNativeClient(RedisServer server) {
            return RelockTck.this.newNativeClient(server);
        }

        @Override
        protected void closeNativeClient(Object nativeClient) {
            RelockTck.this.closeNativeClient(nativeClient);
        }

        @Override
        public RedisServer server() {
            return RelockTck.this.server();
        }

        @Override
        public Duration livenessBound() {
            return RelockTck.this.livenessBound();
        }

        @Override
        public RedisTopology topology() {
            return RelockTck.this.topology();
        }

        @Override
        protected Object newNativeClient(RedisTopology topology) {
            return RelockTck.this.newNativeClient(topology);
        }

        @Override
        protected Object newNativeClient(RedisTopology topology, String user, String password) {
            return RelockTck.this.newNativeClient(topology, user, password);
        }

        @Override
        protected Class<? extends DriverKit> kitClass() {
            return RelockTck.this.kitClass();
        }

        @Override
        protected AutoCloseable exhaustPool(Object nativeClient, String key) {
            return RelockTck.this.exhaustPool(nativeClient, key);
        }
    }
}
