/**
 * <b>Test kit</b> (public, for driver authors): the Redisson interop chapter of the relock
 * compatibility kit, run by extending {@link io.github.relock.tck.redisson.RedissonTck}.
 */
package io.github.relock.tck.redisson;
