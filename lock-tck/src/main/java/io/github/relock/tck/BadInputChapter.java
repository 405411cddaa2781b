package io.github.relock.tck;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import io.github.relock.api.DistributedLock;
import io.github.relock.api.FencedLock;
import io.github.relock.api.LockClient;
import io.github.relock.api.LockException;
import io.github.relock.api.LockLease;
import io.github.relock.api.LockOptions;
import io.github.relock.api.ReadWriteDistributedLock;
import io.github.relock.core.RedisLocks;
import io.github.relock.tck.fixtures.Await;
import io.github.relock.tck.fixtures.RedisTopology;
import java.lang.reflect.Proxy;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * Chapter 17: bad input, tried at every public entry. Each gets a clear exception whose message
 * names what was passed and what is allowed, and nothing is written to Redis (no key, no channel
 * subscribed). Asynchronous entries throw a bad argument at once, as their synchronous twins do
 * (no future is made); a closed client's asynchronous entries return a future failed with
 * {@link IllegalStateException}.
 *
 * <p>What is tried, and what it gets:
 * <table>
 * <caption>bad input and its exception</caption>
 * <tr><th>input</th><th>at</th><th>exception</th></tr>
 * <tr><td>lock name {@code null}</td><td>every {@code LockClient.get...Lock(name)}</td>
 *     <td>{@link NullPointerException} "lock name must not be null"</td></tr>
 * <tr><td>lock name empty or blank ({@code ""}, {@code " \t\n"})</td><td>same</td>
 *     <td>{@link IllegalArgumentException} "lock name must not be blank ..., was '...'"</td></tr>
 * <tr><td>lock name with an unpaired surrogate ("a" + U+D800, a lone low surrogate, a
 *     reversed pair)</td><td>same</td><td>{@link IllegalArgumentException} naming the surrogate
 *     and its index: UTF-8 cannot encode it and drivers send it as {@code '?'}, so two such names
 *     would silently share one key</td></tr>
 * <tr><td>lease {@code 0}, {@code -2}, {@code Long.MIN_VALUE}</td><td>every {@code (leaseTime, unit)}
 *     entry, sync, async, fenced, read-write, multi</td><td>{@link IllegalArgumentException}
 *     "leaseTime must be &gt; 0, or -1 for the watchdog, was -2 SECONDS"</td></tr>
 * <tr><td>lease under 1 ms ({@code 1 NANOSECONDS})</td><td>same</td>
 *     <td>{@link IllegalArgumentException} "leaseTime must be at least 1 ms, was ..."</td></tr>
 * <tr><td>lease {@code Long.MAX_VALUE} in MICROSECONDS..DAYS (over 2^53 - 1 ms)</td><td>same</td>
 *     <td>{@link IllegalArgumentException} "leaseTime must be at most 9007199254740991 ms ..., was ..."</td></tr>
 * <tr><td>lease {@code Duration} zero, negative, under 1 ms, {@code ofSeconds(Long.MAX_VALUE)}</td>
 *     <td>every {@code Duration} lease entry</td><td>{@link IllegalArgumentException} naming the Duration</td></tr>
 * <tr><td>TTL {@code Duration} zero (expireIn only), negative, under 1 ms, over 2^53 - 1 ms, {@code null}</td>
 *     <td>{@code LockLease.expireIn}, {@code LockLease.releaseAfter} (a lock's lease and a multi-lock's)</td>
 *     <td>{@link IllegalArgumentException} / {@link NullPointerException} "expireIn: ttl must be from 1 ms
 *     to 9007199254740991 ms (2^53 - 1), was ..."; the lease and its TTL are left as they were</td></tr>
 * <tr><td>wait {@code -2}, {@code Long.MIN_VALUE}, a negative {@code Duration}</td><td>every wait entry</td>
 *     <td>{@link IllegalArgumentException} "waitTime must be &gt;= 0, or -1 for a single attempt, was ..."</td></tr>
 * <tr><td>{@code null} TimeUnit; {@code null} wait or lease Duration</td><td>every entry taking one</td>
 *     <td>{@link NullPointerException} naming the parameter ({@code acquireAsync}'s lease may be
 *     {@code null}: the watchdog)</td></tr>
 * <tr><td>any call on a closed client, or on a lock, fenced lock, read-write lock or multi-lock
 *     made by it</td><td>every entry that would talk to Redis</td>
 *     <td>{@link IllegalStateException} "this LockClient (&lt;id&gt;) is closed"</td></tr>
 * <tr><td>multi-lock / RedLock of {@code null}, of nothing, with a {@code null} member</td>
 *     <td>{@code getMultiLock}, {@code getRedLock}</td><td>{@link NullPointerException} /
 *     {@link IllegalArgumentException} "needs at least one lock"</td></tr>
 * <tr><td>a member that is not a relock lock (another implementation of {@link DistributedLock},
 *     a multi-lock)</td><td>same</td><td>{@link IllegalArgumentException} naming its class</td></tr>
 * <tr><td>the same key twice (one lock object twice, or a lock and a fair lock of one name and
 *     client)</td><td>same</td><td>{@link IllegalArgumentException} "takes each lock at most once"
 *     (one key would be taken reentrantly, or count twice towards a RedLock majority)</td></tr>
 * <tr><td>a member from a closed client</td><td>same, and acquiring a multi-lock made before the
 *     close</td><td>{@link IllegalStateException} naming the member and its client</td></tr>
 * <tr><td>a name with a brace but no complete hash tag (<code>&#123;</code>,
 *     <code>tck:&#123;&#125;x</code>, <code>tck:&#125;</code>)</td><td>every name entry, on a Redis
 *     Cluster only</td><td>{@link IllegalArgumentException} "... cannot be used on a Redis Cluster:
 *     ... different hash slots ... CROSSSLOT": its hash and channel would sit in different slots,
 *     so its release could never run. On one server or Sentinel such names are valid and work.</td></tr>
 * <tr><td>{@link LockOptions.Builder} values out of range or {@code null}</td><td>each setter</td>
 *     <td>{@link IllegalArgumentException} / {@link NullPointerException} naming the setting, the
 *     allowed range and the value</td></tr>
 * <tr><td>{@code RedisLocks.create} with a {@code null} or unsupported client, {@code null}
 *     options; {@code RedisLocks.connect} with a {@code null} or malformed URI</td><td>those</td>
 *     <td>{@link NullPointerException} / {@link IllegalArgumentException}</td></tr>
 * <tr><td>a driver answering a script with a string, a double, an {@code Integer}, a list of the
 *     wrong length or element type, {@code null}, or an integer no script returns</td>
 *     <td>acquire (sync and async), release, state reads, fenced token</td><td>{@link LockException}
 *     naming the script, the lock, the reply and what was expected; never a
 *     {@code ClassCastException} or {@code NullPointerException}. Nothing is registered as held;
 *     a release whose reply was malformed stops renewing the hold, so it expires on its own</td></tr>
 * </table>
 *
 * <p>Valid, and tested to work: names with a complete hash tag (<code>tck:&#123;tag&#125;:a</code>,
 * <code>tck:a&#123;tag&#125;&#125;</code>), with characters outside the BMP or with spaces around them, and of 1 MB (Redis
 * keys are binary-safe up to 512 MB; Redisson accepts them too): each locks exactly that key, waits
 * on Redisson's channel for it (<code>redisson_lock__channel:name</code> when the name has a <code>&#123;</code>,
 * else <code>redisson_lock__channel:&#123;name&#125;</code>), wakes its waiter and leaves nothing. Waits of 0 and
 * -1 make one attempt; {@code Long.MAX_VALUE} waits in every unit neither overflow into a timeout nor
 * hang; a lease of 2^53 - 1 ms, of {@code Long.MAX_VALUE} ns, or of 1 ms is honoured.
 *
 * <p>Run it alone with {@code -Dtest=JedisTckTest -Dgroups=bad-input} (its tag).
 *
 * <p>Thread-safety: one instance per test, as JUnit creates them.
 */
@Tag("bad-input")
public abstract class BadInputChapter extends TckChapter {
    private static final Duration DEADLINE = Duration.ofSeconds(30);
    /** The longest lease relock accepts: 2^53 - 1 ms, the largest integer Lua holds exactly. */
    private static final long MAX_LEASE_MS = (1L << 53) - 1;

    /** @param kit the enclosing kit */
    protected BadInputChapter(DriverKit kit) {
        super(kit);
    }

    // ---------------------------------------------------------------- helpers

    /** A call that takes a lease (or a wait) and a unit. */
    private interface TimedEntry {
        Object call(long time, TimeUnit unit) throws Exception;
    }

    /** A call that takes a Duration. */
    private interface DurationEntry {
        Object call(Duration time) throws Exception;
    }

    /**
     * @return what {@code call} failed with: thrown, or the failure of the future it returned
     * @throws AssertionError if it succeeded
     */
    private static Throwable failure(String entry, Callable<?> call) {
        Object result;
        try {
            result = call.call();
        } catch (Throwable t) {
            return t;
        }
        if (result instanceof CompletableFuture<?> f) {
            try {
                result = f.get(DEADLINE.toSeconds(), TimeUnit.SECONDS);
            } catch (ExecutionException | CompletionException e) {
                return e.getCause();
            } catch (Exception e) {
                return e;
            }
        }
        return fail(entry + " accepted the bad input and returned " + result);
    }

    /** Asserts {@code call} fails with {@code type} and a message containing every one of {@code parts}. */
    private static void assertRefused(Class<? extends Throwable> type, String entry, Callable<?> call, String... parts) {
        Throwable t = failure(entry, call);
        assertInstanceOf(type, t, () -> entry + " failed with " + t + ", not " + type.getSimpleName());
        String message = String.valueOf(t.getMessage());
        for (String part : parts) {
            assertTrue(message.contains(part), () -> entry + ": the message does not name '" + part + "': " + message);
        }
    }

    /** No key, no channel: nothing reached Redis. When it fails: a refused call wrote before it checked. */
    private void assertNothingWritten(String after) {
        assertEquals(List.of(), redis("KEYS", "*"), "keys written by " + after);
        Await.until(DEADLINE, () -> channels().isEmpty(), () -> "channels subscribed by " + after + ": " + channels());
    }

    private static String brief(String name) {
        return name.length() <= 60 ? name : name.substring(0, 60) + "... (" + name.length() + " chars)";
    }

    /** Every name entry of a client. */
    private static Map<String, Function<String, Object>> nameEntries(LockClient c) {
        Map<String, Function<String, Object>> m = new LinkedHashMap<>();
        m.put("getLock", c::getLock);
        m.put("getFairLock", c::getFairLock);
        m.put("getReadWriteLock", c::getReadWriteLock);
        m.put("getFencedLock", c::getFencedLock);
        m.put("getSpinLock", c::getSpinLock);
        m.put("getNonReentrantLock", c::getNonReentrantLock);
        m.put("getNonReentrantFairLock", c::getNonReentrantFairLock);
        return m;
    }

    /** The entries taking a lease or a wait, as {@code (time, unit)} or as a Duration, on every lock type. */
    private record TimedEntries(Map<String, TimedEntry> leases, Map<String, DurationEntry> durationLeases,
                                Map<String, TimedEntry> waits, Map<String, DurationEntry> durationWaits) {
        static TimedEntries of(LockClient c) {
            DistributedLock lock = c.getLock("tck:bad:timed");
            FencedLock fenced = c.getFencedLock("tck:bad:fenced");
            ReadWriteDistributedLock rw = c.getReadWriteLock("tck:bad:rw");
            DistributedLock multi = c.getMultiLock(c.getLock("tck:bad:m1"), c.getLock("tck:bad:m2"));
            DistributedLock red = c.getRedLock(c.getLock("tck:bad:m1"), c.getLock("tck:bad:m2"));
            TimedEntries e = new TimedEntries(new LinkedHashMap<>(), new LinkedHashMap<>(), new LinkedHashMap<>(),
                    new LinkedHashMap<>());
            e.leases.put("lock(lease, unit)", (t, u) -> {
                lock.lock(t, u);
                return "locked";
            });
            e.leases.put("lockInterruptibly(lease, unit)", (t, u) -> {
                lock.lockInterruptibly(t, u);
                return "locked";
            });
            e.leases.put("tryLock(0, lease, unit)", (t, u) -> lock.tryLock(0, t, u));
            e.leases.put("lockAsync(lease, unit)", lock::lockAsync);
            e.leases.put("lockAsync(lease, unit, threadId)", (t, u) -> lock.lockAsync(t, u, 7));
            e.leases.put("tryLockAsync(0, lease, unit)", (t, u) -> lock.tryLockAsync(0, t, u));
            e.leases.put("tryLockAsync(0, lease, unit, threadId)", (t, u) -> lock.tryLockAsync(0, t, u, 7));
            e.leases.put("fenced lockAndGetToken(lease, unit)", fenced::lockAndGetToken);
            e.leases.put("fenced tryLockAndGetToken(0, lease, unit)", (t, u) -> fenced.tryLockAndGetToken(0, t, u));
            e.leases.put("fenced tryLockAndGetTokenAsync(0, lease, unit, threadId)",
                    (t, u) -> fenced.tryLockAndGetTokenAsync(0, t, u, 7));
            e.leases.put("readLock().tryLock(0, lease, unit)", (t, u) -> rw.readLock().tryLock(0, t, u));
            e.leases.put("writeLock().lock(lease, unit)", (t, u) -> {
                rw.writeLock().lock(t, u);
                return "locked";
            });
            e.leases.put("multi tryLock(0, lease, unit)", (t, u) -> multi.tryLock(0, t, u));
            e.leases.put("multi lockAsync(lease, unit)", multi::lockAsync);
            e.durationLeases.put("lock(Duration)", d -> {
                lock.lock(d);
                return "locked";
            });
            e.durationLeases.put("tryLock(0, Duration)", d -> lock.tryLock(Duration.ZERO, d));
            e.durationLeases.put("acquire(0, Duration)", d -> lock.acquire(Duration.ZERO, d));
            e.durationLeases.put("multi acquire(0, Duration)", d -> multi.acquire(Duration.ZERO, d));
            e.waits.put("tryLock(wait, unit)", lock::tryLock);
            e.waits.put("tryLock(wait, -1, unit)", (t, u) -> lock.tryLock(t, -1, u));
            e.waits.put("tryLockAsync(wait, unit)", lock::tryLockAsync);
            e.waits.put("tryLockAsync(wait, 5, unit, threadId)", (t, u) -> lock.tryLockAsync(t, 5, u, 7));
            e.waits.put("fenced tryLockAndGetToken(wait, unit)", fenced::tryLockAndGetToken);
            e.waits.put("fenced tryLockAndGetTokenAsync(wait, -1, unit, threadId)",
                    (t, u) -> fenced.tryLockAndGetTokenAsync(t, -1, u, 7));
            e.waits.put("RedLock tryLock(wait, unit)", red::tryLock);
            e.waits.put("RedLock tryLockAsync(wait, unit)", red::tryLockAsync);
            e.durationWaits.put("tryLock(Duration)", lock::tryLock);
            e.durationWaits.put("tryLock(Duration, 5 s)", d -> lock.tryLock(d, Duration.ofSeconds(5)));
            e.durationWaits.put("acquire(Duration)", lock::acquire);
            e.durationWaits.put("acquireAsync(Duration, null)", d -> lock.acquireAsync(d, null));
            e.durationWaits.put("multi acquire(Duration)", multi::acquire);
            return e;
        }
    }

    // ---------------------------------------------------------------- names

    /**
     * Rule 17.1: a {@code null} name is refused with NullPointerException, an empty or blank one
     * with IllegalArgumentException, at every name entry; nothing is written. When it fails: a
     * getter does not run the name check, or its message does not say what a name must be.
     */
    @Test
    void rule17_1_nullEmptyBlankName_refusedAtEveryNameEntry() {
        LockClient c = client();
        nameEntries(c).forEach((entry, get) -> {
            assertRefused(NullPointerException.class, entry + "(null)", () -> get.apply(null), "lock name", "null");
            for (String blank : List.of("", " ", " \t\n")) {
                assertRefused(IllegalArgumentException.class, entry + "('" + blank + "')", () -> get.apply(blank),
                        "lock name must not be blank", "'" + blank + "'");
            }
        });
        assertNothingWritten("refused names");
    }

    /**
     * Rule 17.2: a name with an unpaired surrogate (no UTF-8 form) is refused at every name entry,
     * naming the surrogate and its index; nothing is written. When it fails: the name reached the
     * driver, which sends '?' in its place, so two different names would share one lock key.
     */
    @Test
    void rule17_2_unpairedSurrogateName_refusedNotMergedIntoQuestionMark() {
        LockClient c = client();
        Map<String, String> names = new LinkedHashMap<>();
        names.put("tck:\uD800", "\\uD800 at index 4");
        names.put("tck:\uDC00x", "\\uDC00 at index 4");
        names.put("tck:\uDC00\uD800", "\\uDC00 at index 4"); // a reversed pair is two unpaired halves
        names.put("tck:\uD83D\uDD12\uD83D", "\\uD83D at index 6"); // a valid pair, then a lone half
        nameEntries(c).forEach((entry, get) -> names.forEach((name, where) ->
                assertRefused(IllegalArgumentException.class, entry + " of a name with an unpaired surrogate",
                        () -> get.apply(name), "unpaired surrogate", where, "UTF-8")));
        assertNothingWritten("names with unpaired surrogates");
    }

    /**
     * Rule 17.3: names with a complete hash tag (and a stray brace after it), characters outside
     * the BMP, surrounding spaces, and a name of 1 MB are valid on every deployment: each locks
     * exactly that key (a hash), excludes another client, makes a waiter wait on Redisson's
     * channel for it and wakes it on unlock, and leaves nothing. When it fails: the key or channel
     * is not Redisson's (a '{' must suppress the added braces), the name was altered on its way to
     * Redis, or a large name broke a script or subscription.
     */
    @Test
    void rule17_3_unusualValidNames_lockTheirOwnKeyOnRedissonChannel() throws Exception {
        LockClient a = client();
        LockClient b = client();
        for (String name : List.of("tck:{tag}:a", "tck:a{tag}}", "tck:\u9501-\u043a\u043b\u044e\u0447-\uD83D\uDD12",
                " tck:padded ", "tck:huge:" + "x".repeat(1 << 20))) {
            assertLocksItsOwnKey(a, b, name);
        }
    }

    /**
     * Rule 17.15: a {@code NameMapper} that returns null, an empty or blank name, or a name with an
     * unpaired surrogate, or that throws, makes every name entry fail with IllegalArgumentException
     * naming the input, the mapped value and what a name must be; {@code NameMapper.prefix} and
     * {@code LockOptions.Builder.nameMapper} refuse null and an empty prefix; nothing is written.
     * When it fails: the mapped name reached Redis unchecked, or the message hides which name failed.
     */
    @Test
    void rule17_15_badNameMapper_refusedNamingInputAndMappedValue() {
        Map<String, io.github.relock.api.NameMapper> mappers = new LinkedHashMap<>();
        mappers.put("null", name -> null);
        mappers.put("''", name -> "");
        mappers.put("' '", name -> " ");
        mappers.put("'tck:\uD800'", name -> "tck:\uD800");
        for (Map.Entry<String, io.github.relock.api.NameMapper> m : mappers.entrySet()) {
            LockClient c = kit.newLockClient(LockOptions.builder().nameMapper(m.getValue()).build());
            nameEntries(c).forEach((entry, get) -> assertRefused(IllegalArgumentException.class,
                    entry + " with a mapper returning " + m.getKey(), () -> get.apply("tck:user"),
                    "'tck:user'", m.getKey(), "not null, not blank"));
        }
        LockClient throwing = kit.newLockClient(LockOptions.builder().nameMapper(name -> {
            throw new IllegalStateException("mapper broke");
        }).build());
        nameEntries(throwing).forEach((entry, get) -> assertRefused(IllegalArgumentException.class,
                entry + " with a throwing mapper", () -> get.apply("tck:user"), "'tck:user'", "mapper broke"));
        assertRefused(NullPointerException.class, "NameMapper.prefix(null)",
                () -> io.github.relock.api.NameMapper.prefix(null), "prefix", "null");
        assertRefused(IllegalArgumentException.class, "NameMapper.prefix('')",
                () -> io.github.relock.api.NameMapper.prefix(""), "prefix", "empty", "identity");
        assertRefused(NullPointerException.class, "nameMapper(null)",
                () -> LockOptions.builder().nameMapper(null), "nameMapper", "null");
        assertNothingWritten("refused mapped names");
    }

    /**
     * Rule 17.14: a name with a brace but no complete hash tag (<code>&#123;</code>,
     * <code>tck:&#123;&#125;x</code>, a '}' with no '{' before it) spreads the lock's hash and its channel over different slots. On
     * a Redis Cluster every name entry refuses it, naming the slots and what to use instead, and
     * nothing is written; on one server or Sentinel, where slots do not matter, it works as in
     * rule 17.3. When it fails on a cluster: the lock was taken and its release failed with
     * CROSSSLOT, so it could never be released.
     */
    @Test
    void rule17_14_braceWithoutCompleteHashTag_refusedOnClusterOnly() throws Exception {
        List<String> names = List.of("{", "tck:{}x", "tck:}", "tck:}{");
        LockClient a = client();
        if (kit.topology().kind() == RedisTopology.Kind.CLUSTER) {
            nameEntries(a).forEach((entry, get) -> names.forEach(name ->
                    assertRefused(IllegalArgumentException.class, entry + "('" + name + "') on a cluster", () -> get.apply(name),
                            "'" + name + "' cannot be used on a Redis Cluster", "different hash slots", "CROSSSLOT")));
            assertNothingWritten("names refused on a cluster");
            return;
        }
        LockClient b = client();
        for (String name : names) {
            assertLocksItsOwnKey(a, b, name);
        }
    }

    /** Rule 17.3's checks for one name: its own key, Redisson's channel, a woken waiter, nothing left. */
    private void assertLocksItsOwnKey(LockClient a, LockClient b, String name) throws Exception {
        String channel = "redisson_lock__channel:" + (name.indexOf('{') >= 0 ? name : "{" + name + "}");
        DistributedLock held = a.getLock(name);
        assertTrue(held.tryLock(), () -> "lock '" + brief(name) + "' not acquired on a free key");
        assertEquals("hash", redis("TYPE", name), () -> "lock '" + brief(name) + "' is not the hash of that exact key");
        assertFalse(b.getLock(name).tryLock(), () -> "another client took lock '" + brief(name) + "' while held");
        CompletableFuture<LockLease> waiter = b.getLock(name).acquireAsync(DEADLINE, null);
        Await.until(DEADLINE, () -> channels().contains(channel),
                () -> "the waiter of '" + brief(name) + "' is not on Redisson's channel " + brief(channel));
        assertFalse(waiter.isDone(), () -> "the waiter of '" + brief(name) + "' ended while the lock was held");
        held.unlock();
        LockLease lease = waiter.get(DEADLINE.toSeconds(), TimeUnit.SECONDS);
        assertTrue(lease.isValid(), () -> "the woken waiter of '" + brief(name) + "' holds no valid lease");
        lease.close();
        assertNothingWritten("lock '" + brief(name) + "' after its unlock");
    }

    // ---------------------------------------------------------------- leases and waits

    /**
     * Rule 17.4: a lease of 0, -2, {@code Long.MIN_VALUE}, under 1 ms, or over 2^53 - 1 ms (each
     * unit's {@code Long.MAX_VALUE} from MICROSECONDS up), and a {@code Duration} lease that is
     * zero, negative, under 1 ms or huge, are refused at every lease entry with a message naming
     * the value and the allowed range; a {@code null} unit or Duration with NullPointerException;
     * nothing is written. When it fails: an entry skipped the lease check (a lease Redis cannot
     * hold would be written first and fail after), or rounded a sub-millisecond lease to 0.
     */
    @Test
    void rule17_4_badLease_refusedAtEveryLeaseEntry() {
        TimedEntries entries = TimedEntries.of(client());
        entries.leases().forEach((entry, call) -> {
            for (long lease : new long[] {0, -2, Long.MIN_VALUE}) {
                assertRefused(IllegalArgumentException.class, entry + " lease " + lease, () -> call.call(lease, TimeUnit.SECONDS),
                        "leaseTime must be > 0, or -1 for the watchdog", "was " + lease + " SECONDS");
            }
            assertRefused(IllegalArgumentException.class, entry + " lease 1 ns", () -> call.call(1, TimeUnit.NANOSECONDS),
                    "leaseTime must be at least 1 ms", "was 1 NANOSECONDS");
            for (TimeUnit unit : TimeUnit.values()) {
                if (unit != TimeUnit.NANOSECONDS) {
                    assertRefused(IllegalArgumentException.class, entry + " lease Long.MAX_VALUE " + unit,
                            () -> call.call(Long.MAX_VALUE, unit), "leaseTime must be at most " + MAX_LEASE_MS + " ms",
                            "was " + Long.MAX_VALUE + " " + unit);
                }
            }
            assertRefused(NullPointerException.class, entry + " null unit", () -> call.call(5, null), "unit must not be null");
        });
        entries.durationLeases().forEach((entry, call) -> {
            for (Duration lease : List.of(Duration.ZERO, Duration.ofSeconds(-1), Duration.ofSeconds(Long.MIN_VALUE))) {
                assertRefused(IllegalArgumentException.class, entry + " lease " + lease, () -> call.call(lease),
                        "leaseTime must be positive", "was " + lease);
            }
            Duration subMilli = Duration.ofNanos(999_999);
            assertRefused(IllegalArgumentException.class, entry + " lease " + subMilli, () -> call.call(subMilli),
                    "leaseTime must be at least 1 ms", "was " + subMilli);
            Duration huge = Duration.ofSeconds(Long.MAX_VALUE);
            assertRefused(IllegalArgumentException.class, entry + " lease " + huge, () -> call.call(huge),
                    "leaseTime must be at most " + MAX_LEASE_MS + " ms", "was " + huge);
            assertRefused(NullPointerException.class, entry + " null lease", () -> call.call(null), "leaseTime must not be null");
        });
        DistributedLock lock = client().getLock("tck:bad:async");
        assertRefused(IllegalArgumentException.class, "acquireAsync(0, PT0S)", () -> lock.acquireAsync(Duration.ZERO, Duration.ZERO),
                "leaseTime must be positive", "was PT0S");
        assertNothingWritten("refused leases");
    }

    /**
     * Rule 17.5: a wait of -2 or {@code Long.MIN_VALUE}, or a negative {@code Duration}, is refused
     * at every wait entry naming the value and that only {@code >= 0} or -1 is allowed; a
     * {@code null} unit or Duration with NullPointerException; nothing is written. When it fails:
     * a negative wait was read as "forever" or as one attempt, or was checked only after an attempt.
     */
    @Test
    void rule17_5_badWait_refusedAtEveryWaitEntry() {
        TimedEntries entries = TimedEntries.of(client());
        entries.waits().forEach((entry, call) -> {
            for (long wait : new long[] {-2, Long.MIN_VALUE}) {
                assertRefused(IllegalArgumentException.class, entry + " wait " + wait, () -> call.call(wait, TimeUnit.SECONDS),
                        "waitTime must be >= 0, or -1 for a single attempt", "was " + wait + " SECONDS");
            }
            assertRefused(NullPointerException.class, entry + " null unit", () -> call.call(5, null), "unit must not be null");
        });
        entries.durationWaits().forEach((entry, call) -> {
            for (Duration wait : List.of(Duration.ofNanos(-1), Duration.ofSeconds(Long.MIN_VALUE))) {
                assertRefused(IllegalArgumentException.class, entry + " wait " + wait, () -> call.call(wait),
                        "waitTime must be >= 0", "was " + wait);
            }
            assertRefused(NullPointerException.class, entry + " null wait", () -> call.call(null), "waitTime must not be null");
        });
        assertNothingWritten("refused waits");
    }

    /**
     * Rule 17.6: the boundary values that are valid work: waits of 0 and -1 make one attempt and
     * never subscribe; {@code Long.MAX_VALUE} waits in every unit take a free lock at once, and on
     * a held lock keep waiting (no overflow into an immediate timeout) until woken; leases of
     * 2^53 - 1 ms and {@code Long.MAX_VALUE} ns are set as PTTLs; a 1 ms lease expires on its own.
     * When it fails: a conversion overflowed (a huge wait became negative, a huge lease wrapped) or
     * a boundary value was refused.
     */
    @Test
    void rule17_6_validBoundaries_work() throws Exception {
        LockClient a = client();
        LockClient b = client();
        DistributedLock lock = a.getLock("tck:bound");
        DistributedLock other = b.getLock("tck:bound");
        for (long wait : new long[] {0, -1}) {
            assertTrue(lock.tryLock(wait, TimeUnit.SECONDS), "wait " + wait + " did not take a free lock");
            assertFalse(other.tryLock(wait, TimeUnit.SECONDS), "wait " + wait + " took a held lock");
            assertTrue(channels().isEmpty(), () -> "a one-attempt wait subscribed: " + channels());
            lock.unlock();
        }
        for (TimeUnit unit : TimeUnit.values()) {
            assertTrue(lock.tryLock(Long.MAX_VALUE, unit), "wait Long.MAX_VALUE " + unit + " did not take a free lock");
            lock.unlock();
        }
        assertTrue(lock.tryLock(Duration.ofSeconds(Long.MAX_VALUE)), "a huge Duration wait did not take a free lock");
        lock.unlock();

        lock.lock();
        long waiterId = 42;
        CompletableFuture<Boolean> waiter = other.tryLockAsync(Long.MAX_VALUE, -1, TimeUnit.DAYS, waiterId);
        Await.until(DEADLINE, () -> channels().contains("redisson_lock__channel:{tck:bound}"),
                () -> "a Long.MAX_VALUE DAYS waiter never subscribed (done: " + waiter + ")");
        assertFalse(waiter.isDone(), "a Long.MAX_VALUE DAYS wait ended while the lock was held: " + waiter);
        lock.unlock();
        assertTrue(waiter.get(DEADLINE.toSeconds(), TimeUnit.SECONDS), "the Long.MAX_VALUE DAYS waiter was not woken");
        other.unlockAsync(waiterId).get(DEADLINE.toSeconds(), TimeUnit.SECONDS);

        assertTrue(lock.tryLock(0, MAX_LEASE_MS, TimeUnit.MILLISECONDS), "a lease of 2^53 - 1 ms was refused");
        assertTrue(pttl("tck:bound") > MAX_LEASE_MS - DEADLINE.toMillis(), "PTTL of a 2^53 - 1 ms lease: " + pttl("tck:bound"));
        lock.unlock();
        assertTrue(lock.tryLock(0, Long.MAX_VALUE, TimeUnit.NANOSECONDS), "a lease of Long.MAX_VALUE ns was refused");
        long maxNanosMs = TimeUnit.NANOSECONDS.toMillis(Long.MAX_VALUE);
        long ttl = pttl("tck:bound");
        assertTrue(ttl > maxNanosMs - DEADLINE.toMillis() && ttl <= maxNanosMs, "PTTL of a Long.MAX_VALUE ns lease: " + ttl);
        lock.unlock();
        assertTrue(lock.tryLock(0, 1, TimeUnit.MILLISECONDS), "a lease of 1 ms was refused");
        Await.until(DEADLINE, () -> (Long) redis("EXISTS", "tck:bound") == 0, () -> "a 1 ms lease did not expire");
        assertNothingWritten("valid boundary values");
    }

    // ---------------------------------------------------------------- closed client

    /**
     * Rule 17.7: once a client is closed, every entry of it and of every lock it made (sync calls,
     * async calls, leases, fenced, read-write and multi-locks) fails with IllegalStateException
     * naming the client as closed, an async one through its future; nothing is written. When it
     * fails: an entry skipped the open check and reached a closed driver (an unclear driver error),
     * or wrote before it checked.
     */
    @Test
    void rule17_7_closedClient_everyEntryIllegalState() {
        LockClient c = client();
        DistributedLock lock = c.getLock("tck:closed");
        FencedLock fenced = c.getFencedLock("tck:closed:fenced");
        ReadWriteDistributedLock rw = c.getReadWriteLock("tck:closed:rw");
        DistributedLock multi = c.getMultiLock(c.getLock("tck:closed:m1"), c.getLock("tck:closed:m2"));
        String id = c.clientId();
        c.close();
        Map<String, Callable<?>> entries = new LinkedHashMap<>();
        nameEntries(c).forEach((entry, get) -> entries.put(entry, () -> get.apply("tck:closed:new")));
        entries.put("getMultiLock", () -> c.getMultiLock(lock));
        entries.put("getRedLock", () -> c.getRedLock(lock));
        entries.put("lock()", () -> {
            lock.lock();
            return "locked";
        });
        entries.put("lock(5 s)", () -> {
            lock.lock(5, TimeUnit.SECONDS);
            return "locked";
        });
        entries.put("lockInterruptibly()", () -> {
            lock.lockInterruptibly();
            return "locked";
        });
        entries.put("tryLock()", lock::tryLock);
        entries.put("tryLock(1 s)", () -> lock.tryLock(1, TimeUnit.SECONDS));
        entries.put("tryLock(Duration)", () -> lock.tryLock(Duration.ofSeconds(1)));
        entries.put("unlock()", () -> {
            lock.unlock();
            return "unlocked";
        });
        entries.put("forceUnlock()", lock::forceUnlock);
        entries.put("isLocked()", lock::isLocked);
        entries.put("isHeldByThread(1)", () -> lock.isHeldByThread(1));
        entries.put("isHeldByCurrentThread()", lock::isHeldByCurrentThread);
        entries.put("getHoldCount()", lock::getHoldCount);
        entries.put("remainTimeToLive()", lock::remainTimeToLive);
        entries.put("acquire()", lock::acquire);
        entries.put("acquire(Duration)", () -> lock.acquire(Duration.ofSeconds(1)));
        entries.put("acquireAsync", () -> lock.acquireAsync(Duration.ofSeconds(1), null));
        entries.put("lockAsync()", lock::lockAsync);
        entries.put("lockAsync(5 s, threadId)", () -> lock.lockAsync(5, TimeUnit.SECONDS, 7));
        entries.put("tryLockAsync()", lock::tryLockAsync);
        entries.put("tryLockAsync(1 s, 5 s)", () -> lock.tryLockAsync(1, 5, TimeUnit.SECONDS));
        entries.put("unlockAsync()", lock::unlockAsync);
        entries.put("forceUnlockAsync()", lock::forceUnlockAsync);
        entries.put("isLockedAsync()", lock::isLockedAsync);
        entries.put("isHeldByThreadAsync(1)", () -> lock.isHeldByThreadAsync(1));
        entries.put("getHoldCountAsync(1)", () -> lock.getHoldCountAsync(1));
        entries.put("remainTimeToLiveAsync()", lock::remainTimeToLiveAsync);
        entries.put("fenced lockAndGetToken()", fenced::lockAndGetToken);
        entries.put("fenced tryLockAndGetToken()", fenced::tryLockAndGetToken);
        entries.put("fenced getToken()", fenced::getToken);
        entries.put("fenced getTokenAsync()", fenced::getTokenAsync);
        entries.put("fenced lockAndGetTokenAsync()", fenced::lockAndGetTokenAsync);
        entries.put("readLock().tryLock()", () -> rw.readLock().tryLock());
        entries.put("writeLock().tryLock()", () -> rw.writeLock().tryLock());
        entries.put("writeLock().isLocked()", () -> rw.writeLock().isLocked());
        entries.put("multi tryLock()", multi::tryLock);
        entries.put("multi lock()", () -> {
            multi.lock();
            return "locked";
        });
        entries.put("multi tryLockAsync()", multi::tryLockAsync);
        entries.put("multi acquire(Duration)", () -> multi.acquire(Duration.ofSeconds(1)));
        entries.put("multi isHeldByThread(1)", () -> multi.isHeldByThread(1));
        entries.forEach((entry, call) -> assertRefused(IllegalStateException.class, entry + " on a closed client", call, "closed", id));
        assertNothingWritten("calls on a closed client");
    }

    // ---------------------------------------------------------------- multi-locks

    /**
     * Rule 17.8: multi-locks and RedLocks refuse a {@code null} array, no locks, a {@code null}
     * member, a member that is not a relock lock (another implementation, a multi-lock), the same
     * key twice from one client, and a member from a closed client; nothing is written. When it
     * fails: a foreign object got as far as a cast, a duplicate would be taken reentrantly or count
     * twice towards a RedLock majority, or a closed member was quietly outvoted.
     */
    @Test
    void rule17_8_multiLockBadMembers_refused() {
        LockClient c = client();
        LockClient closed = client();
        DistributedLock a = c.getLock("tck:mb:a");
        DistributedLock foreign = (DistributedLock) Proxy.newProxyInstance(DistributedLock.class.getClassLoader(),
                new Class<?>[] {DistributedLock.class}, (proxy, method, args) -> {
                    throw new AssertionError("a multi-lock called " + method.getName() + " on a foreign lock");
                });
        DistributedLock closedMember = closed.getLock("tck:mb:closed");
        closed.close();
        Map<String, Function<DistributedLock[], DistributedLock>> kinds = new LinkedHashMap<>();
        kinds.put("MultiLock", c::getMultiLock);
        kinds.put("RedLock", c::getRedLock);
        kinds.forEach((kind, make) -> {
            assertRefused(NullPointerException.class, kind + " of null", () -> make.apply(null), "locks must not be null");
            assertRefused(IllegalArgumentException.class, kind + " of nothing", () -> make.apply(new DistributedLock[0]),
                    kind + " needs at least one lock");
            assertRefused(NullPointerException.class, kind + " with a null member",
                    () -> make.apply(new DistributedLock[] {a, null}), "must not contain null");
            assertRefused(IllegalArgumentException.class, kind + " with a foreign lock",
                    () -> make.apply(new DistributedLock[] {a, foreign}), "relock LockClients", foreign.getClass().getName());
            DistributedLock nested = c.getMultiLock(c.getLock("tck:mb:n"));
            assertRefused(IllegalArgumentException.class, kind + " with a multi-lock member",
                    () -> make.apply(new DistributedLock[] {a, nested}), "relock LockClients", nested.getClass().getName());
            assertRefused(IllegalArgumentException.class, kind + " with one lock twice",
                    () -> make.apply(new DistributedLock[] {a, c.getLock("tck:mb:b"), a}), "at most once", "'tck:mb:a'");
            assertRefused(IllegalArgumentException.class, kind + " with a lock and a fair lock of one key",
                    () -> make.apply(new DistributedLock[] {a, c.getFairLock("tck:mb:a")}), "at most once", "'tck:mb:a'");
            assertRefused(IllegalStateException.class, kind + " with a member of a closed client",
                    () -> make.apply(new DistributedLock[] {a, closedMember}), "closed", closed.clientId(), "'tck:mb:closed'");
        });
        assertNothingWritten("refused multi-locks");
    }

    /**
     * Rule 17.9: locks of other clients are valid members: a multi-lock and a RedLock made by one
     * client over locks of two others lock every member's key under one owner and leave nothing
     * once unlocked. When it fails: "foreign" was read too widely, refusing the multi-server use
     * multi-locks exist for.
     */
    @Test
    void rule17_9_multiLockOverOtherClientsLocks_works() throws Exception {
        LockClient maker = client();
        LockClient x = client();
        LockClient y = client();
        for (DistributedLock multi : List.of(maker.getMultiLock(x.getLock("tck:mo:x"), y.getLock("tck:mo:y")),
                maker.getRedLock(x.getLock("tck:mo:x"), y.getLock("tck:mo:y")))) {
            assertTrue(multi.tryLock(5, 10, TimeUnit.SECONDS), multi + " over other clients' locks not acquired");
            assertEquals(1L, redis("EXISTS", "tck:mo:x"), multi + " did not lock x");
            assertEquals(1L, redis("EXISTS", "tck:mo:y"), multi + " did not lock y");
            assertTrue(multi.isHeldByCurrentThread(), multi + " not held by its owner");
            multi.unlock();
            assertNothingWritten(multi + " after its unlock");
        }
    }

    // ---------------------------------------------------------------- options and factories

    /**
     * Rule 17.10: every {@link LockOptions.Builder} setter refuses an out-of-range or {@code null}
     * value naming the setting, the range and the value; {@code RedisLocks.create} and
     * {@code connect} refuse a {@code null} or unsupported client, {@code null} options and a
     * malformed URI; nothing is written. When it fails: a bad setting was accepted and would fail
     * later, far from its cause.
     */
    @Test
    void rule17_10_badOptionsAndFactoryArguments_refused() {
        LockOptions.Builder b = LockOptions.builder();
        assertRefused(NullPointerException.class, "lockWatchdogTimeout(null)", () -> b.lockWatchdogTimeout(null),
                "lockWatchdogTimeout must not be null");
        assertRefused(IllegalArgumentException.class, "lockWatchdogTimeout(29 ms)", () -> b.lockWatchdogTimeout(Duration.ofMillis(29)),
                "lockWatchdogTimeout must be at least 30 ms", "was 29 ms");
        assertRefused(IllegalArgumentException.class, "lockWatchdogTimeout(huge negative)",
                () -> b.lockWatchdogTimeout(Duration.ofSeconds(Long.MIN_VALUE)), "at least 30 ms", "was PT-");
        assertRefused(IllegalArgumentException.class, "fairLockWaitTimeout(0)", () -> b.fairLockWaitTimeout(Duration.ZERO),
                "fairLockWaitTimeout must be at least 1 ms", "was 0 ms");
        assertRefused(IllegalArgumentException.class, "commandTimeout(-1 ms)", () -> b.commandTimeout(Duration.ofMillis(-1)),
                "commandTimeout must be at least 1 ms", "was -1 ms");
        assertRefused(IllegalArgumentException.class, "subscriptionTimeout(1 ns)", () -> b.subscriptionTimeout(Duration.ofNanos(1)),
                "subscriptionTimeout must be at least 1 ms", "was PT0.000000001S");
        for (int size : new int[] {0, -1, 1001}) {
            assertRefused(IllegalArgumentException.class, "renewalBatchSize(" + size + ")", () -> b.renewalBatchSize(size),
                    "renewalBatchSize must be 1..1000", "was " + size);
        }
        assertRefused(NullPointerException.class, "clientId(null)", () -> b.clientId(null), "clientId must not be null");
        for (String id : List.of("", "  ", "a:b")) {
            assertRefused(IllegalArgumentException.class, "clientId('" + id + "')", () -> b.clientId(id),
                    "non-blank and contain no ':'", "'" + id + "'");
        }
        assertRefused(NullPointerException.class, "lockLostExecutor(null)", () -> b.lockLostExecutor(null),
                "lockLostExecutor must not be null");
        assertRefused(NullPointerException.class, "spinBackOff(null, 1 ms)", () -> b.spinBackOff(null, Duration.ofMillis(1)),
                "spinBackOff initial must not be null");
        assertRefused(IllegalArgumentException.class, "spinBackOff(2 ms, 1 ms)",
                () -> b.spinBackOff(Duration.ofMillis(2), Duration.ofMillis(1)), "must not exceed max", "2 ms > 1 ms");
        assertRefused(IllegalArgumentException.class, "spinBackOff(1 ms, 61 s)",
                () -> b.spinBackOff(Duration.ofMillis(1), Duration.ofSeconds(61)), "at most 60000 ms", "was 61000 ms");
        assertRefused(IllegalArgumentException.class, "replicaSync(0, 1 s)", () -> b.replicaSync(0, Duration.ofSeconds(1)),
                "replicas must be at least 1", "was 0");
        assertRefused(NullPointerException.class, "replicaSync(1, null)", () -> b.replicaSync(1, null),
                "replicaSync timeout must not be null");
        assertRefused(IllegalArgumentException.class, "replicaSync(1, 61 s)", () -> b.replicaSync(1, Duration.ofSeconds(61)),
                "at most 60000 ms", "was 61000 ms");
        assertEquals(LockOptions.defaults().toString(), b.build().toString(), "a refused setting changed the builder");

        assertRefused(NullPointerException.class, "create(provider, null, options)",
                () -> RedisLocks.create(kit.provider(), null, LockOptions.defaults()), "nativeClient must not be null");
        assertRefused(IllegalArgumentException.class, "create(provider, a String, options)",
                () -> RedisLocks.create(kit.provider(), "not a client", LockOptions.defaults()),
                "does not support a client of type java.lang.String");
        assertRefused(NullPointerException.class, "create(provider, client, null)",
                () -> RedisLocks.create(kit.provider(), kit.nativeClient(), null), "options must not be null");
        assertRefused(NullPointerException.class, "connect(null)", () -> RedisLocks.connect((String) null), "uri must not be null");
        assertRefused(IllegalArgumentException.class, "connect('redis://bad host')", () -> RedisLocks.connect("redis://bad host:6379"),
                "malformed Redis URI", "redis://");
        assertRefused(IllegalArgumentException.class, "connect('http://...')", () -> RedisLocks.connect("http://localhost:6379"),
                "http");
        assertRefused(NullPointerException.class, "addLockLostListener(null)", () -> {
            client().addLockLostListener(null);
            return "added";
        }, "listener must not be null");
        assertNothingWritten("refused options and factory arguments");
    }

    // ---------------------------------------------------------------- malformed replies

    /**
     * Rule 17.11: a driver answering an acquire script with something no script returns (a string,
     * a double, an {@code Integer}, an integer below -1 other than -3, a fenced reply of the wrong
     * length or flag) makes the sync and async acquire fail with LockException naming the script,
     * the lock, the reply and what was expected; nothing is registered as held, and the client
     * works again once the driver does. When it fails: the engine cast the reply blindly
     * (ClassCastException, IndexOutOfBoundsException) or read a wrong reply as a TTL and waited.
     */
    @Test
    void rule17_11_malformedAcquireReply_lockExceptionNothingHeld() throws Exception {
        Faults faults = new Faults();
        LockClient c = kit.newFaultyLockClient(LockOptions.defaults(), faults);
        DistributedLock lock = c.getLock("tck:malformed");
        List<Object> replies = List.of("OK", 1.5, 5, -7L, List.of("x", "y"));
        for (Object reply : replies) {
            faults.clear();
            faults.on("lock-acquire").times(Integer.MAX_VALUE).answer(reply);
            String shown = String.valueOf(reply);
            assertRefused(LockException.class, "tryLock() answered " + shown, lock::tryLock, "lock-acquire", "tck:malformed", shown, "expected");
            assertRefused(LockException.class, "lock() answered " + shown, () -> {
                lock.lock();
                return "locked";
            }, "lock-acquire", shown);
            assertRefused(LockException.class, "tryLockAsync(1 s) answered " + shown, () -> lock.tryLockAsync(1, TimeUnit.SECONDS),
                    "lock-acquire", shown);
            assertFalse(lock.isHeldByCurrentThread(), "a malformed acquire reply was taken as a grant: " + shown);
        }
        FencedLock fenced = c.getFencedLock("tck:malformed:fenced");
        for (Object reply : List.of(List.of(1L), List.of(2L, 5L), List.of(1L, "t"))) {
            faults.clear();
            faults.on("fenced-acquire").times(Integer.MAX_VALUE).answer(reply);
            assertRefused(LockException.class, "tryLockAndGetToken() answered " + reply, fenced::tryLockAndGetToken,
                    "fenced-acquire", String.valueOf(reply), "{1, token} or {0, pttl}");
        }
        assertNothingWritten("malformed acquire replies");
        faults.clear();
        assertTrue(lock.tryLock(), "the client no longer works after malformed replies");
        lock.unlock();
        assertNothingWritten("the unlock after malformed replies");
    }

    /**
     * Rule 17.12: a release answered with {@code null} or a string fails with LockException naming
     * the reply, and the hold is given up as a release of unknown outcome: no longer renewed, the
     * key expires within the watchdog timeout. When it fails: a NullPointerException from
     * unboxing, or the watchdog kept renewing a hold its owner tried to release, for ever.
     */
    @Test
    void rule17_12_malformedReleaseReply_lockExceptionHoldNotRenewed() throws Exception {
        Faults faults = new Faults();
        LockClient c = kit.newFaultyLockClient(LockOptions.builder().lockWatchdogTimeout(Duration.ofMillis(900)).build(), faults);
        DistributedLock lock = c.getLock("tck:malformed:release");
        List<Object> replies = new java.util.ArrayList<>();
        replies.add(null);
        replies.add("1");
        boolean async = false;
        for (Object reply : replies) {
            lock.lock();
            faults.clear();
            faults.on("lock-release").answer(reply);
            String shown = String.valueOf(reply);
            if (async) {
                assertRefused(LockException.class, "unlockAsync() answered " + shown, lock::unlockAsync, "lock-release", shown, "expected");
            } else {
                assertRefused(LockException.class, "unlock() answered " + shown, () -> {
                    lock.unlock();
                    return "unlocked";
                }, "lock-release", shown, "expected");
            }
            async = true;
            Await.until(DEADLINE, () -> (Long) redis("EXISTS", "tck:malformed:release") == 0,
                    () -> "the watchdog kept renewing a hold whose release reply was " + shown);
        }
        assertNothingWritten("malformed release replies");
    }

    /**
     * Rule 17.13: state reads ({@code isLocked}, {@code getHoldCount}, {@code remainTimeToLive},
     * their async forms) answered with {@code null} or a list of the wrong length or element type,
     * and a fenced token read answered with a non-number, fail with LockException naming the
     * reply; nothing is written. When it fails: ClassCastException, IndexOutOfBoundsException or
     * NumberFormatException escaped from the engine.
     */
    @Test
    void rule17_13_malformedStateAndTokenReplies_lockException() {
        Faults faults = new Faults();
        LockClient c = kit.newFaultyLockClient(LockOptions.defaults(), faults);
        DistributedLock lock = c.getLock("tck:malformed:state");
        List<Object> replies = new java.util.ArrayList<>();
        replies.add(null);
        replies.add(List.of(1L, 2L));
        replies.add(List.of("1", "0", "-2"));
        for (Object reply : replies) {
            faults.clear();
            faults.on("lock-state").times(Integer.MAX_VALUE).answer(reply);
            String shown = String.valueOf(reply);
            assertRefused(LockException.class, "isLocked() answered " + shown, lock::isLocked, "lock-state", shown, "expected");
            assertRefused(LockException.class, "getHoldCount() answered " + shown, lock::getHoldCount, "lock-state", shown);
            assertRefused(LockException.class, "remainTimeToLive() answered " + shown, lock::remainTimeToLive, "lock-state", shown);
            assertRefused(LockException.class, "isLockedAsync() answered " + shown, lock::isLockedAsync, "lock-state", shown);
            assertRefused(LockException.class, "getHoldCountAsync(1) answered " + shown, () -> lock.getHoldCountAsync(1),
                    "lock-state", shown);
        }
        faults.clear();
        faults.on("fenced-token").times(Integer.MAX_VALUE).answer("not-a-number");
        FencedLock fenced = c.getFencedLock("tck:malformed:token");
        assertRefused(LockException.class, "getToken() answered a word", fenced::getToken, "fenced-token", "not-a-number", "expected");
        assertRefused(LockException.class, "getTokenAsync() answered a word", fenced::getTokenAsync, "fenced-token", "not-a-number");
        assertNothingWritten("malformed state replies");
    }

    /**
     * Rule 17.16: {@code LockLease.expireIn} refuses a null, zero, negative, sub-millisecond or
     * over 2^53 - 1 ms TTL, and {@code releaseAfter} the same except zero (a normal release),
     * naming the method, the value and the allowed range, for a single lock's lease and a
     * MultiLock's; the lease stays valid and its keys keep their TTL. When it fails: a TTL reached
     * Redis unchecked (a PEXPIRE of 0 or less deletes the key) or the lease was ended before the check.
     */
    @Test
    void rule17_16_badLeaseTtl_refusedLeaseUntouched() throws Exception {
        LockClient c = client();
        String range = "from 1 ms to " + MAX_LEASE_MS + " ms";
        List<LockLease> leases = List.of(c.getLock("tck:bad:ttl").acquire(Duration.ZERO, Duration.ofSeconds(30)),
                c.getMultiLock(c.getLock("tck:bad:ttl1"), c.getLock("tck:bad:ttl2"))
                        .acquire(Duration.ZERO, Duration.ofSeconds(30)));
        List<Duration> bad = List.of(Duration.ZERO, Duration.ofMillis(-1), Duration.ofNanos(999_999),
                Duration.ofSeconds(Long.MIN_VALUE), Duration.ofMillis(MAX_LEASE_MS + 1), Duration.ofSeconds(Long.MAX_VALUE));
        for (LockLease lease : leases) {
            String what = lease.lockName();
            for (Duration ttl : bad) {
                assertRefused(IllegalArgumentException.class, what + " expireIn(" + ttl + ")", () -> lease.expireIn(ttl),
                        "expireIn: ttl must be " + range, "was " + ttl);
                if (!ttl.isZero()) {
                    assertRefused(IllegalArgumentException.class, what + " releaseAfter(" + ttl + ")",
                            () -> lease.releaseAfter(ttl), "releaseAfter: ttl must be zero (a normal release) or " + range,
                            "was " + ttl);
                }
            }
            assertRefused(NullPointerException.class, what + " expireIn(null)", () -> lease.expireIn(null),
                    "expireIn: ttl must not be null", range);
            assertRefused(NullPointerException.class, what + " releaseAfter(null)", () -> lease.releaseAfter(null),
                    "releaseAfter: ttl must not be null", range);
            assertTrue(lease.isValid(), what + " ended by a refused call");
        }
        for (String key : List.of("tck:bad:ttl", "tck:bad:ttl1", "tck:bad:ttl2")) {
            long pttl = (Long) redis("PTTL", key);
            assertTrue(pttl > 20_000 && pttl <= 30_000, "PTTL of " + key + " changed by a refused call: " + pttl);
        }
        leases.forEach(LockLease::close);
        assertNothingWritten("refused lease TTLs");
    }

    /** One {@code expire…} method of a semaphore: its Duration and its Instant form. */
    private record ExpireEntry(DurationEntry byDuration, Function<java.time.Instant, Object> byInstant) {
    }

    /** Every {@code expire…} method of a semaphore, blocking and async, by name. */
    private static Map<String, ExpireEntry> expiryEntries(io.github.relock.api.Expirable e) {
        Map<String, ExpireEntry> m = new LinkedHashMap<>();
        m.put("expire", new ExpireEntry(e::expire, e::expire));
        m.put("expireIfSet", new ExpireEntry(e::expireIfSet, e::expireIfSet));
        m.put("expireIfNotSet", new ExpireEntry(e::expireIfNotSet, e::expireIfNotSet));
        m.put("expireIfGreater", new ExpireEntry(e::expireIfGreater, e::expireIfGreater));
        m.put("expireIfLess", new ExpireEntry(e::expireIfLess, e::expireIfLess));
        m.put("expireAsync", new ExpireEntry(e::expireAsync, e::expireAsync));
        m.put("expireIfSetAsync", new ExpireEntry(e::expireIfSetAsync, e::expireIfSetAsync));
        m.put("expireIfNotSetAsync", new ExpireEntry(e::expireIfNotSetAsync, e::expireIfNotSetAsync));
        m.put("expireIfGreaterAsync", new ExpireEntry(e::expireIfGreaterAsync, e::expireIfGreaterAsync));
        m.put("expireIfLessAsync", new ExpireEntry(e::expireIfLessAsync, e::expireIfLessAsync));
        return m;
    }

    /**
     * Rule 17.18: every {@code expire…} entry of both semaphores, blocking and async, refuses a
     * null, zero, negative, sub-millisecond or over 2^53 - 1 ms time to live, and a null instant or
     * one before the epoch or past 2^53 - 1 ms, naming the method, the value and what is allowed;
     * nothing reaches Redis (a PEXPIRE of 0 or less would delete the key).
     * When it fails: an expiry argument reached the script unchecked, or the message lacks the
     * method, the value or the allowed range.
     */
    @Test
    void rule17_18_badExpiry_refusedAtEveryExpireEntry() {
        LockClient c = client();
        String range = "from 1 ms to " + MAX_LEASE_MS + " ms";
        List<Duration> bad = List.of(Duration.ZERO, Duration.ofMillis(-1), Duration.ofNanos(999_999),
                Duration.ofMillis(MAX_LEASE_MS + 1), Duration.ofSeconds(Long.MAX_VALUE));
        List<java.time.Instant> badAt = List.of(java.time.Instant.EPOCH.minusMillis(1),
                java.time.Instant.ofEpochMilli(MAX_LEASE_MS + 1), java.time.Instant.MAX);
        Map<String, io.github.relock.api.Expirable> objects = new LinkedHashMap<>();
        objects.put("semaphore", c.getSemaphore("tck:bad:expire"));
        objects.put("permit-expirable semaphore", c.getPermitExpirableSemaphore("tck:bad:expire-pes"));
        objects.forEach((kind, object) -> {
            expiryEntries(object).forEach((method, entry) -> {
                for (Duration ttl : bad) {
                    assertRefused(IllegalArgumentException.class, kind + " " + method + "(" + ttl + ")",
                            () -> entry.byDuration().call(ttl), method + ": timeToLive must be " + range, "was " + ttl);
                }
                assertRefused(NullPointerException.class, kind + " " + method + "(null Duration)",
                        () -> entry.byDuration().call(null), method + ": timeToLive must not be null", range);
                for (java.time.Instant at : badAt) {
                    assertRefused(IllegalArgumentException.class, kind + " " + method + "(" + at + ")",
                            () -> entry.byInstant().apply(at), method + ": time must be an instant from the epoch",
                            "was " + at);
                }
                assertRefused(NullPointerException.class, kind + " " + method + "(null Instant)",
                        () -> entry.byInstant().apply(null), method + ": time must not be null");
            });
        });
        assertNothingWritten("refused expiries");
    }

    /**
     * Rule 17.19: the async overloads Redisson has refuse what their blocking twins refuse, in the
     * future, naming the value: the semaphore's {@code tryAcquireAsync(Duration)} a null or negative
     * wait; the permit-expirable semaphore's {@code acquireAsync(n)} and {@code tryAcquireAsync(n)}
     * fewer than one permit, {@code tryAcquireAsync(wait, unit)} a wait below -1, and
     * {@code releaseAsync(ids)} an empty list or a malformed id; a lock's {@code addListenerAsync} a
     * null listener. Nothing reaches Redis.
     * When it fails: the overload skipped its twin's argument check, or threw instead of failing its future.
     */
    @Test
    void rule17_19_asyncOverloads_refuseBadInputInTheFuture() {
        LockClient c = client();
        io.github.relock.api.DistributedSemaphore s = c.getSemaphore("tck:bad:async");
        io.github.relock.api.PermitExpirableSemaphore p = c.getPermitExpirableSemaphore("tck:bad:async-pes");
        Map<String, Callable<CompletableFuture<?>>> calls = new LinkedHashMap<>();
        calls.put("tryAcquireAsync(Duration -1 ms)|was PT-0.001S", () -> s.tryAcquireAsync(Duration.ofMillis(-1)));
        calls.put("tryAcquireAsync(null Duration)|waitTime must not be null", () -> s.tryAcquireAsync((Duration) null));
        calls.put("acquireAsync(0)|was 0", () -> p.acquireAsync(0));
        calls.put("tryAcquireAsync(-3)|was -3", () -> p.tryAcquireAsync(-3));
        calls.put("tryAcquireAsync(-2, SECONDS)|was -2 SECONDS", () -> p.tryAcquireAsync(-2, TimeUnit.SECONDS));
        calls.put("releaseAsync(empty list)|was empty", () -> p.releaseAsync(List.of()));
        calls.put("releaseAsync(bad id)|was 'nope'", () -> p.releaseAsync(List.of("nope")));
        calls.put("addListenerAsync(null)|listener must not be null", () -> c.getLock("tck:bad:async-lock").addListenerAsync(null));
        calls.forEach((entry, call) -> {
            String[] parts = entry.split("\\|");
            CompletableFuture<?>[] returned = new CompletableFuture<?>[1];
            Throwable t = failure(parts[0], () -> {
                returned[0] = call.call();
                return returned[0];
            });
            assertTrue(returned[0] != null, () -> parts[0] + " threw " + t + " instead of failing its future");
            assertTrue(t instanceof IllegalArgumentException || t instanceof NullPointerException,
                    () -> parts[0] + " failed with " + t);
            assertTrue(String.valueOf(t.getMessage()).contains(parts[1]),
                    () -> parts[0] + ": the message does not name '" + parts[1] + "': " + t.getMessage());
        });
        assertNothingWritten("refused async overloads");
    }

    /**
     * Rule 17.20: {@code withCommandTimeout} (an object's own command timeout) refuses a null, zero,
     * negative or sub-millisecond timeout and one longer than the client's command timeout (which
     * the driver enforces underneath), naming the value and, for the last, the client's; the
     * client's own timeout gives back the client itself, and a valid view reports its timeout in
     * {@code options()} and keeps the client's id; a multi-lock over one name taken through the
     * client and through its view is refused (one key counted twice). Nothing reaches Redis.
     * When it fails: the view skipped an argument check, accepted a timeout it could not honour, or
     * counts as another client in the multi-lock's duplicate check.
     */
    @Test
    void rule17_20_badObjectCommandTimeout_refusedNamingTheValue() {
        LockClient c = kit.newLockClient(LockOptions.builder().commandTimeout(Duration.ofSeconds(2)).build());
        Map<String, Callable<Object>> calls = new LinkedHashMap<>();
        calls.put("withCommandTimeout(null)|commandTimeout must not be null", () -> c.withCommandTimeout(null));
        calls.put("withCommandTimeout(0)|was PT0S", () -> c.withCommandTimeout(Duration.ZERO));
        calls.put("withCommandTimeout(-1 s)|was PT-1S", () -> c.withCommandTimeout(Duration.ofSeconds(-1)));
        calls.put("withCommandTimeout(1 µs)|was PT0.000001S", () -> c.withCommandTimeout(Duration.ofNanos(1000)));
        calls.put("withCommandTimeout(3 s)|PT3S is longer than this client's command timeout PT2S",
                () -> c.withCommandTimeout(Duration.ofSeconds(3)));
        calls.forEach((entry, call) -> {
            String[] parts = entry.split("\\|");
            Throwable t = failure(parts[0], call);
            assertTrue(t instanceof IllegalArgumentException || t instanceof NullPointerException,
                    () -> parts[0] + " failed with " + t);
            assertTrue(String.valueOf(t.getMessage()).contains(parts[1]),
                    () -> parts[0] + ": the message does not name '" + parts[1] + "': " + t.getMessage());
        });
        assertSame(c, c.withCommandTimeout(Duration.ofSeconds(2)), "the client's own timeout made a view");
        LockClient view = c.withCommandTimeout(Duration.ofMillis(250));
        assertEquals(Duration.ofMillis(250), view.options().commandTimeout(), "the view's options");
        assertEquals(c.clientId(), view.clientId(), "the view's client id");
        Throwable twice = failure("getMultiLock(a lock and its view's twin)",
                () -> c.getMultiLock(c.getLock("tck:bad:view"), view.getLock("tck:bad:view")));
        assertTrue(twice instanceof IllegalArgumentException && String.valueOf(twice.getMessage()).contains("tck:bad:view"),
                () -> "a multi-lock over one key taken through the client and through its view was not refused: " + twice);
        assertEquals(Duration.ofSeconds(2), c.options().commandTimeout(), "the client's options changed");
        assertNothingWritten("refused command timeouts");
    }
}
