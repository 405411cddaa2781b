package io.github.relock.spring.boot.locked;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.relock.api.LockClient;
import io.github.relock.api.LockLease;
import io.github.relock.spring.boot.RelockAutoConfiguration;
import io.github.relock.tck.fixtures.RedisFixture;
import io.github.relock.tck.fixtures.RespClient;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.springframework.aop.support.AopUtils;
import org.springframework.boot.autoconfigure.ImportAutoConfiguration;
import org.springframework.context.annotation.AnnotationConfigApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.Import;
import org.springframework.context.event.EventListener;
import org.springframework.core.env.MapPropertySource;
import reactor.core.Disposable;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.core.publisher.Sinks;

/**
 * {@link Locked} in a real Spring context on the shared embedded Redis: exclusion, the timeout
 * strategies, the lease, a lock lost mid-method, and release timing for blocking,
 * {@code CompletionStage}, {@code Mono} and {@code Flux} methods. One context for the class.
 */
class LockedAnnotationTest {

    private static final Duration DEADLINE = Duration.ofSeconds(10);

    private static AnnotationConfigApplicationContext context;
    private static Service service;
    private static LockClient locks;
    private static Lost lost;
    private static RespClient admin;

    @BeforeAll
    static void start() {
        context = new AnnotationConfigApplicationContext();
        context.getEnvironment().getPropertySources().addFirst(new MapPropertySource("test",
                Map.of("test.locked.wait", "150ms")));
        context.register(Config.class);
        context.refresh();
        service = context.getBean(Service.class);
        locks = context.getBean(LockClient.class);
        lost = context.getBean(Lost.class);
        admin = RedisFixture.shared().admin();
    }

    @AfterAll
    static void stop() {
        admin.close();
        context.close();
    }

    // ---- exclusion ----

    @Test
    void sameKey_callsNeverOverlap_onPlainThreads() throws Exception {
        assertTrue(AopUtils.isAopProxy(service), "the @Locked bean is proxied");
        ExecutorService pool = Executors.newFixedThreadPool(4);
        try {
            List<Future<?>> calls = new ArrayList<>();
            for (int i = 0; i < 12; i++) {
                calls.add(pool.submit(() -> service.exclusive("one")));
            }
            for (Future<?> call : calls) {
                call.get(DEADLINE.toSeconds(), TimeUnit.SECONDS);
            }
        } finally {
            pool.shutdownNow();
        }
        assertEquals(1, service.maxInside(), "at most one call of a key inside at a time");
        assertEquals(0L, admin.call("EXISTS", "excl:one"), "the last call released the lock");
    }

    @Test
    void nestedBlockingCall_onTheSameLock_joinsTheOuterHold_insteadOfWaitingForItself() throws Exception {
        Outer outer = context.getBean(Outer.class);
        assertEquals("outer(inner n)", outer.call("n"), "the inner call (waitTime 0s) ran inside the outer hold");
        assertEquals(0L, admin.call("EXISTS", "nest:n"), "released when the outer call ended");
        try (LockLease holder = locks.getLock("nest:n").acquire(Duration.ZERO)) {
            assertThrows(LockedTimeoutException.class, () -> service.inner("n"), "alone, the inner call is excluded");
        }
    }

    @Test
    void differentKeys_runAtTheSameTime() throws Exception {
        CyclicBarrier both = new CyclicBarrier(2);
        CompletableFuture<String> a = CompletableFuture.supplyAsync(() -> service.meet("a", both));
        CompletableFuture<String> b = CompletableFuture.supplyAsync(() -> service.meet("b", both));
        // Each call waits inside its lock for the other: they can only both return if both held at once.
        assertEquals("met a", a.get(DEADLINE.toSeconds(), TimeUnit.SECONDS));
        assertEquals("met b", b.get(DEADLINE.toSeconds(), TimeUnit.SECONDS));
    }

