package io.github.relock.tck.selftest;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.platform.engine.discovery.DiscoverySelectors.selectNestedMethod;

import io.github.relock.driver.jedis.JedisDriverProvider;
import io.github.relock.spi.Capability;
import io.github.relock.spi.CommandExecutor;
import io.github.relock.spi.ConnectionListener;
import io.github.relock.spi.DriverOptions;
import io.github.relock.spi.MessageListener;
import io.github.relock.spi.RedisDriverProvider;
import io.github.relock.spi.Script;
import io.github.relock.spi.Subscription;
import io.github.relock.tck.FaultInjectingDriver;
import io.github.relock.tck.Faults;
import io.github.relock.tck.RedisServer;
import io.github.relock.tck.RelockTck;
import java.net.URI;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.CompletableFuture;
import java.util.function.UnaryOperator;
import org.junit.jupiter.api.Test;
import org.junit.platform.testkit.engine.EngineTestKit;
import org.junit.platform.testkit.engine.Event;
import org.junit.platform.testkit.engine.Events;
import redis.clients.jedis.RedisClient;

/**
 * The kit tests itself: selected rules run against deliberately broken drivers (the Jedis driver
 * with one defect injected) must fail, and the same rules against the real driver must pass. A
 * kit that cannot fail proves nothing.
 */
class BrokenDriverKitTest {

    private static final String CONFORMANCE = "io.github.relock.tck.DriverTck$DriverConformance";
    private static final String REENTRANT = "io.github.relock.tck.DriverTck$ReentrantLock";
    private static final String WAITING = "io.github.relock.tck.DriverTck$Waiting";
    private static final String CANCELLATION = "io.github.relock.tck.DriverTck$CancellationAndPartialFailure";

    @Test
    void kit_driverManglingIntegerReplies_failsReplyAndHoldCountRules() throws Exception {
        Set<String> failed = failedRules(MangledIntegersKit.class, List.of(
                rule(CONFORMANCE, "rule1_1_1_eval_scalarReplies_normalisedToNullLongString"),
                rule(REENTRANT, "rule2_1_3_lock_reentered_holdCountFollowsAndKeyGoesAtZero"),
                rule(CONFORMANCE, "rule1_3_1_eval_errorReplies_redisErrorExceptionWithCode")));
        assertEquals(Set.of("rule1_1_1_eval_scalarReplies_normalisedToNullLongString",
                "rule2_1_3_lock_reentered_holdCountFollowsAndKeyGoesAtZero"), failed,
                "integers mangled to strings must break exactly the rules that read integers");
    }

    @Test
    void kit_driverDroppingMessages_failsWakeUpRule() throws Exception {
        Set<String> failed = failedRules(DroppedMessagesKit.class, List.of(
                rule(WAITING, "rule5_1_waiter_wokenByUnlock_notByTtl"),
                rule(WAITING, "rule5_2_noMessage_leaseExpiry_waiterAcquiresWithinTtl")));
        assertEquals(Set.of("rule5_1_waiter_wokenByUnlock_notByTtl"), failed,
                "a driver that drops messages must fail the wake-up rule, and only it: the TTL bound still holds");
    }

    @Test
    void kit_driverNeverGivingLocksBack_failsTheCancelledAcquisitionRule() throws Exception {
        Set<String> failed = failedRules(SwallowedReleasesKit.class, List.of(
                rule(CANCELLATION, "rule12_4_acquisitionLandingAfterCancel_isGivenBack"),
                rule(CANCELLATION, "rule12_19_oversizedLease_refusedBeforeAnythingIsWritten")));
        assertEquals(Set.of("rule12_4_acquisitionLandingAfterCancel_isGivenBack"), failed,
                "a driver that acknowledges releases without running them re-creates the cancel leak: "
                        + "the cancelled acquisition's give-back must be seen to fail, and only it");
    }

    @Test
    void kit_realDriver_passesTheSameRules() throws Exception {
        Set<String> failed = failedRules(RealDriverKit.class, List.of(
                rule(CONFORMANCE, "rule1_1_1_eval_scalarReplies_normalisedToNullLongString"),
                rule(REENTRANT, "rule2_1_3_lock_reentered_holdCountFollowsAndKeyGoesAtZero"),
                rule(WAITING, "rule5_1_waiter_wokenByUnlock_notByTtl"),
                rule(CANCELLATION, "rule12_4_acquisitionLandingAfterCancel_isGivenBack")));
        assertEquals(Set.of(), failed);
    }

    private record Rule(String nested, String method) {
    }

    private static Rule rule(String nested, String method) {
        return new Rule(nested, method);
    }

