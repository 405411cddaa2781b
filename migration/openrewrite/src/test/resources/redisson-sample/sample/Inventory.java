package sample;

import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.redisson.RedissonMultiLock;
import org.redisson.api.RCountDownLatch;
import org.redisson.api.RFuture;
import org.redisson.api.RLock;
import org.redisson.api.RLockReactive;
import org.redisson.api.RSemaphore;
import org.redisson.api.RedissonClient;
import org.redisson.api.RedissonReactiveClient;
import reactor.core.publisher.Mono;

/**
 * A small Redisson-based inventory service, written the way Redisson's documentation and tutorials
 * write lock code: blocking, timed, async with a thread id, reactive with a thread id, a multi-lock
 * built with its constructor, a semaphore and a latch. The stock is a plain map updated with a read,
 * a pause and a write, so any break in exclusion shows as a lost update.
 */
public class Inventory {
    private final RedissonClient redisson;
    private final RedissonReactiveClient reactive;
    private final Map<String, Integer> stock = new ConcurrentHashMap<>();
    private final AtomicInteger inside = new AtomicInteger();
    private final AtomicInteger mostInside = new AtomicInteger();

    public Inventory(RedissonClient redisson, RedissonReactiveClient reactive) {
        this.redisson = redisson;
        this.reactive = reactive;
    }

    public String clientId() {
        return redisson.getId();
    }

    public int count(String item) {
        return stock.getOrDefault(item, 0);
    }

    private void addUnsafely(String item, int n) {
        int before = count(item);
        Thread.yield();
        stock.put(item, before + n);
    }

    /** Blocking: lock, update, unlock. */
    public void add(String item) {
        RLock lock = redisson.getLock("inventory:" + item);
        lock.lock();
        try {
            addUnsafely(item, 1);
        } finally {
            lock.unlock();
        }
    }

    /** Timed: wait up to 10 s, lease 30 s. */
    public boolean tryAdd(String item) throws InterruptedException {
        RLock lock = redisson.getLock("inventory:" + item);
        if (!lock.tryLock(10, 30, TimeUnit.SECONDS)) {
            return false;
        }
        try {
            addUnsafely(item, 1);
            return true;
        } finally {
            lock.unlock();
        }
    }

    /** Async: the thread id names the owner, so any thread may complete the unlock. */
    public CompletableFuture<Void> addAsync(String item) {
        RLock lock = redisson.getLock("inventory:" + item);
        long owner = ThreadLocalRandom.current().nextLong();
        RFuture<Void> locked = lock.lockAsync(owner);
        return locked.thenCompose(ignored -> {
            addUnsafely(item, 1);
            return lock.unlockAsync(owner);
        }).toCompletableFuture();
    }

    /** Reactive: lock, work, unlock in one chain. */
    public Mono<Void> addReactive(String item) {
        RLockReactive lock = reactive.getLock("inventory:" + item);
        long owner = ThreadLocalRandom.current().nextLong();
        return lock.lock(owner).then(Mono.fromRunnable(() -> addUnsafely(item, 1))).then(lock.unlock(owner));
    }

    /** Multi-lock: both items locked together, one moved from the first to the second. */
    public void move(String from, String to) {
        RLock first = redisson.getLock("inventory:" + from);
        RLock second = redisson.getLock("inventory:" + to);
        RLock both = new RedissonMultiLock(first, second);
        both.lock();
        try {
            addUnsafely(from, -1);
            addUnsafely(to, 1);
        } finally {
            both.unlock();
        }
    }

    /** Semaphore: at most two packers at once. */
    public void pack(String item) throws InterruptedException {
        RSemaphore packers = redisson.getSemaphore("inventory:packers");
        packers.trySetPermits(2);
        packers.acquire();
        try {
            int now = inside.incrementAndGet();
            mostInside.accumulateAndGet(now, Math::max);
            Thread.sleep(2);
            inside.decrementAndGet();
        } finally {
            packers.release();
        }
    }

    public int mostPackersAtOnce() {
        return mostInside.get();
    }

    /** Latch: a count of shipments, awaited by another thread. */
    public boolean shipAndAwait(int shipments) throws InterruptedException {
        RCountDownLatch shipped = redisson.getCountDownLatch("inventory:shipped");
        shipped.trySetCount(shipments);
        for (int i = 0; i < shipments; i++) {
            new Thread(shipped::countDown).start();
        }
        return shipped.await(10, TimeUnit.SECONDS);
    }
}
