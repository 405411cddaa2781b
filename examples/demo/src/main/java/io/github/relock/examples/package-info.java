/**
 * <b>Tool</b> (not a library): the README's demo (a mixed relock/Redisson fleet on an embedded
 * Redis) and the {@code inspect} command that reads any Redisson-format lock on a server.
 */
package io.github.relock.examples;
