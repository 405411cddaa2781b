/**
 * A Spring Integration {@link org.springframework.integration.support.locks.LockRegistry} over
 * relock's public API: {@link io.github.relock.spring.integration.RelockLockRegistry}.
 */
package io.github.relock.spring.integration;
