/**
 * Multi and red locks over several locks, possibly of several clients: {@code MultiRedisLock} (the
 * facade and the blocking wrappers), {@code MultiAttempt} (one attempt over all members, each a
 * member wait of the one wait machine, so members are handed off to like any waiter) and
 * {@code MultiLease}.
 */
package io.github.relock.core.internal.multi;
