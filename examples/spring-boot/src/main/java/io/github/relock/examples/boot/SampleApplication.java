package io.github.relock.examples.boot;

import io.github.relock.embeddedredis.RedisProcess;
import java.util.Arrays;
import java.util.HashMap;
import java.util.Map;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.scheduling.annotation.EnableScheduling;

/**
 * A Spring Boot application that uses the auto-configured relock {@code LockClient} in a
 * {@code @Scheduled} job ({@link ReportJob}) and in a request handler ({@link OrderController}).
 *
 * <p>{@code java -jar relock-spring-boot-sample.jar} starts the embedded {@code redis-server} when
 * {@code REDIS_URL} is not set, runs a short tour (concurrent payments on a few orders, the job's
 * runs), prints what it saw with each check ok or FAIL, and exits 0 when every check passed, 1
 * otherwise. {@code --serve} keeps it running on port 8080 instead ({@code curl -X POST
 * localhost:8080/orders/42/pay}). {@code --webflux} serves the same endpoint written with
 * relock-reactor on Spring WebFlux.
 *
 * <p>Thread-safety: a program entry point, no shared state.
 */
@SpringBootApplication
@EnableScheduling
public class SampleApplication {

    /** Not instantiated by hand: Spring does. */
    SampleApplication() {
    }

    /**
     * @param args Spring Boot arguments, plus {@code --serve}, or {@code --webflux} to serve the
     *     WebFlux variant ({@link io.github.relock.examples.webflux.WebFluxSampleApplication}) instead
     * @throws Exception when Redis or the application cannot start
     */
    public static void main(String[] args) throws Exception {
        if (Arrays.asList(args).contains("--webflux")) {
            io.github.relock.examples.webflux.WebFluxSampleApplication.main(args);
            return;
        }
        boolean serve = Arrays.asList(args).contains("--serve");
        String url = System.getenv("REDIS_URL");
        RedisProcess embedded = null;
        if (url == null || url.isBlank()) {
            embedded = RedisProcess.startOnFreePort();
            url = "redis://" + embedded.host() + ":" + embedded.port();
        }
        SpringApplication app = new SpringApplication(SampleApplication.class);
        Map<String, Object> defaults = new HashMap<>();
        defaults.put("spring.data.redis.url", url);
        defaults.put("server.port", serve ? "8080" : "0");
        app.setDefaultProperties(defaults);
        ConfigurableApplicationContext context = app.run(args);
        if (serve) {
            RedisProcess owned = embedded;
            if (owned != null) {
                Runtime.getRuntime().addShutdownHook(new Thread(owned::close, "embedded-redis-stop"));
            }
            System.out.println("relock sample on http://localhost:8080 (Redis " + url + "); Ctrl-C stops it");
            return;
        }
        int exit;
        try (context) {
            exit = new Tour(context).run();
        } finally {
            if (embedded != null) {
                embedded.close();
            }
        }
        System.exit(exit);
    }
}
