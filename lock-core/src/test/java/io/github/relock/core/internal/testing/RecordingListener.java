package io.github.relock.core.internal.testing;

import io.github.relock.api.LockEventListener;
import io.github.relock.api.LockLostEvent;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * A {@link LockEventListener} that records what it is told, one line per event, e.g.
 * {@code "replyLost orders release"} or {@code "renewalBatch 1 0"}.
 *
 * <p>Thread-safety: safe for use by several threads.
 */
public class RecordingListener implements LockEventListener {
    public final List<String> events = new CopyOnWriteArrayList<>();

    @Override
    public void released(String lockName, Duration held) {
        events.add("released " + lockName);
    }

    @Override
    public void lost(String lockName, LockLostEvent.Reason reason) {
        events.add("lost " + lockName + " " + reason);
    }

    @Override
    public void renewalBatch(int renewed, int failed, Duration duration) {
        events.add("renewalBatch " + renewed + " " + failed);
    }

    @Override
    public void replyLost(String lockName, String operation) {
        events.add("replyLost " + lockName + " " + operation);
    }

    @Override
    public void serverFallback(io.github.relock.api.ServerFallback fallback, String cause) {
        events.add("serverFallback " + fallback);
    }

    /** @return the recorded events that start with {@code prefix} */
    public List<String> starting(String prefix) {
        return events.stream().filter(e -> e.startsWith(prefix)).toList();
    }
}
