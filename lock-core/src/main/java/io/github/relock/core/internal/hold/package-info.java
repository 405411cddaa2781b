/**
 * Holds: {@code HoldRegistry} is the single owner of what this client believes it holds (counts,
 * TTLs, validity, loss reporting); {@code Watchdog} only renews, asking the registry which holds
 * are due and telling it each answer. Knows no wait and no lock.
 */
package io.github.relock.core.internal.hold;
