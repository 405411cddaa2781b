package io.github.relock.tck;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.github.relock.api.LockClient;
import io.github.relock.api.LockOptions;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;

/**
 * Base of the lock chapters: a clean server before each test and, after it, the hygiene rule —
 * no keys left behind and no channel left subscribed. (The kit itself then checks that closing
 * every client left no relock thread.)
 *
 * <p>Thread-safety: one instance per test, as JUnit creates them.
 */
public abstract class TckChapter {
    /** The kit this chapter runs in. */
    protected final DriverKit kit;

    /** @param kit the enclosing kit */
    protected TckChapter(DriverKit kit) {
        this.kit = kit;
    }

    @BeforeEach
    void cleanServer() {
        redis("FLUSHALL");
        kit.checkThreadsAfterTest();
    }

    /**
     * Hygiene: after the test's own clean-up, the server holds no key and no channel.
     * When it fails: a lock was left held, a waiter left its subscription, or a script wrote a key
     * without expiry.
     */
    @AfterEach
    void hygiene() {
        Await.until(Duration.ofSeconds(10), () -> channels().isEmpty(),
                () -> "channels still subscribed after the test: " + channels());
        Object keys = redis("KEYS", "*");
        assertEquals(List.of(), keys, "keys left behind by the test");
    }

    /** @return a lock client with default options, closed after the test */
    protected LockClient client() {
        return kit.newLockClient(LockOptions.defaults());
    }

    /**
     * @param watchdog the watchdog timeout
     * @return a lock client with that watchdog, closed after the test
     */
    protected LockClient client(Duration watchdog) {
        return kit.newLockClient(LockOptions.builder().lockWatchdogTimeout(watchdog).build());
    }

    /**
     * @param args a command
     * @return its reply, from the kit's server
     */
    protected Object redis(String... args) {
        return kit.server().call(args);
    }

    /** @return the channels subscribed on the server right now */
    protected Set<String> channels() {
        List<?> list = (List<?>) redis("PUBSUB", "CHANNELS");
        return list.stream().map(String::valueOf).collect(Collectors.toSet());
    }

    /**
     * @param key a key
     * @return its PTTL
     */
    protected long pttl(String key) {
        return (Long) redis("PTTL", key);
    }
}
