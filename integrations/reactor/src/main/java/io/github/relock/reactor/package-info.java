/**
 * Project Reactor over relock's leases and synchronizers: {@link io.github.relock.reactor.ReactiveLock}
 * turns a {@link io.github.relock.api.DistributedLock} into a {@code Mono<LockLease>} to acquire, a
 * {@code Mono<Void>} to release and a {@code usingWhen}-style {@code withLock} that always releases;
 * {@link io.github.relock.reactor.ReactiveSemaphore}, {@link io.github.relock.reactor.ReactivePermitSemaphore}
 * and {@link io.github.relock.reactor.ReactiveCountDownLatch} do the same for the semaphores and the
 * latch. Every wait is the engine's asynchronous one: no thread is parked, cancelling a subscription
 * cancels the wait, and a grant that lands after a cancel is given back.
 */
package io.github.relock.reactor;
