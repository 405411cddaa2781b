/**
 * {@link io.github.relock.spring.boot.locked.Locked @Locked}: declarative relock locks on Spring
 * bean methods, blocking, {@code CompletionStage}, {@code Mono} and {@code Flux}, auto-configured
 * by {@link io.github.relock.spring.boot.locked.RelockLockedAutoConfiguration}.
 */
package io.github.relock.spring.boot.locked;
