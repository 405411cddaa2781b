package io.github.relock.tck.selftest;

import io.github.relock.driver.jedis.JedisDriverProvider;
import io.github.relock.spi.RedisDriverProvider;
import io.github.relock.tck.DriverTck;
import io.github.relock.tck.fixtures.RedisCluster;
import io.github.relock.tck.fixtures.RedisServer;
import io.github.relock.tck.fixtures.RedisTopology;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.NoSuchElementException;
import java.util.Set;
import java.util.stream.Collectors;
import redis.clients.jedis.Connection;
import redis.clients.jedis.ConnectionPool;
import redis.clients.jedis.DefaultJedisClientConfig;
import redis.clients.jedis.HostAndPort;
import redis.clients.jedis.RedisClient;
import redis.clients.jedis.RedisClusterClient;

/**
 * The driver contract kit over the Jedis driver as it is ({@link Real}, the control) and with each
 * {@link BrokenDriver} defect: one class each, since JUnit (and the child JVM of rule 18.6) make a
 * kit from its class alone.
 */
final class BrokenKits {
    private BrokenKits() {
    }

    /** @return the kit class that runs the driver contract kit over {@code defect} */
    static Class<? extends DriverTck> of(BrokenDriver defect) {
        return switch (defect) {
            case MANGLED_INTEGERS -> MangledIntegers.class;
            case INTEGERS_AS_NIL -> IntegersAsNil.class;
            case NESTED_ARRAYS_UNNORMALISED -> NestedArraysUnnormalised.class;
            case LATIN1 -> Latin1.class;
            case NOSCRIPT_IGNORED -> NoscriptIgnored.class;
            case ERRORS_UNTYPED -> ErrorsUntyped.class;
            case TRANSIENT_AS_REFUSED -> TransientAsRefused.class;
            case UNAVAILABLE_UNTYPED -> UnavailableUntyped.class;
            case INTERRUPTIBLE_CALLS -> InterruptibleCalls.class;
            case ASYNC_UNNORMALISED -> AsyncUnnormalised.class;
            case BLOCKING_ASYNC -> BlockingAsync.class;
            case THREAD_PER_ASYNC_CALL -> ThreadPerAsyncCall.class;
            case QUEUED_WITHOUT_DEADLINE -> QueuedWithoutDeadline.class;
            case RENEWALS_SHARE_LANE -> RenewalsShareLane.class;
            case RESENT_SCRIPTS -> ResentScripts.class;
            case RELEASES_APPLIED_TWICE -> ReleasesAppliedTwice.class;
            case SWALLOWED_RELEASES -> SwallowedReleases.class;
            case DROPPED_MESSAGES -> DroppedMessages.class;
            case UNCONFIRMED_SUBSCRIBE -> UnconfirmedSubscribe.class;
            case CONNECTION_PER_BATCH -> ConnectionPerBatch.class;
            case EARLY_UNSUBSCRIBE -> EarlyUnsubscribe.class;
            case NO_RESUBSCRIBE -> NoResubscribe.class;
            case SHARDED_DEGRADED_QUIETLY -> ShardedDegradedQuietly.class;
            case WAIT_DROPPED -> WaitDropped.class;
            case NEVER_RECONNECTS -> NeverReconnects.class;
            case LEAKED_THREADS -> LeakedThreads.class;
            case CLOSES_HANDED_CLIENT -> ClosesHandedClient.class;
            case NODE_OF_SLOT_BORROWS -> NodeOfSlotBorrows.class;
            case REFUSED_SUBSCRIPTION_POOLED -> RefusedSubscriptionPooled.class;
            case SILENT_AFTER_RECONNECT -> SilentAfterReconnect.class;
            case DEAF_AFTER_REFUSED_RESUBSCRIBE -> DeafAfterRefusedResubscribe.class;
            case PUBSUB_NEVER_PROBED -> PubSubNeverProbed.class;
        };
    }

    /** The Jedis driver as it is, on a {@code RedisClient}: must pass every rule the others fail. */
    static class Real extends DriverTck {
        @Override
        protected RedisDriverProvider provider() {
            return new JedisDriverProvider();
        }

        @Override
        protected Object newNativeClient(RedisServer server) {
            return RedisClient.create(server.uri());
        }

        @Override
        protected void closeNativeClient(Object nativeClient) {
            try {
                ((AutoCloseable) nativeClient).close(); // a RedisClient or a RedisClusterClient
            } catch (Exception e) {
                throw new IllegalStateException("closing " + nativeClient + " failed", e);
            }
        }

        @Override
        protected Object newNativeClient(RedisTopology topology, String user, String password) {
            RedisServer server = (RedisServer) topology;
            return RedisClient.builder().hostAndPort(server.host(), server.port())
                    .clientConfig(DefaultJedisClientConfig.builder().user(user).password(password).build()).build();
        }
    }

    /** {@link Real} on the kit's 3-master cluster ({@code RedisClusterClient}), whose node pools a rule may exhaust. */
    static class RealOnCluster extends Real {
        @Override
        public RedisTopology topology() {
            return RedisCluster.shared();
        }

