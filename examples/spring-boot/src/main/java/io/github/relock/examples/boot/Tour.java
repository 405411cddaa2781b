package io.github.relock.examples.boot;

import io.github.relock.api.LockClient;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.data.redis.core.StringRedisTemplate;

/**
 * What {@code java -jar} shows: concurrent payments on two orders through the running web server,
 * then the scheduled job's runs, each with its check.
 *
 * <p>Thread-safety: used by the main thread only.
 */
final class Tour {

    private static final int THREADS = 4;
    private static final int REQUESTS_PER_THREAD = 10;
    private static final List<String> ORDERS = List.of("1001", "1002");

    private final ConfigurableApplicationContext context;
    private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

    Tour(ConfigurableApplicationContext context) {
        this.context = context;
    }

    /** @return the exit code: 0 when every check passed */
    int run() throws Exception {
        String base = "http://localhost:" + context.getEnvironment().getProperty("local.server.port");
        StringRedisTemplate redis = context.getBean(StringRedisTemplate.class);
        LockClient locks = context.getBean(LockClient.class);
        System.out.println("relock Spring Boot sample: LockClient " + locks.clientId() + " from the auto-configuration");
        boolean ok = true;
        for (String order : ORDERS) {
            redis.delete(OrderController.paymentsKey(order));
        }
        AtomicInteger paid = new AtomicInteger();
        AtomicInteger busy = new AtomicInteger();
        ExecutorService pool = Executors.newFixedThreadPool(THREADS);
        try {
            List<Future<?>> done = new ArrayList<>();
            for (int t = 0; t < THREADS; t++) {
                done.add(pool.submit(() -> {
                    for (int i = 0; i < REQUESTS_PER_THREAD; i++) {
                        String order = ORDERS.get(i % ORDERS.size());
                        HttpResponse<String> r = http.send(HttpRequest.newBuilder(URI.create(base + "/orders/" + order + "/pay"))
                                .POST(HttpRequest.BodyPublishers.noBody()).build(), HttpResponse.BodyHandlers.ofString());
                        (r.statusCode() == 200 ? paid : busy).incrementAndGet();
                    }
                    return null;
                }));
            }
            for (Future<?> f : done) {
                f.get(60, TimeUnit.SECONDS);
            }
        } finally {
            pool.shutdownNow();
        }
        long counted = 0;
        for (String order : ORDERS) {
            String n = http.send(HttpRequest.newBuilder(URI.create(base + "/orders/" + order)).GET().build(),
                    HttpResponse.BodyHandlers.ofString()).body();
            System.out.println("  order " + order + ": " + n + " payments");
            counted += Long.parseLong(n.trim());
        }
        System.out.println("  " + (THREADS * REQUESTS_PER_THREAD) + " requests from " + THREADS + " threads: "
                + paid.get() + " paid, " + busy.get() + " busy (409)");
        ok &= check(counted == paid.get(), "payments counted in Redis equal payments made (no lost update)");
        ReportJob job = context.getBean(ReportJob.class);
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (job.runs() < 3 && System.nanoTime() < deadline) {
            Thread.sleep(50);
        }
        System.out.println("  @Scheduled report job: " + job.runs() + " runs, " + job.skipped() + " skipped");
        ok &= check(job.runs() >= 3, "the scheduled job took its lock and ran");
        return ok ? 0 : 1;
    }

    private static boolean check(boolean passed, String what) {
        System.out.println("  " + (passed ? "ok   " : "FAIL ") + what);
        return passed;
    }
}