    private static Set<String> failedRules(Class<?> kit, List<Rule> rules) throws ClassNotFoundException {
        List<org.junit.platform.engine.DiscoverySelector> selectors = new ArrayList<>();
        for (Rule r : rules) {
            selectors.add(selectNestedMethod(List.of(kit), Class.forName(r.nested()), r.method()));
        }
        Events tests = EngineTestKit.engine("junit-jupiter")
                .selectors(selectors.toArray(new org.junit.platform.engine.DiscoverySelector[0]))
                .execute().testEvents();
        assertEquals(rules.size(), tests.started().count(), "every selected rule must run");
        Set<String> failed = new TreeSet<>();
        for (Event e : tests.failed().list()) {
            failed.add(e.getTestDescriptor().getLegacyReportingName().replace("()", ""));
        }
        return failed;
    }

    /**
     * The Jedis driver as it is, on a pooled client: the control, which must pass every selected
     * rule. The broken kits change only its provider.
     */
    static class RealDriverKit extends RelockTck {
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
            ((RedisClient) nativeClient).close();
        }
    }

    /** The Jedis driver with every integer reply turned into its decimal string. */
    static class MangledIntegersKit extends RealDriverKit {
        @Override
        protected RedisDriverProvider provider() {
            return new Wrapping(new JedisDriverProvider(), e -> new Forwarding(e) {
                @Override
                Object reply(Object r) {
                    if (r instanceof Long l) {
                        return Long.toString(l);
                    }
                    if (r instanceof List<?> list) {
                        return list.stream().map(this::reply).toList();
                    }
                    return r;
                }
            });
        }
    }

    /** The Jedis driver delivering no pub/sub message. */
    static class DroppedMessagesKit extends RealDriverKit {
        @Override
        protected RedisDriverProvider provider() {
            return new Wrapping(new JedisDriverProvider(), e -> new Forwarding(e) {
                @Override
                MessageListener listener(MessageListener l) {
                    return (channel, message) -> { };
                }
            });
        }
    }

    /** The Jedis driver acknowledging every lock release with "released" without running it. */
    static class SwallowedReleasesKit extends RealDriverKit {
        @Override
        protected RedisDriverProvider provider() {
            Faults lies = new Faults();
            lies.on("lock-release").times(Integer.MAX_VALUE).answer(1L);
            return new FaultInjectingDriver(new JedisDriverProvider(), lies);
        }
    }

    /** A provider wrapping each executor of another. */
    private record Wrapping(RedisDriverProvider inner, UnaryOperator<CommandExecutor> wrap) implements RedisDriverProvider {
        @Override
        public String name() {
            return "broken-" + inner.name();
        }

        @Override
        public int spiVersion() {
            return inner.spiVersion();
        }

        @Override
        public boolean supports(Object nativeClient) {
            return inner.supports(nativeClient);
        }

        @Override
        public CommandExecutor create(Object nativeClient, DriverOptions options) {
            return wrap.apply(inner.create(nativeClient, options));
        }

        @Override
        public CommandExecutor connect(URI uri, DriverOptions options) {
            return wrap.apply(inner.connect(uri, options));
        }
    }

    /** Forwards everything; subclasses inject one defect. */
    private static class Forwarding implements CommandExecutor {
        private final CommandExecutor inner;

        Forwarding(CommandExecutor inner) {
            this.inner = inner;
        }

        Object reply(Object r) {
            return r;
        }

        MessageListener listener(MessageListener l) {
            return l;
        }

        @Override
        public Object evalSha(Script script, List<String> keys, List<String> args) {
            return reply(inner.evalSha(script, keys, args));
        }

        @Override
        public Object eval(Script script, List<String> keys, List<String> args) {
            return reply(inner.eval(script, keys, args));
        }

        @Override
        public CompletableFuture<Object> evalShaAsync(Script script, List<String> keys, List<String> args) {
            return inner.evalShaAsync(script, keys, args).thenApply(this::reply);
        }

        @Override
        public CompletableFuture<Object> evalAsync(Script script, List<String> keys, List<String> args) {
            return inner.evalAsync(script, keys, args).thenApply(this::reply);
        }

        @Override
        public CompletableFuture<Subscription> subscribe(String channel, boolean sharded, MessageListener l) {
            return inner.subscribe(channel, sharded, listener(l));
        }

        @Override
        public void setConnectionListener(ConnectionListener l) {
            inner.setConnectionListener(l);
        }

        @Override
        public Set<Capability> capabilities() {
            return inner.capabilities();
        }

        @Override
        public void close() {
            inner.close();
        }
    }
}
