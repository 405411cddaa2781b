package io.github.relock.driver.jedis;

import io.github.relock.tck.RedisServer;
import io.github.relock.tck.RelockTck;
import java.lang.reflect.Method;
import java.util.Set;
import org.junit.jupiter.api.extension.ConditionEvaluationResult;
import org.junit.jupiter.api.extension.ExecutionCondition;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.extension.ExtensionContext;
import redis.clients.jedis.JedisPool;

/**
 * Runs the relock TCK against the Jedis driver on a classic {@link JedisPool} (what Spring Data
 * Redis' {@code JedisConnectionFactory} holds): every call borrows a {@code Jedis}, pub/sub holds
 * one while anything is subscribed. Uses only API present in Jedis 6.0 to 8.x, so the
 * {@code jedis-*} profiles run it against older Jedis too.
 *
 * <p>The default build runs only the chapters where how the client holds its connections matters
 * ({@link #POOL_CHAPTERS}: pub/sub and waiting, cancellation, failure signalling, contention
 * across threads, broken and partitioned connections); the others prove scripts and timers that
 * do not depend on the client and run on {@link JedisTckTest}, as do the two fault rules of
 * {@link #NOT_ON_POOL}. The whole kit runs on the pool in
 * the {@code jedis-*} profiles and with {@code -Drelock.jedis.pool.wholeKit=true}.
 */
@ExtendWith(JedisPoolTckTest.PoolChapters.class)
class JedisPoolTckTest extends JedisTckTest {
    /** Maven and system property: run every chapter on the pool, not only {@link #POOL_CHAPTERS}. */
    static final String WHOLE_KIT_PROPERTY = "relock.jedis.pool.wholeKit";

    /** The kit's chapters (nested classes of {@link RelockTck}) the default build runs on the pool. */
    static final Set<String> POOL_CHAPTERS = Set.of("DriverConformance", "ReentrantLock", "Waiting",
            "Concurrency", "FailureSignalling", "CancellationAndPartialFailure", "Faults");

    /**
     * Rules of {@link #POOL_CHAPTERS} the default build leaves to {@link JedisTckTest}: their fault
     * is not on this JVM's connections (a frozen server: the pool sees the command timeouts that
     * rule 18.8's half-open connection gives; a killed child process holding the lock).
     */
    static final Set<String> NOT_ON_POOL = Set.of("rule18_4_serverPausedPastLease_holderToldLost_noOverlap",
            "rule18_6_holderProcessKilled_noRenewalAfterDeath_waiterGranted");

    @Override
    protected Object newNativeClient(RedisServer server) {
        return new JedisPool(server.host(), server.port());
    }

    /**
     * Disables, with the reason, the chapters outside {@link #POOL_CHAPTERS} and the rules in
     * {@link #NOT_ON_POOL}, unless the whole kit is asked for.
     */
    static final class PoolChapters implements ExecutionCondition {
        @Override
        public ConditionEvaluationResult evaluateExecutionCondition(ExtensionContext context) {
            if (Boolean.getBoolean(WHOLE_KIT_PROPERTY)) {
                return ConditionEvaluationResult.enabled("-D" + WHOLE_KIT_PROPERTY + "=true: the whole kit");
            }
            String rule = context.getTestMethod().map(Method::getName).orElse("");
            if (NOT_ON_POOL.contains(rule)) {
                return ConditionEvaluationResult.disabled(rule + " injects no fault on the pool's connections and"
                        + " runs on JedisTckTest; -D" + WHOLE_KIT_PROPERTY + "=true runs it on the pool");
            }
            for (Class<?> c = context.getTestClass().orElse(null); c != null; c = c.getEnclosingClass()) {
                if (c.getEnclosingClass() == RelockTck.class) {
                    return POOL_CHAPTERS.contains(c.getSimpleName())
                            ? ConditionEvaluationResult.enabled(c.getSimpleName() + " depends on the client's connections")
                            : ConditionEvaluationResult.disabled(c.getSimpleName() + " does not depend on how the"
                                    + " client holds its connections and runs on JedisTckTest; the whole kit runs on"
                                    + " the pool with -D" + WHOLE_KIT_PROPERTY + "=true and in the jedis-* profiles");
                }
            }
            return ConditionEvaluationResult.enabled("not a chapter of the kit");
        }
    }
}