        @Override
        protected Object newNativeClient(RedisTopology topology) {
            Set<HostAndPort> seeds = ((RedisCluster) topology).uris().stream()
                    .map(u -> new HostAndPort(u.getHost(), u.getPort())).collect(Collectors.toSet());
            return RedisClusterClient.create(seeds);
        }

        @Override
        protected Object newNativeClient(RedisTopology topology, String user, String password) {
            return null;
        }

        /** Borrows every free connection of the pool of the key's master, without waiting. */
        @Override
        protected AutoCloseable exhaustPool(Object nativeClient, String key) {
            RedisClusterClient client = (RedisClusterClient) nativeClient;
            String node;
            try (Connection c = client.getConnectionFromSlot(RedisCluster.slot(key))) {
                node = c.getHostAndPort().toString();
            }
            ConnectionPool pool = client.getClusterNodes().get(node);
            List<Connection> held = new ArrayList<>();
            try {
                while (pool.getNumActive() < pool.getMaxTotal()) {
                    held.add(pool.borrowObject(Duration.ofMillis(200)));
                }
            } catch (NoSuchElementException exhausted) {
                // taken meanwhile: exhausted all the same
            } catch (Exception e) {
                held.forEach(pool::returnObject);
                throw new IllegalStateException(e);
            }
            return () -> held.forEach(pool::returnObject);
        }
    }

    /** {@link Real} with one defect. */
    abstract static class Broken extends Real {
        private final BrokenDriver defect;

        Broken(BrokenDriver defect) {
            this.defect = defect;
        }

        @Override
        protected RedisDriverProvider provider() {
            return defect.provider(super.provider());
        }

        @Override
        protected void closeNativeClient(Object nativeClient) {
            if (defect != BrokenDriver.CLOSES_HANDED_CLIENT) {
                super.closeNativeClient(nativeClient);
            }
        }
    }

    /** {@link BrokenDriver#NODE_OF_SLOT_BORROWS}, on the cluster. */
    static final class NodeOfSlotBorrows extends RealOnCluster {
        @Override
        protected RedisDriverProvider provider() {
            return BrokenDriver.NODE_OF_SLOT_BORROWS.provider(super.provider());
        }
    }

    /** {@link BrokenDriver#REFUSED_SUBSCRIPTION_POOLED}. */
    static final class RefusedSubscriptionPooled extends Broken {
        RefusedSubscriptionPooled() {
            super(BrokenDriver.REFUSED_SUBSCRIPTION_POOLED);
        }
    }

    /** {@link BrokenDriver#SILENT_AFTER_RECONNECT}. */
    static final class SilentAfterReconnect extends Broken {
        SilentAfterReconnect() {
            super(BrokenDriver.SILENT_AFTER_RECONNECT);
        }
    }

    /** {@link BrokenDriver#DEAF_AFTER_REFUSED_RESUBSCRIBE}. */
    static final class DeafAfterRefusedResubscribe extends Broken {
        DeafAfterRefusedResubscribe() {
            super(BrokenDriver.DEAF_AFTER_REFUSED_RESUBSCRIBE);
        }
    }

    /** {@link BrokenDriver#PUBSUB_NEVER_PROBED}. */
    static final class PubSubNeverProbed extends Broken {
        PubSubNeverProbed() {
            super(BrokenDriver.PUBSUB_NEVER_PROBED);
        }
    }

    /** {@link BrokenDriver#MANGLED_INTEGERS}. */
    static final class MangledIntegers extends Broken {
        MangledIntegers() {
            super(BrokenDriver.MANGLED_INTEGERS);
        }
    }

    /** {@link BrokenDriver#INTEGERS_AS_NIL}. */
    static final class IntegersAsNil extends Broken {
        IntegersAsNil() {
            super(BrokenDriver.INTEGERS_AS_NIL);
        }
    }

    /** {@link BrokenDriver#NESTED_ARRAYS_UNNORMALISED}. */
    static final class NestedArraysUnnormalised extends Broken {
        NestedArraysUnnormalised() {
            super(BrokenDriver.NESTED_ARRAYS_UNNORMALISED);
        }
    }

    /** {@link BrokenDriver#LATIN1}. */
    static final class Latin1 extends Broken {
        Latin1() {
            super(BrokenDriver.LATIN1);
        }
    }

    /** {@link BrokenDriver#NOSCRIPT_IGNORED}. */
    static final class NoscriptIgnored extends Broken {
        NoscriptIgnored() {
            super(BrokenDriver.NOSCRIPT_IGNORED);
        }
    }

    /** {@link BrokenDriver#ERRORS_UNTYPED}. */
    static final class ErrorsUntyped extends Broken {
        ErrorsUntyped() {
            super(BrokenDriver.ERRORS_UNTYPED);
        }
    }

    /** {@link BrokenDriver#TRANSIENT_AS_REFUSED}. */
    static final class TransientAsRefused extends Broken {
        TransientAsRefused() {
            super(BrokenDriver.TRANSIENT_AS_REFUSED);
        }
    }