    @Test
    void readLocks_areShared_andAWriteLockWaitsForThem() throws Exception {
        CyclicBarrier both = new CyclicBarrier(2);
        CompletableFuture<String> a = CompletableFuture.supplyAsync(() -> service.read("doc", both));
        CompletableFuture<String> b = CompletableFuture.supplyAsync(() -> service.read("doc", both));
        assertEquals("read doc", a.get(DEADLINE.toSeconds(), TimeUnit.SECONDS));
        assertEquals("read doc", b.get(DEADLINE.toSeconds(), TimeUnit.SECONDS));
        try (LockLease reader = locks.getReadWriteLock("rw:doc").readLock().acquire(Duration.ZERO)) {
            assertThrows(LockedTimeoutException.class, () -> service.write("doc"));
        }
        assertEquals("wrote doc", service.write("doc"));
    }

    @Test
    void fairLock_excludesAndIsReleased() throws Exception {
        try (LockLease holder = locks.getFairLock("fair:f").acquire(Duration.ZERO)) {
            assertThrows(LockedTimeoutException.class, () -> service.fair("f"));
        }
        assertEquals("fair f", service.fair("f"));
        assertEquals(0L, admin.call("EXISTS", "fair:f"));
    }

    // ---- timeout strategies ----

    @Test
    void onTimeoutThrow_throwsLockedTimeoutException_namingMethodLockAndWait() throws Exception {
        try (LockLease holder = locks.getLock("busy:t").acquire(Duration.ZERO)) {
            LockedTimeoutException e = assertThrows(LockedTimeoutException.class, () -> service.busyThrow("t"));
            assertTrue(e.getMessage().contains("Service.busyThrow(String)"), e.getMessage());
            assertTrue(e.getMessage().contains("'busy:t'"), e.getMessage());
            assertTrue(e.getMessage().contains("PT0.15S"), "the wait, from the ${test.locked.wait} placeholder: " + e.getMessage());
            assertEquals("busy:t", e.lockName());
        }
        assertEquals("ran t", service.busyThrow("t"), "runs once the lock is free");
    }

    @Test
    void onTimeoutSkip_returnsNullOrEmptyOptional_withoutRunning() throws Exception {
        int before = service.skippedRuns();
        try (LockLease holder = locks.getLock("busy:s").acquire(Duration.ZERO)) {
            assertNull(service.busySkip("s"));
            assertEquals(Optional.empty(), service.busySkipOptional("s"));
        }
        assertEquals(before, service.skippedRuns(), "a skipped method does not run");
        assertEquals("ran s", service.busySkip("s"));
        assertEquals(Optional.of("ran s"), service.busySkipOptional("s"));
    }

    @Test
    void onTimeoutFallback_callsTheNamedMethodWithTheSameArguments() throws Exception {
        try (LockLease holder = locks.getLock("busy:f").acquire(Duration.ZERO)) {
            assertEquals("fallback f 7", service.busyFallback("f", 7));
        }
        assertEquals("ran f 7", service.busyFallback("f", 7));
    }

    // ---- the lease, and a lock lost mid-method ----

    @Test
    void leaseTime_holdsTheLockNoLongerThanTheLease_evenIfTheMethodRunsOn() throws Exception {
        lost.events.clear();
        CountDownLatch entered = new CountDownLatch(1);
        CountDownLatch finish = new CountDownLatch(1);
        CompletableFuture<String> call = CompletableFuture.supplyAsync(() -> service.leased("l", entered, finish));
        assertTrue(entered.await(DEADLINE.toSeconds(), TimeUnit.SECONDS));
        long pttl = (Long) admin.call("PTTL", "lease:l");
        assertTrue(pttl > 0 && pttl <= 300, "the key lives at most the 300ms lease: " + pttl);
        await(() -> ((Long) admin.call("EXISTS", "lease:l")) == 0L, "the key expires while the method still runs");
        assertFalse(call.isDone());
        finish.countDown();
        assertEquals("leased l", call.get(DEADLINE.toSeconds(), TimeUnit.SECONDS), "the result is still returned");
        LockedLockLostEvent event = lost.events.poll(DEADLINE.toSeconds(), TimeUnit.SECONDS);
        assertEquals("lease:l", event.lockName(), "the loss is reported");
        assertEquals("leased", event.method().getName());
    }

