package io.github.relock.examples.webflux;

import io.github.relock.embeddedredis.RedisProcess;
import java.util.Map;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.SpringBootApplication;

/**
 * The WebFlux variant of the sample: the same payment endpoint as the servlet application, written
 * with relock-reactor ({@link ReactiveOrderController}), on Spring WebFlux and Reactor Netty.
 *
 * <p>{@code java -jar relock-spring-boot-sample.jar --webflux} serves it on port 8080 ({@code curl
 * -X POST localhost:8080/orders/42/pay}), starting the embedded {@code redis-server} when
 * {@code REDIS_URL} is not set.
 *
 * <p>Thread-safety: a program entry point, no shared state.
 */
@SpringBootApplication
public class WebFluxSampleApplication {

    /** Not instantiated by hand: Spring does. */
    WebFluxSampleApplication() {
    }

    /**
     * @param args Spring Boot arguments
     * @throws Exception when Redis or the application cannot start
     */
    public static void main(String[] args) throws Exception {
        String url = System.getenv("REDIS_URL");
        if (url == null || url.isBlank()) {
            RedisProcess embedded = RedisProcess.startOnFreePort();
            Runtime.getRuntime().addShutdownHook(new Thread(embedded::close, "embedded-redis-stop"));
            url = "redis://" + embedded.host() + ":" + embedded.port();
        }
        SpringApplication app = new SpringApplication(WebFluxSampleApplication.class);
        // The servlet sample shares the class path, so say which web stack this one is.
        app.setWebApplicationType(WebApplicationType.REACTIVE);
        app.setDefaultProperties(Map.of("spring.data.redis.url", url, "server.port", "8080"));
        app.run(args);
        System.out.println("relock WebFlux sample on http://localhost:8080 (Redis " + url + "); Ctrl-C stops it");
    }
}
