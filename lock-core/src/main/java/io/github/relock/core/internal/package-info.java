/**
 * <b>Internal</b> (not exported by the module; may change in any release): the lock engine, in
 * rooms with one job each. Lower rooms never reach up (verification/boundaries' EngineLayersTest):
 *
 * <ul>
 *   <li>{@code util}: argument checks, key names, cluster slots, the Lua scripts, reply shapes;</li>
 *   <li>{@code observe}: events to the listener SPI and JFR;</li>
 *   <li>{@code protocol}: each lock type's calls on the wire, each with its reply decoder and a
 *       typed outcome ({@code Acquire}, {@code Release});</li>
 *   <li>{@code run}: the script runner, blocking and async, NOSCRIPT fallback, replica sync;</li>
 *   <li>{@code hold}: the registry of holds, the single owner of hold state, and the watchdog
 *       that renews them;</li>
 *   <li>{@code wait}: the one wait machine, its two runners (blocking, async), the channels and
 *       their wake-up handshake, local hand-off;</li>
 *   <li>{@code lock}: the {@code DistributedLock} surface over a protocol, releasing, leases,
 *       giving back what nobody wants;</li>
 *   <li>{@code multi}: multi and red locks over several locks;</li>
 *   <li>{@code sync}: Redisson's semaphores and count-down latch, waiting through the same wait
 *       machine ("sync spec N.N" cites {@code docs/spec/redisson-synchronizers-wire-format.md});</li>
 *   <li>{@code client}: the {@code LockClient}: makes locks, owns the client's lifetime.</li>
 * </ul>
 *
 * <p>"spec N.N" in comments cites the sections of {@code docs/spec/redisson-lock-wire-format.md}
 * in the repository.
 */
package io.github.relock.core.internal;
