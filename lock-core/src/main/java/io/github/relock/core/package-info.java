/**
 * <b>API</b> (semver-stable): the entry point, {@link io.github.relock.core.RedisLocks}, which finds
 * a driver for the application's Redis client (or URI) and returns a
 * {@link io.github.relock.api.LockClient}.
 */
package io.github.relock.core;
