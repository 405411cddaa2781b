/**
 * <b>API</b> (semver-stable): distributed locks on Redis that are wire-compatible with Redisson.
 * {@link io.github.relock.api.DistributedLock} (Redisson's {@code RLock} surface plus leases),
 * {@link io.github.relock.api.LockLease}, {@link io.github.relock.api.LockClient},
 * {@link io.github.relock.api.LockOptions}, the loss events and the exceptions. Depends on
 * nothing but {@code java.base}.
 *
 * <p>Start from {@code io.github.relock.core.RedisLocks}, which turns the Redis client the
 * application already has into a {@link io.github.relock.api.LockClient}.
 */
package io.github.relock.api;
