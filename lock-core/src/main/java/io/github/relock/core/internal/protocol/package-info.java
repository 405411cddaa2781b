/**
 * Each lock type's protocol on the wire: a {@code LockProtocol} builds typed {@code Call}s (script,
 * keys, arguments and the decoder of its reply) whose outcomes are sealed types, never reply
 * codes: {@code Acquire} (Acquired with its token, Busy with the TTL to wait, Refused) and
 * {@code Release} (Released with how many subscribers heard it, StillHeld, NotHeld, HandedOff).
 * The reentrant family (reentrant, non-reentrant, spin, fenced) is one protocol with a variant; the
 * fair lock and the read-write halves are their own. A new lock type is a new protocol here, not a
 * change to the engine. Depends only on {@code util}.
 */
package io.github.relock.core.internal.protocol;
