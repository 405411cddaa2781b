/**
 * Distributed locks on Redis that are wire-compatible with Redisson.
 *
 * <p>Start from {@code io.github.relock.core.RedisLocks}, which turns the Redis client the
 * application already has into a {@link io.github.relock.api.LockClient}.
 */
package io.github.relock.api;
