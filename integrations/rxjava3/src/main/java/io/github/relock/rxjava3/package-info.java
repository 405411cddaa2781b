/**
 * RxJava 3 over relock: {@link io.github.relock.rxjava3.RxLock},
 * {@link io.github.relock.rxjava3.RxSemaphore}, {@link io.github.relock.rxjava3.RxPermitSemaphore} and
 * {@link io.github.relock.rxjava3.RxCountDownLatch} turn relock's asynchronous API into
 * {@code Single}, {@code Maybe} and {@code Completable} sources, the counterparts of Redisson's
 * {@code RLockRx}, {@code RSemaphoreRx}, {@code RPermitExpirableSemaphoreRx} and
 * {@code RCountDownLatchRx}, with leases instead of thread ids. Every wait is the engine's
 * asynchronous one: no thread is parked, disposing cancels the wait, and a grant that lands as the
 * subscriber disposes is given back.
 */
package io.github.relock.rxjava3;
