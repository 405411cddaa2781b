package io.github.relock.interop;

import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.relock.tck.redisson.SynchronizerScriptsChecks;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;

/**
 * relock's synchronizer scripts against Redisson 3.17.7: the checks every Redisson line shares
 * (twins of each operation 3.17.7 has, mixed use, and 3.17.7 waiters woken by the scripts'
 * messages). 3.17.7 sends PUBLISH from its scripts and takes one permit per call of the
 * permit-expirable semaphore, returning the id from the script; the state it leaves is the same.
 */
@Tag("redisson-interop")
class Redisson3SynchronizerScriptsTest extends SynchronizerScriptsChecks {

    @BeforeAll
    static void redissonIsTheOldBaseline() {
        String version = org.redisson.Redisson.class.getPackage().getImplementationVersion();
        assertTrue(version == null || version.startsWith("3.17"), "expected Redisson 3.17.x, found " + version);
    }
}
