package io.github.relock.examples.webflux;

import io.github.relock.api.LockClient;
import io.github.relock.api.LockTimeoutException;
import io.github.relock.reactor.ReactiveLock;
import java.time.Duration;
import org.springframework.data.redis.core.ReactiveStringRedisTemplate;
import org.springframework.http.HttpStatus;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestMapping;
import org.springframework.web.bind.annotation.RestController;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Schedulers;

/**
 * The servlet sample's payment handler, non-blocking: the lock is taken with
 * {@link ReactiveLock#withLockMono}, the order's payment count is read and written with the
 * reactive Redis template, and no thread waits for the lock or for Redis. Cancelling the request
 * (the client goes away) cancels the wait, or releases the lock if it was held.
 *
 * <p>Thread-safety: a stateless singleton; each request uses its own lock view.
 */
@RestController
@RequestMapping("/orders")
class ReactiveOrderController {

    private final LockClient locks;
    private final ReactiveStringRedisTemplate redis;

    ReactiveOrderController(LockClient locks, ReactiveStringRedisTemplate redis) {
        this.locks = locks;
        this.redis = redis;
    }

    @PostMapping("/{id}/pay")
    Mono<ResponseEntity<String>> pay(@PathVariable("id") String id) {
        String key = paymentsKey(id);
        // Leases are delivered off Lettuce's event loop: the reactive template's first call opens its
        // shared connection with a blocking call, which on that thread would stall every command.
        return ReactiveLock.of(locks.getLock("sample:reactive-orders:" + id), Schedulers.boundedElastic())
                .withLockMono(Duration.ofSeconds(2), lease -> redis.opsForValue().get(key)
                        .map(Long::parseLong)
                        .defaultIfEmpty(0L)
                        .delayElement(Duration.ofMillis(1)) // a gap in which an unprotected read-modify-write would lose an update
                        .flatMap(n -> redis.opsForValue().set(key, Long.toString(n + 1)).thenReturn(n + 1)))
                .map(n -> ResponseEntity.ok("order " + id + ": payment " + n + "\n"))
                .onErrorResume(LockTimeoutException.class, e -> Mono.just(
                        ResponseEntity.status(HttpStatus.CONFLICT).body("order " + id + " is busy; try again\n")));
    }

    @GetMapping("/{id}")
    Mono<String> payments(@PathVariable("id") String id) {
        return redis.opsForValue().get(paymentsKey(id)).defaultIfEmpty("0");
    }

    static String paymentsKey(String id) {
        return "sample:reactive-orders:" + id + ":payments";
    }
}
