/**
 * {@link io.github.relock.spring.boot.locked.Locked @Locked}: declarative relock locks on Spring
 * bean methods, blocking, {@code CompletionStage}, {@code Mono}, {@code Flux} and Kotlin
 * {@code suspend} functions, auto-configured
 * by {@link io.github.relock.spring.boot.locked.RelockLockedAutoConfiguration}.
 */
package io.github.relock.spring.boot.locked;