    @Test
    void lockDeletedMidMethod_resultIsReturned_andTheLossIsReported() throws Exception {
        lost.events.clear();
        CountDownLatch entered = new CountDownLatch(1);
        CountDownLatch finish = new CountDownLatch(1);
        CompletableFuture<String> call = CompletableFuture.supplyAsync(() -> service.held("d", entered, finish));
        assertTrue(entered.await(DEADLINE.toSeconds(), TimeUnit.SECONDS));
        assertEquals(1L, admin.call("DEL", "held:d"));
        finish.countDown();
        assertEquals("held d", call.get(DEADLINE.toSeconds(), TimeUnit.SECONDS));
        LockedLockLostEvent event = lost.events.poll(DEADLINE.toSeconds(), TimeUnit.SECONDS);
        assertEquals("held:d", event.lockName());
        assertEquals("held", event.method().getName());
    }

    @Test
    void aMethodThatThrows_releasesTheLock_andItsExceptionPropagates() {
        IllegalStateException e = assertThrows(IllegalStateException.class, () -> service.fails("x"));
        assertEquals("failed x", e.getMessage());
        assertEquals(0L, admin.call("EXISTS", "fails:x"));
    }

    // ---- CompletionStage ----

    @Test
    void completionStage_holdsTheLockUntilTheStageCompletes_thenReleasesBeforeTheResult() throws Exception {
        CompletableFuture<String> gate = new CompletableFuture<>();
        CompletableFuture<String> result = service.stage("c", gate).toCompletableFuture();
        await(() -> ((Long) admin.call("EXISTS", "stage:c")) == 1L, "the lock is taken");
        Thread.sleep(50);
        assertFalse(result.isDone());
        assertEquals(1L, admin.call("EXISTS", "stage:c"), "held while the stage runs");
        gate.complete("v");
        assertEquals("stage v", result.get(DEADLINE.toSeconds(), TimeUnit.SECONDS));
        assertEquals(0L, admin.call("EXISTS", "stage:c"), "released before the result is delivered");
    }

    @Test
    void completionStage_failedStage_releasesAndFails() throws Exception {
        CompletableFuture<String> gate = new CompletableFuture<>();
        CompletableFuture<String> result = service.stage("cf", gate).toCompletableFuture();
        await(() -> ((Long) admin.call("EXISTS", "stage:cf")) == 1L, "the lock is taken");
        gate.completeExceptionally(new IllegalStateException("boom"));
        ExecutionException e = assertThrows(ExecutionException.class, () -> result.get(DEADLINE.toSeconds(), TimeUnit.SECONDS));
        assertEquals("boom", e.getCause().getMessage());
        assertEquals(0L, admin.call("EXISTS", "stage:cf"));
    }

    @Test
    void completionStage_cancelledBeforeTheGrant_neverTakesTheLockNorRuns() throws Exception {
        int before = service.stageRuns();
        LockLease holder = locks.getLock("stage:cc").acquire(Duration.ZERO);
        CompletableFuture<String> result = service.stage("cc", CompletableFuture.completedFuture("v")).toCompletableFuture();
        assertTrue(result.cancel(false));
        holder.close();
        // Had the cancelled wait gone on, it would take the lock as it came free; this wait would then time out.
        try (LockLease after = locks.getLock("stage:cc").acquire(Duration.ofSeconds(2))) {
            assertEquals(before, service.stageRuns(), "the cancelled call did not run");
        }
    }

