/**
 * Small stateless helpers every room uses: argument checks and conversions ({@code Args}), key,
 * field and channel names from one place ({@code Keys}, Redisson's naming rules), the Lua scripts loaded and hashed once ({@code Scripts}), and reply-shape checks
 * that turn a malformed driver reply into a {@code LockException} naming the script and the lock
 * ({@code Replies}). Depends on no other room.
 */
package io.github.relock.core.internal.util;
