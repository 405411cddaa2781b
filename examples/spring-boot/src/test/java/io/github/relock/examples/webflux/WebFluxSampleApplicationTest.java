package io.github.relock.examples.webflux;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.relock.tck.fixtures.RedisFixture;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.context.ApplicationContext;
import org.springframework.data.redis.core.StringRedisTemplate;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;
import org.springframework.web.reactive.DispatcherHandler;

/** The WebFlux sample on Reactor Netty against the embedded server, used as its users would. */
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
        properties = "spring.main.web-application-type=reactive")
class WebFluxSampleApplicationTest {

    @DynamicPropertySource
    static void redis(DynamicPropertyRegistry registry) {
        registry.add("spring.data.redis.url", () -> RedisFixture.shared().uri().toString());
    }

    @LocalServerPort
    int port;

    @Autowired
    ApplicationContext context;

    @Autowired
    StringRedisTemplate redis;

    @Test
    void servedByWebFlux() {
        assertEquals(1, context.getBeansOfType(DispatcherHandler.class).size(), "a reactive application");
    }

    @Test
    void concurrentPaymentsOnOneOrder_loseNoUpdate() throws Exception {
        String order = "t-" + System.nanoTime();
        HttpClient http = HttpClient.newHttpClient();
        List<CompletableFuture<HttpResponse<String>>> sent = new ArrayList<>();
        for (int i = 0; i < 40; i++) { // all in flight at once: the lock, not the client, orders them
            sent.add(http.sendAsync(HttpRequest.newBuilder(URI.create("http://localhost:" + port + "/orders/" + order + "/pay"))
                    .timeout(Duration.ofSeconds(30))
                    .POST(HttpRequest.BodyPublishers.noBody()).build(), HttpResponse.BodyHandlers.ofString()));
        }
        int paid = 0;
        for (CompletableFuture<HttpResponse<String>> r : sent) {
            int status = r.get(60, TimeUnit.SECONDS).statusCode();
            assertTrue(status == 200 || status == 409, "payment answered " + status);
            paid += status == 200 ? 1 : 0;
        }
        assertTrue(paid > 0, "some payments went through");
        assertEquals(String.valueOf(paid), redis.opsForValue().get(ReactiveOrderController.paymentsKey(order)),
                "every payment made is counted: the lock kept each read-modify-write whole");
    }
}
