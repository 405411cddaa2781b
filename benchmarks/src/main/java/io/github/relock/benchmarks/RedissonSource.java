package io.github.relock.benchmarks;

import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.locks.Lock;
import java.util.concurrent.locks.ReadWriteLock;
import org.redisson.Redisson;
import org.redisson.api.RLock;
import org.redisson.api.RedissonClient;
import org.redisson.config.Config;

/**
 * Redisson 4.7.0 as it ships: single-server (or cluster-servers) configuration with its defaults
 * (Netty threads, connection pools, pub/sub pools), only the address(es) and the watchdog timeout set.
 *
 * <p>Thread-safety: safe for use by several threads.
 */
final class RedissonSource implements LockSource {
    private final RedissonClient redisson;

    private RedissonSource(RedissonClient redisson) {
        this.redisson = redisson;
    }

    static RedissonSource open(String host, int port, Duration watchdog) {
        Config config = new Config();
        config.setLockWatchdogTimeout(watchdog.toMillis());
        config.useSingleServer().setAddress("redis://" + host + ":" + port);
        return new RedissonSource(Redisson.create(config));
    }

    static RedissonSource openCluster(List<InetSocketAddress> seeds, Duration watchdog) {
        Config config = new Config();
        config.setLockWatchdogTimeout(watchdog.toMillis());
        var cluster = config.useClusterServers();
        seeds.forEach(s -> cluster.addNodeAddress("redis://" + s.getHostString() + ":" + s.getPort()));
        return new RedissonSource(Redisson.create(config));
    }

    @Override
    public Lock lock(String name) {
        return redisson.getLock(name);
    }

    @Override
    public Optional<Lock> fairLock(String name) {
        return Optional.of(redisson.getFairLock(name));
    }

    /** {@code getReadWriteLock}: {@code RReadWriteLock} is itself a {@link ReadWriteLock}. */
    @Override
    public Optional<ReadWriteLock> readWriteLock(String name) {
        return Optional.of(redisson.getReadWriteLock(name));
    }

    @Override
    public AsyncLock asyncLock(String name) {
        RLock lock = redisson.getLock(name);
        return new AsyncLock() {
            @Override
            public CompletionStage<?> lock(long ownerId) {
                return lock.lockAsync(ownerId);
            }

            @Override
            public CompletionStage<?> unlock(long ownerId) {
                return lock.unlockAsync(ownerId);
            }
        };
    }

    @Override
    public void close() {
        redisson.shutdown();
    }
}
