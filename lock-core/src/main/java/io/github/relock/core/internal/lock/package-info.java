/**
 * The {@code DistributedLock} surface over a protocol: {@code AbstractLock} maps every public
 * overload onto five primitives once; {@code RedisLock} runs one name through its protocol and
 * serves the wait machine's attempts; {@code LockRelease} is the one release path (blocking or not,
 * with hand-off and lost replies); {@code HoldTtl} changes a hold's TTL; {@code LeaseHandle} is the
 * lease; {@code GiveBack} is the one place an acquisition nobody wants is returned, with one retry
 * policy; {@code ClientServices} holds the per-client services every lock shares.
 */
package io.github.relock.core.internal.lock;