    /** {@link BrokenDriver#UNAVAILABLE_UNTYPED}. */
    static final class UnavailableUntyped extends Broken {
        UnavailableUntyped() {
            super(BrokenDriver.UNAVAILABLE_UNTYPED);
        }
    }

    /** {@link BrokenDriver#INTERRUPTIBLE_CALLS}. */
    static final class InterruptibleCalls extends Broken {
        InterruptibleCalls() {
            super(BrokenDriver.INTERRUPTIBLE_CALLS);
        }
    }

    /** {@link BrokenDriver#ASYNC_UNNORMALISED}. */
    static final class AsyncUnnormalised extends Broken {
        AsyncUnnormalised() {
            super(BrokenDriver.ASYNC_UNNORMALISED);
        }
    }

    /** {@link BrokenDriver#BLOCKING_ASYNC}. */
    static final class BlockingAsync extends Broken {
        BlockingAsync() {
            super(BrokenDriver.BLOCKING_ASYNC);
        }
    }

    /** {@link BrokenDriver#THREAD_PER_ASYNC_CALL}. */
    static final class ThreadPerAsyncCall extends Broken {
        ThreadPerAsyncCall() {
            super(BrokenDriver.THREAD_PER_ASYNC_CALL);
        }
    }

    /** {@link BrokenDriver#RESENT_SCRIPTS}. */
    static final class ResentScripts extends Broken {
        ResentScripts() {
            super(BrokenDriver.RESENT_SCRIPTS);
        }
    }

    /** {@link BrokenDriver#RELEASES_APPLIED_TWICE}. */
    static final class ReleasesAppliedTwice extends Broken {
        ReleasesAppliedTwice() {
            super(BrokenDriver.RELEASES_APPLIED_TWICE);
        }
    }

    /** {@link BrokenDriver#SWALLOWED_RELEASES}. */
    static final class SwallowedReleases extends Broken {
        SwallowedReleases() {
            super(BrokenDriver.SWALLOWED_RELEASES);
        }
    }

    /** {@link BrokenDriver#DROPPED_MESSAGES}. */
    static final class DroppedMessages extends Broken {
        DroppedMessages() {
            super(BrokenDriver.DROPPED_MESSAGES);
        }
    }

    /** {@link BrokenDriver#UNCONFIRMED_SUBSCRIBE}. */
    static final class UnconfirmedSubscribe extends Broken {
        UnconfirmedSubscribe() {
            super(BrokenDriver.UNCONFIRMED_SUBSCRIBE);
        }
    }

    /** {@link BrokenDriver#CONNECTION_PER_BATCH}. */
    static final class ConnectionPerBatch extends Broken {
        ConnectionPerBatch() {
            super(BrokenDriver.CONNECTION_PER_BATCH);
        }
    }

    /** {@link BrokenDriver#EARLY_UNSUBSCRIBE}. */
    static final class EarlyUnsubscribe extends Broken {
        EarlyUnsubscribe() {
            super(BrokenDriver.EARLY_UNSUBSCRIBE);
        }
    }

    /** {@link BrokenDriver#NO_RESUBSCRIBE}. */
    static final class NoResubscribe extends Broken {
        NoResubscribe() {
            super(BrokenDriver.NO_RESUBSCRIBE);
        }
    }

    /** {@link BrokenDriver#SHARDED_DEGRADED_QUIETLY}. */
    static final class ShardedDegradedQuietly extends Broken {
        ShardedDegradedQuietly() {
            super(BrokenDriver.SHARDED_DEGRADED_QUIETLY);
        }
    }

    /** {@link BrokenDriver#WAIT_DROPPED}. */
    static final class WaitDropped extends Broken {
        WaitDropped() {
            super(BrokenDriver.WAIT_DROPPED);
        }
    }

    /** {@link BrokenDriver#NEVER_RECONNECTS}. */
    static final class NeverReconnects extends Broken {
        NeverReconnects() {
            super(BrokenDriver.NEVER_RECONNECTS);
        }
    }

    /** {@link BrokenDriver#LEAKED_THREADS}. */
    static final class LeakedThreads extends Broken {
        LeakedThreads() {
            super(BrokenDriver.LEAKED_THREADS);
        }
    }

    /** {@link BrokenDriver#CLOSES_HANDED_CLIENT}. */
    static final class ClosesHandedClient extends Broken {
        ClosesHandedClient() {
            super(BrokenDriver.CLOSES_HANDED_CLIENT);
        }
    }

    /** {@link BrokenDriver#QUEUED_WITHOUT_DEADLINE}. */
    static final class QueuedWithoutDeadline extends Broken {
        QueuedWithoutDeadline() {
            super(BrokenDriver.QUEUED_WITHOUT_DEADLINE);
        }
    }

    /** {@link BrokenDriver#RENEWALS_SHARE_LANE}. */
    static final class RenewalsShareLane extends Broken {
        RenewalsShareLane() {
            super(BrokenDriver.RENEWALS_SHARE_LANE);
        }
    }
}
