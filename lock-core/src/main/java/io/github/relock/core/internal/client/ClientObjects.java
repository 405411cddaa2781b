package io.github.relock.core.internal.client;

import io.github.relock.api.DistributedLock;
import io.github.relock.api.FencedLock;
import io.github.relock.api.LockClient;
import io.github.relock.api.ReadWriteDistributedLock;
import io.github.relock.core.internal.lock.ClientServices;
import io.github.relock.core.internal.lock.FencedRedisLock;
import io.github.relock.core.internal.lock.RedisLock;
import io.github.relock.core.internal.lock.RedisReadWriteLock;
import io.github.relock.core.internal.multi.MultiRedisLock;
import io.github.relock.core.internal.protocol.FairProtocol;
import io.github.relock.core.internal.protocol.ReentrantProtocol;
import io.github.relock.core.internal.sync.RedisCountDownLatch;
import io.github.relock.core.internal.sync.RedisPermitExpirableSemaphore;
import io.github.relock.core.internal.sync.RedisSemaphore;
import io.github.relock.core.internal.sync.Sync;
import io.github.relock.core.internal.util.Args;
import java.util.Arrays;
import java.util.Objects;

/**
 * The getters of a {@link LockClient}, over one set of services: the client's own
 * ({@link DefaultLockClient}), or a view's whose runner bounds each call by the view's command
 * timeout ({@code LockClient.withCommandTimeout}). Both check and map names the client's way.
 *
 * <p>Thread-safety: safe for use by several threads.
 */
abstract class ClientObjects implements LockClient {

    /**
     * What a client's objects are made over.
     *
     * @param services the services (the client's, or a view's with a bounded runner)
     * @param sync the synchronizers' services over them
     * @param inspector the inspector over their runner
     */
    record Parts(ClientServices services, Sync sync, Inspector inspector) {
    }

    /** @return what this client's (or view's) objects are made over */
    abstract Parts parts();

    /** @return the client that checks names and keeps elections: this one, or the one a view views */
    abstract DefaultLockClient client();

    private ClientServices services() {
        return parts().services();
    }

    private Sync sync() {
        return parts().sync();
    }

    private String name(String name) {
        return client().name(name);
    }

    @Override
    public DistributedLock getLock(String name) {
        return new RedisLock(services(), new ReentrantProtocol(services().protocols(), name(name),
                ReentrantProtocol.Variant.REENTRANT));
    }

    @Override
    public DistributedLock getFairLock(String name) {
        return new RedisLock(services(), new FairProtocol(services().protocols(), name(name), true));
    }

    @Override
    public ReadWriteDistributedLock getReadWriteLock(String name) {
        return new RedisReadWriteLock(services(), name(name));
    }

    @Override
    public FencedLock getFencedLock(String name) {
        return new FencedRedisLock(services(), name(name));
    }

    @Override
    public io.github.relock.api.LeaderElection getLeaderElection(String name) {
        services().ensureOpen();
        return client().elect(name, getFencedLock(name), services(), this::inspect);
    }

    @Override
    public DistributedLock getSpinLock(String name) {
        return new RedisLock(services(),
                new ReentrantProtocol(services().protocols(), name(name), ReentrantProtocol.Variant.SPIN));
    }

    @Override
    public DistributedLock getSpinLock(String name, io.github.relock.api.SpinBackOff backOff) {
        Objects.requireNonNull(backOff, "backOff must not be null");
        return new RedisLock(services(), new ReentrantProtocol(services().protocols(), name(name),
                ReentrantProtocol.Variant.SPIN, backOff.initialDelay().toMillis(), backOff.maxDelay().toMillis(),
                backOff.multiplier()));
    }

    @Override
    public DistributedLock getNonReentrantLock(String name) {
        return new RedisLock(services(), new ReentrantProtocol(services().protocols(), name(name),
                ReentrantProtocol.Variant.NON_REENTRANT));
    }

    @Override
    public DistributedLock getNonReentrantFairLock(String name) {
        return new RedisLock(services(), new FairProtocol(services().protocols(), name(name), false));
    }

    @Override
    public DistributedLock getMultiLock(DistributedLock... locks) {
        services().ensureOpen();
        return MultiRedisLock.multi(Arrays.asList(Objects.requireNonNull(locks, "locks must not be null")));
    }

    @Override
    public DistributedLock getRedLock(DistributedLock... locks) {
        services().ensureOpen();
        return MultiRedisLock.red(Arrays.asList(Objects.requireNonNull(locks, "locks must not be null")));
    }

    @Override
    public io.github.relock.api.DistributedSemaphore getSemaphore(String name) {
        return new RedisSemaphore(sync(), name(name));
    }

    @Override
    public io.github.relock.api.PermitExpirableSemaphore getPermitExpirableSemaphore(String name) {
        return new RedisPermitExpirableSemaphore(sync(), name(name));
    }

    /** On a cluster a latch name must have no brace: Redisson's latch channel would fall in another slot (sync spec 1.2). */
    @Override
    public io.github.relock.api.DistributedCountDownLatch getCountDownLatch(String name) {
        String n = name(name);
        if (client().cluster() && n.indexOf('{') >= 0) {
            throw new IllegalArgumentException("count-down latch name '" + Args.shown(n) + "' cannot be used on a Redis"
                    + " Cluster: Redisson's latch channel 'redisson_countdownlatch__channel__{" + Args.shown(n)
                    + "}' hashes to another slot than the key, so its scripts would fail with CROSSSLOT; use a name"
                    + " without braces");
        }
        return new RedisCountDownLatch(sync(), n);
    }

    @Override
    public io.github.relock.api.LockInspection inspect(String name) {
        return parts().inspector().inspect(name(name));
    }

    @Override
    public java.util.concurrent.CompletableFuture<io.github.relock.api.LockInspection> inspectAsync(String name) {
        return services().track(parts().inspector().inspectAsync(name(name)));
    }
}
