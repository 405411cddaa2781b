/**
 * Observability without dependencies: {@code LockEvents} dispatches to the client's
 * {@code LockEventListener} and commits JFR events; the hot path asks it first whether anyone
 * listens and reads no clock when nobody does. Depends on no other room.
 */
package io.github.relock.core.internal.observe;
