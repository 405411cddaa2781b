/**
 * <b>Internal</b> (not exported by the module; may change in any release): the lock engine.
 *
 * <p>Map: {@code DefaultLockClient} owns everything per client; {@code AbstractLock} holds every
 * public overload once; {@code RedisLock} runs one lock name through a {@code LockProtocol}
 * ({@code ReentrantProtocol}, {@code FairProtocol}); {@code MultiRedisLock} spans several;
 * {@code LockWait} is the waiting machinery over {@code Waiters}' pub/sub entries;
 * {@code HoldRegistry} owns hold state and {@code Watchdog} renews it; {@code LeaseHandle} is the
 * lease; the Lua scripts are resources beside these classes ({@code Scripts}).
 *
 * <p>"spec N.N" in comments cites the sections of {@code docs/spec/redisson-lock-wire-format.md}
 * in the repository.
 */
package io.github.relock.core.internal;
