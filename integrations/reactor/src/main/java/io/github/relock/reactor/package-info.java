/**
 * Project Reactor over relock's leases: {@link io.github.relock.reactor.ReactiveLock} turns a
 * {@link io.github.relock.api.DistributedLock} into a {@code Mono<LockLease>} to acquire, a
 * {@code Mono<Void>} to release and a {@code usingWhen}-style {@code withLock} that always releases.
 * Every wait is the engine's asynchronous one: no thread is parked, and cancelling a subscription
 * cancels the wait.
 */
package io.github.relock.reactor;