    @Test
    void keyMayReferToBeans() {
        assertEquals("named n", service.named("n"));
        try (LockLease holder = locks.getLock("keys:n").acquire(Duration.ZERO)) {
            assertThrows(LockedTimeoutException.class, () -> service.named("n"), "the key is @keys.name(#id)");
        } catch (InterruptedException e) {
            throw new AssertionError(e);
        }
    }

    @Test
    void completionStage_timeoutStrategies() throws Exception {
        try (LockLease holder = locks.getLock("busy:cs").acquire(Duration.ZERO)) {
            ExecutionException e = assertThrows(ExecutionException.class,
                    () -> service.stageThrow("cs").get(DEADLINE.toSeconds(), TimeUnit.SECONDS));
            assertInstanceOf(LockedTimeoutException.class, e.getCause());
            assertNull(service.stageSkip("cs").get(DEADLINE.toSeconds(), TimeUnit.SECONDS));
            assertEquals("fallback cs", service.stageFallback("cs").toCompletableFuture().get(DEADLINE.toSeconds(), TimeUnit.SECONDS));
        }
        assertEquals("ran cs", service.stageSkip("cs").get(DEADLINE.toSeconds(), TimeUnit.SECONDS));
    }

    // ---- Mono and Flux ----

    @Test
    void mono_takesTheLockOnSubscribe_holdsItUntilTermination_andReleasesBeforeTheValue() throws Exception {
        Sinks.One<String> gate = Sinks.one();
        Mono<String> mono = service.mono("m", gate.asMono());
        Thread.sleep(50);
        assertEquals(0L, admin.call("EXISTS", "mono:m"), "nothing is locked before a subscription");
        CompletableFuture<String> result = mono.toFuture();
        await(() -> ((Long) admin.call("EXISTS", "mono:m")) == 1L, "the lock is taken on subscribe");
        gate.tryEmitValue("v");
        assertEquals("mono v", result.get(DEADLINE.toSeconds(), TimeUnit.SECONDS));
        assertEquals(0L, admin.call("EXISTS", "mono:m"), "released before the value is emitted");
    }

    @Test
    void mono_cancelled_releasesTheLock() throws Exception {
        Sinks.One<String> gate = Sinks.one();
        Disposable subscription = service.mono("mc", gate.asMono()).subscribe();
        await(() -> ((Long) admin.call("EXISTS", "mono:mc")) == 1L, "the lock is taken on subscribe");
        subscription.dispose();
        await(() -> ((Long) admin.call("EXISTS", "mono:mc")) == 0L, "a cancel releases the lock");
    }

    @Test
    void flux_holdsTheLockUntilComplete() throws Exception {
        Sinks.Many<Integer> gate = Sinks.many().unicast().onBackpressureBuffer();
        CompletableFuture<List<Integer>> result = service.flux("fx", gate.asFlux()).collectList().toFuture();
        await(() -> ((Long) admin.call("EXISTS", "flux:fx")) == 1L, "the lock is taken on subscribe");
        gate.tryEmitNext(1);
        gate.tryEmitNext(2);
        Thread.sleep(50);
        assertEquals(1L, admin.call("EXISTS", "flux:fx"), "held until the Flux completes");
        gate.tryEmitComplete();
        assertEquals(List.of(1, 2), result.get(DEADLINE.toSeconds(), TimeUnit.SECONDS));
        assertEquals(0L, admin.call("EXISTS", "flux:fx"));
    }

    @Test
    void reactive_timeoutStrategies() throws Exception {
        try (LockLease holder = locks.getLock("busy:r").acquire(Duration.ZERO)) {
            assertThrows(LockedTimeoutException.class, () -> service.monoThrow("r").block(DEADLINE));
            assertNull(service.monoSkip("r").block(DEADLINE));
            assertEquals(List.of("fallback r"), service.fluxFallback("r").collectList().block(DEADLINE));
        }
        assertEquals("ran r", service.monoSkip("r").block(DEADLINE));
        assertEquals(List.of("ran r"), service.fluxFallback("r").collectList().block(DEADLINE));
    }

