package io.github.relock.tck.redisson;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.relock.api.DistributedLock;
import io.github.relock.api.LockClient;
import io.github.relock.api.RedissonValueCodec;
import io.github.relock.tck.DriverKit;
import io.github.relock.tck.TckChapter;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.redisson.api.RLock;
import org.redisson.api.RedissonClient;
import org.redisson.client.codec.StringCodec;

/**
 * Chapter 11 with Redisson: relock's grouped multi-lock ({@code getMultiLock(group, values)})
 * and Redisson 4.x's ({@code RedissonFasterMultiLock}) on the same group exclude each other both
 * ways, and write the same fields, under Redisson's default codec and its {@code StringCodec}.
 *
 * <p>Thread-safety: one instance per test, as JUnit creates them.
 */
@Tag("redisson-interop")
@Tag("multi-lock")
public abstract class MultiLockInteropChapter extends TckChapter {

    /** @param kit the enclosing kit */
    protected MultiLockInteropChapter(DriverKit kit) {
        super(kit);
    }

    /** @return the value field names in {@code group} (not the per-owner expiry and count fields) */
    private Set<String> valueFields(String group) {
        Set<String> fields = new TreeSet<>();
        for (Object f : (List<?>) redis("HKEYS", group)) {
            if (!String.valueOf(f).contains(":")) {
                fields.add(String.valueOf(f));
            }
        }
        return fields;
    }

    /**
     * Rule 11.8: a Redisson 4.7.0 grouped multi-lock holding values of a group keeps relock's set
     * with a shared value out (a disjoint set is free), and relock's holding keeps Redisson's out;
     * both write the same field per value; a relock waiter is woken by Redisson's release; with a
     * Redisson client on {@code StringCodec}, relock excludes it under
     * {@code RedissonValueCodec.STRING} (and, as documented, not under the default {@code KRYO5}).
     * When it fails: compare the field names (spec 2.8: HighwayHash-128 of the codec's bytes under
     * Redisson's key, unpadded Base64), then the scripts' reading of another owner's expiry.
     */
    @Test
    void rule11_8_groupedMultiLock_excludesRedissonBothWays_sameFields() throws Exception {
        boolean grouped;
        try {
            RedissonClient.class.getMethod("getMultiLock", String.class, java.util.Collection.class);
            grouped = true;
        } catch (NoSuchMethodException e) {
            grouped = false;
        }
        org.junit.jupiter.api.Assumptions.assumeTrue(grouped,
                "the Redisson on the class path has no getMultiLock(String, Collection) (added in Redisson 4)");
        RedissonClient redisson = RedissonConfigs.clientFor(kit, Duration.ofSeconds(30));
        LockClient relock = client();
        List<Object> values = List.of("a", 7L, 42);
        RLock theirs = redisson.getMultiLock("tck:grouped", values);
        DistributedLock ours = relock.getMultiLock("tck:grouped", values);
        theirs.lock();
        Set<String> redissonFields = valueFields("tck:grouped");
        assertEquals(3, redissonFields.size(), redissonFields::toString);
        assertFalse(relock.getMultiLock("tck:grouped", List.of("z", 42)).tryLock(), "a shared value held by Redisson");
        DistributedLock disjoint = relock.getMultiLock("tck:grouped", List.of("z"));
        assertTrue(disjoint.tryLock(), "a value Redisson does not hold is free");
        disjoint.unlock();
        if (RedissonConfigs.relockDeafToRedissonUnlocks(kit)) {
            theirs.unlock();
        } else {
            ExecutorService pool = Executors.newSingleThreadExecutor();
            try {
                Future<Boolean> waiter = pool.submit(() -> ours.tryLock(10, TimeUnit.SECONDS));
                io.github.relock.tck.fixtures.Await.until(Duration.ofSeconds(5), () -> !channels().isEmpty()
                        && valueFields("tck:grouped").size() == 3, () -> "the relock waiter never subscribed");
                theirs.unlock();
                assertTrue(waiter.get(10, TimeUnit.SECONDS), "the relock waiter takes the set once Redisson releases it");
                assertEquals(redissonFields, valueFields("tck:grouped"), "relock writes Redisson's field per value");
                pool.submit(ours::unlock).get(10, TimeUnit.SECONDS);
            } finally {
                pool.shutdownNow();
            }
        }
        ours.lock();
        assertEquals(redissonFields, valueFields("tck:grouped"), "relock writes Redisson's field per value");
        assertFalse(theirs.tryLock(), "Redisson's tryLock fails while relock holds the set");
        assertFalse(redisson.getMultiLock("tck:grouped", List.<Object>of(7L)).tryLock(), "nor a set sharing one value");
        assertTrue(theirs.isLocked());
        ours.unlock();
        assertTrue(theirs.tryLock(), "free again for Redisson");
        theirs.unlock();

        RedissonClient stringCodec = RedissonConfigs.clientFor(kit, Duration.ofSeconds(30), StringCodec.INSTANCE);
        RLock textual = stringCodec.getMultiLock("tck:grouped-text", List.of("a", 7L));
        textual.lock();
        try {
            assertFalse(relock.getMultiLock("tck:grouped-text", List.of(7L), RedissonValueCodec.STRING).tryLock(),
                    "under StringCodec's encoding relock sees Redisson's hold");
            DistributedLock otherCodec = relock.getMultiLock("tck:grouped-text", List.of(7L));
            assertTrue(otherCodec.tryLock(), "under Kryo5's encoding the same value is another field");
            otherCodec.unlock();
        } finally {
            textual.unlock();
        }
        DistributedLock text = relock.getMultiLock("tck:grouped-text", List.of("a", 7L), RedissonValueCodec.STRING);
        text.lock();
        try {
            assertFalse(textual.tryLock(), "Redisson on StringCodec is kept out by relock's STRING set");
        } finally {
            text.unlock();
        }
    }
}
