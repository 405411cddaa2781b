package io.github.relock.core.internal.sync;

import io.github.relock.core.internal.util.Scripts;
import io.github.relock.spi.Script;

/**
 * The synchronizers' scripts ({@code scripts/sync/}, sync spec 9), loaded once.
 *
 * <p>Thread-safety: immutable.
 */
final class SyncScripts {
    static final Script SEMAPHORE_TRY_ACQUIRE = Scripts.load("sync/semaphore-try-acquire");
    static final Script SEMAPHORE_RELEASE = Scripts.load("sync/semaphore-release");
    static final Script SEMAPHORE_DRAIN = Scripts.load("sync/semaphore-drain");
    static final Script SEMAPHORE_AVAILABLE = Scripts.load("sync/semaphore-available");
    static final Script SEMAPHORE_TRY_SET_PERMITS = Scripts.load("sync/semaphore-try-set-permits");
    static final Script SEMAPHORE_ADD_PERMITS = Scripts.load("sync/semaphore-add-permits");
    static final Script SYNC_DELETE = Scripts.load("sync/sync-delete");
    static final Script SYNC_EXPIRE = Scripts.load("sync/sync-expire");
    static final Script SYNC_CLEAR_EXPIRE = Scripts.load("sync/sync-clear-expire");
    static final Script SYNC_TTL = Scripts.load("sync/sync-ttl");
    static final Script EXPIRABLE_ACQUIRE = Scripts.load("sync/expirable-acquire");
    static final Script EXPIRABLE_RELEASE = Scripts.load("sync/expirable-release");
    static final Script EXPIRABLE_RELEASE_MANY = Scripts.load("sync/expirable-release-many");
    static final Script EXPIRABLE_STATE = Scripts.load("sync/expirable-state");
    static final Script EXPIRABLE_LEASE_TIME = Scripts.load("sync/expirable-lease-time");
    static final Script EXPIRABLE_SET_PERMITS = Scripts.load("sync/expirable-set-permits");
    static final Script EXPIRABLE_UPDATE_LEASE = Scripts.load("sync/expirable-update-lease");
    static final Script LATCH_TRY_SET_COUNT = Scripts.load("sync/latch-try-set-count");
    static final Script LATCH_COUNT_DOWN = Scripts.load("sync/latch-count-down");
    static final Script LATCH_COUNT = Scripts.load("sync/latch-count");
    static final Script LATCH_DELETE = Scripts.load("sync/latch-delete");

    private SyncScripts() {
    }
}
