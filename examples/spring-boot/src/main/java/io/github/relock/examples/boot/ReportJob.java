package io.github.relock.examples.boot;

import io.github.relock.api.DistributedLock;
import io.github.relock.api.LockClient;
import java.util.concurrent.atomic.LongAdder;
import org.springframework.scheduling.annotation.Scheduled;
import org.springframework.stereotype.Component;

/**
 * A {@code @Scheduled} job that must run on one instance at a time: each run takes the job's lock
 * without waiting, and skips the run when another instance (another relock or Redisson client)
 * holds it.
 *
 * <p>Thread-safety: runs on Spring's scheduler thread; the counters may be read from any thread.
 */
@Component
class ReportJob {

    static final String LOCK_NAME = "sample:jobs:report";

    private final DistributedLock lock;
    private final LongAdder runs = new LongAdder();
    private final LongAdder skipped = new LongAdder();

    ReportJob(LockClient locks) {
        this.lock = locks.getLock(LOCK_NAME);
    }

    @Scheduled(fixedDelayString = "${sample.report.period:200ms}")
    void run() {
        if (!lock.tryLock()) {
            skipped.increment();
            return;
        }
        try {
            runs.increment(); // the report itself would go here
        } finally {
            lock.unlock();
        }
    }

    long runs() {
        return runs.sum();
    }

    long skipped() {
        return skipped.sum();
    }
}
