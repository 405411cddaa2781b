package io.github.relock.examples.boot;

import io.github.relock.api.DistributedLock;
import io.github.relock.api.LockClient;
import java.util.concurrent.TimeUnit;
import org.springframework.data.redis.core.StringRedisTemplate;
import org.springframework.http.HttpStatus;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestMapping;
import org.springframework.web.bind.annotation.RestController;

/**
 * Takes a lock per order in a request handler: a payment is a read-modify-write of the order's
 * payment count in Redis ({@code GET}, then {@code SET} one more), which only the lock keeps whole
 * when requests for one order arrive at once, on one instance or many.
 *
 * <p>Thread-safety: a stateless singleton; each request uses its own lock handle.
 */
@RestController
@RequestMapping("/orders")
class OrderController {

    private final LockClient locks;
    private final StringRedisTemplate redis;

    OrderController(LockClient locks, StringRedisTemplate redis) {
        this.locks = locks;
        this.redis = redis;
    }

    @PostMapping("/{id}/pay")
    ResponseEntity<String> pay(@PathVariable("id") String id) throws InterruptedException {
        DistributedLock lock = locks.getLock("sample:orders:" + id);
        if (!lock.tryLock(2, TimeUnit.SECONDS)) {
            return ResponseEntity.status(HttpStatus.CONFLICT).body("order " + id + " is busy; try again\n");
        }
        try {
            String key = paymentsKey(id);
            String before = redis.opsForValue().get(key);
            long n = before == null ? 0 : Long.parseLong(before);
            Thread.sleep(1); // a gap in which an unprotected read-modify-write would lose an update
            redis.opsForValue().set(key, Long.toString(n + 1));
            return ResponseEntity.ok("order " + id + ": payment " + (n + 1) + "\n");
        } finally {
            lock.unlock();
        }
    }

    @GetMapping("/{id}")
    String payments(@PathVariable("id") String id) {
        String n = redis.opsForValue().get(paymentsKey(id));
        return n == null ? "0" : n;
    }

    static String paymentsKey(String id) {
        return "sample:orders:" + id + ":payments";
    }
}
