/**
 * relock's Spring Boot auto-configuration: one {@code LockClient} bean from the application's
 * Redis connection factory or client, {@code relock.*} properties bound to {@code LockOptions}.
 */
package io.github.relock.spring.boot;
