package io.github.relock.benchmarks;

import io.github.relock.api.DistributedLock;
import io.github.relock.api.LockClient;
import io.github.relock.api.LockOptions;
import io.github.relock.api.ReadWriteDistributedLock;
import io.github.relock.core.RedisLocks;
import io.github.relock.driver.jedis.JedisDriverProvider;
import io.github.relock.driver.lettuce.LettuceDriverProvider;
import io.lettuce.core.RedisURI;
import java.net.InetSocketAddress;
import java.util.List;
import java.util.Optional;
import java.util.stream.Collectors;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.locks.Lock;
import java.util.concurrent.locks.ReadWriteLock;
import redis.clients.jedis.ConnectionPoolConfig;
import redis.clients.jedis.HostAndPort;
import redis.clients.jedis.RedisClient;
import redis.clients.jedis.RedisClusterClient;

/**
 * relock on the application's own client: a Jedis {@link RedisClient} or a Lettuce
 * {@link io.lettuce.core.RedisClient} (or their cluster clients), wrapped with
 * {@code RedisLocks.create(provider, client, options)}.
 *
 * <p>Thread-safety: safe for use by several threads.
 */
final class RelockSource implements LockSource {

    private final LockClient locks;
    private final Runnable closeNative;

    private RelockSource(LockClient locks, Runnable closeNative) {
        this.locks = locks;
        this.closeNative = closeNative;
    }

    static RelockSource onJedis(String host, int port, LockOptions options) {
        RedisClient jedis = RedisClient.builder().hostAndPort(host, port).poolConfig(jedisPool()).build();
        try {
            return new RelockSource(RedisLocks.create(new JedisDriverProvider(), jedis, options), jedis::close);
        } catch (RuntimeException e) {
            jedis.close();
            throw e;
        }
    }

    static RelockSource onLettuce(String host, int port, LockOptions options) {
        io.lettuce.core.RedisClient lettuce = io.lettuce.core.RedisClient.create(RedisURI.create(host, port));
        try {
            return new RelockSource(RedisLocks.create(new LettuceDriverProvider(), lettuce, options), lettuce::shutdown);
        } catch (RuntimeException e) {
            lettuce.shutdown();
            throw e;
        }
    }

    /** On a cluster: a Jedis {@link RedisClusterClient} with the same pool per node. */
    static RelockSource onJedisCluster(List<InetSocketAddress> seeds, LockOptions options) {
        RedisClusterClient jedis = RedisClusterClient.builder()
                .nodes(seeds.stream().map(s -> new HostAndPort(s.getHostString(), s.getPort())).collect(Collectors.toSet()))
                .poolConfig(jedisPool()).build();
        try {
            return new RelockSource(RedisLocks.create(new JedisDriverProvider(), jedis, options), jedis::close);
        } catch (RuntimeException e) {
            jedis.close();
            throw e;
        }
    }

    /** On a cluster: a Lettuce {@link io.lettuce.core.cluster.RedisClusterClient} with its defaults. */
    static RelockSource onLettuceCluster(List<InetSocketAddress> seeds, LockOptions options) {
        io.lettuce.core.cluster.RedisClusterClient lettuce = io.lettuce.core.cluster.RedisClusterClient.create(
                seeds.stream().map(s -> RedisURI.create(s.getHostString(), s.getPort())).toList());
        try {
            return new RelockSource(RedisLocks.create(new LettuceDriverProvider(), lettuce, options), lettuce::shutdown);
        } catch (RuntimeException e) {
            lettuce.shutdown();
            throw e;
        }
    }

    /** The pool both Jedis contenders use: large enough that no scenario waits for a connection. */
    static ConnectionPoolConfig jedisPool() {
        ConnectionPoolConfig pool = new ConnectionPoolConfig();
        pool.setMaxTotal(Contender.JEDIS_POOL_SIZE);
        pool.setMaxIdle(Contender.JEDIS_POOL_SIZE);
        return pool;
    }

    @Override
    public Lock lock(String name) {
        return locks.getLock(name);
    }

    @Override
    public Optional<Lock> fairLock(String name) {
        return Optional.of(locks.getFairLock(name));
    }

    /** {@code getReadWriteLock}: its two halves are {@link DistributedLock}s, hence {@link Lock}s. */
    @Override
    public Optional<ReadWriteLock> readWriteLock(String name) {
        ReadWriteDistributedLock rw = locks.getReadWriteLock(name);
        return Optional.of(new ReadWriteLock() {
            @Override
            public Lock readLock() {
                return rw.readLock();
            }

            @Override
            public Lock writeLock() {
                return rw.writeLock();
            }
        });
    }

    @Override
    public AsyncLock asyncLock(String name) {
        DistributedLock lock = locks.getLock(name);
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
        try {
            locks.close();
        } finally {
            closeNative.run();
        }
    }
}