    @Test
    void mono_lockDeletedMidStream_valueIsEmitted_andTheLossIsReported() throws Exception {
        lost.events.clear();
        Sinks.One<String> gate = Sinks.one();
        CompletableFuture<String> result = service.mono("ml", gate.asMono()).toFuture();
        await(() -> ((Long) admin.call("EXISTS", "mono:ml")) == 1L, "the lock is taken on subscribe");
        assertEquals(1L, admin.call("DEL", "mono:ml"));
        gate.tryEmitValue("v");
        assertEquals("mono v", result.get(DEADLINE.toSeconds(), TimeUnit.SECONDS));
        assertEquals("mono:ml", lost.events.poll(DEADLINE.toSeconds(), TimeUnit.SECONDS).lockName());
    }

    private static void await(BooleanSupplier condition, String what) throws InterruptedException {
        long deadline = System.nanoTime() + DEADLINE.toNanos();
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError("not within " + DEADLINE + ": " + what);
            }
            Thread.sleep(5);
        }
    }

    @Configuration(proxyBeanMethods = false)
    @ImportAutoConfiguration({RelockAutoConfiguration.class, RelockLockedAutoConfiguration.class})
    @Import({LettuceOnSharedRedis.class, Service.class, Lost.class, Outer.class})
    static class Config {
        @Bean
        Keys keys() {
            return new Keys();
        }
    }

    static class Outer {
        private final Service service;

        Outer(Service service) {
            this.service = service;
        }

        @Locked(key = "'nest:' + #id")
        String call(String id) {
            return "outer(" + service.inner(id) + ")";
        }
    }

    static class Keys {
        public String name(String id) {
            return "keys:" + id;
        }
    }

    static class Lost {
        final BlockingQueue<LockedLockLostEvent> events = new LinkedBlockingQueue<>();

        @EventListener
        void on(LockedLockLostEvent event) {
            events.add(event);
        }
    }

    static class Service {
        final AtomicInteger inside = new AtomicInteger();
        final AtomicInteger maxInside = new AtomicInteger();
        final AtomicInteger skippedRuns = new AtomicInteger();
        final AtomicInteger stageRuns = new AtomicInteger();

        // Through methods: the test holds the proxy, whose own fields are not the bean's.
        int maxInside() {
            return maxInside.get();
        }

        int skippedRuns() {
            return skippedRuns.get();
        }

        @Locked(key = "'excl:' + #id")
        void exclusive(String id) {
            maxInside.accumulateAndGet(inside.incrementAndGet(), Math::max);
            try {
                Thread.sleep(10);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            } finally {
                inside.decrementAndGet();
            }
        }

        @Locked(key = "'meet:' + #id")
        String meet(String id, CyclicBarrier both) {
            awaitBarrier(both);
            return "met " + id;
        }

        @Locked(key = "'rw:' + #id", kind = Locked.Kind.READ)
        String read(String id, CyclicBarrier both) {
            awaitBarrier(both);
            return "read " + id;
        }

        @Locked(key = "'rw:' + #p0", kind = Locked.Kind.WRITE, waitTime = "100ms")
        String write(String id) {
            return "wrote " + id;
        }

        @Locked(key = "'fair:' + #a0", kind = Locked.Kind.FAIR, waitTime = "100ms")
        String fair(String id) {
            return "fair " + id;
        }

        @Locked(key = "'busy:' + #id", waitTime = "${test.locked.wait}")
        String busyThrow(String id) {
            return "ran " + id;
        }

        @Locked(key = "'busy:' + #id", waitTime = "0s", onTimeout = Locked.OnTimeout.SKIP)
        String busySkip(String id) {
            skippedRuns.incrementAndGet();
            return "ran " + id;
        }

        @Locked(key = "'busy:' + #id", waitTime = "0", onTimeout = Locked.OnTimeout.SKIP)
        Optional<String> busySkipOptional(String id) {
            skippedRuns.incrementAndGet();
            return Optional.of("ran " + id);
        }

        @Locked(key = "'busy:' + #id", waitTime = "PT0S", onTimeout = Locked.OnTimeout.FALLBACK, fallback = "notNow")
        String busyFallback(String id, int n) {
            return "ran " + id + " " + n;
        }

        String notNow(String id, int n) {
            return "fallback " + id + " " + n;
        }

        @Locked(key = "'lease:' + #id", leaseTime = "300ms")
        String leased(String id, CountDownLatch entered, CountDownLatch finish) {
            entered.countDown();
            awaitLatch(finish);
            return "leased " + id;
        }

        @Locked(key = "'held:' + #id")
        String held(String id, CountDownLatch entered, CountDownLatch finish) {
            entered.countDown();
            awaitLatch(finish);
            return "held " + id;
        }

        @Locked(key = "'fails:' + #id")
        String fails(String id) {
            throw new IllegalStateException("failed " + id);
        }

        @Locked(key = "'stage:' + #id")
        CompletionStage<String> stage(String id, CompletableFuture<String> gate) {
            stageRuns.incrementAndGet();
            return gate.thenApply(v -> "stage " + v);
        }

        int stageRuns() {
            return stageRuns.get();
        }

        @Locked(key = "'nest:' + #id", waitTime = "0s")
        String inner(String id) {
            return "inner " + id;
        }

        @Locked(key = "@keys.name(#id)", waitTime = "0s")
        String named(String id) {
            return "named " + id;
        }

        @Locked(key = "'busy:' + #id", waitTime = "0s")
        CompletableFuture<String> stageThrow(String id) {
            return CompletableFuture.completedFuture("ran " + id);
        }

        @Locked(key = "'busy:' + #id", waitTime = "0s", onTimeout = Locked.OnTimeout.SKIP)
        CompletableFuture<String> stageSkip(String id) {
            return CompletableFuture.completedFuture("ran " + id);
        }

        @Locked(key = "'busy:' + #id", waitTime = "0s", onTimeout = Locked.OnTimeout.FALLBACK, fallback = "stageLater")
        CompletionStage<String> stageFallback(String id) {
            return CompletableFuture.completedFuture("ran " + id);
        }

        CompletionStage<String> stageLater(String id) {
            return CompletableFuture.completedFuture("fallback " + id);
        }

        @Locked(key = "'mono:' + #id")
        Mono<String> mono(String id, Mono<String> gate) {
            return gate.map(v -> "mono " + v);
        }

        @Locked(key = "'flux:' + #id")
        Flux<Integer> flux(String id, Flux<Integer> gate) {
            return gate;
        }

        @Locked(key = "'busy:' + #id", waitTime = "0s")
        Mono<String> monoThrow(String id) {
            return Mono.just("ran " + id);
        }

        @Locked(key = "'busy:' + #id", waitTime = "0s", onTimeout = Locked.OnTimeout.SKIP)
        Mono<String> monoSkip(String id) {
            return Mono.just("ran " + id);
        }

        @Locked(key = "'busy:' + #id", waitTime = "0s", onTimeout = Locked.OnTimeout.FALLBACK, fallback = "fluxLater")
        Flux<String> fluxFallback(String id) {
            return Flux.just("ran " + id);
        }

        Flux<String> fluxLater(String id) {
            return Flux.just("fallback " + id);
        }

        private static void awaitBarrier(CyclicBarrier barrier) {
            try {
                barrier.await(DEADLINE.toSeconds(), TimeUnit.SECONDS);
            } catch (Exception e) {
                throw new IllegalStateException("the other call never came in", e);
            }
        }

        private static void awaitLatch(CountDownLatch latch) {
            try {
                assertTrue(latch.await(DEADLINE.toSeconds(), TimeUnit.SECONDS));
            } catch (InterruptedException e) {
                throw new IllegalStateException(e);
            }
        }
    }
}
