package io.github.relock.spring.boot;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.ImportAutoConfiguration;
import org.springframework.boot.diagnostics.FailureAnalysis;
import org.springframework.boot.diagnostics.FailureAnalysisReporter;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.Import;

/**
 * A {@code relock.*} value relock refuses, in a real {@link SpringApplication} run: Boot's failure
 * analysis (the "APPLICATION FAILED TO START" report) names the property, the value as written and
 * what is allowed. The report is captured by {@link Reports}, registered in the test class path's
 * {@code META-INF/spring.factories} beside Boot's own logging reporter.
 */
class InvalidPropertyFailureAnalysisTest {

    @AfterEach
    void forget() {
        Reports.SEEN.clear();
    }

    private static FailureAnalysis startWith(Map<String, Object> properties) {
        SpringApplication application = new SpringApplication(App.class);
        application.setWebApplicationType(WebApplicationType.NONE);
        application.setDefaultProperties(properties);
        assertThrows(RuntimeException.class, application::run, "the application must not start with " + properties);
        assertEquals(1, Reports.SEEN.size(), "one failure analysis reported: " + Reports.SEEN);
        return Reports.SEEN.get(0);
    }

    @Test
    void tooShortWatchdogTimeout_isReported_withThePropertyTheValueAsWrittenAndWhatIsAllowed() {
        FailureAnalysis analysis = startWith(Map.of("relock.lock-watchdog-timeout", "10ms"));
        assertTrue(analysis.getDescription().contains("relock.lock-watchdog-timeout")
                && analysis.getDescription().contains("'10ms'")
                && analysis.getDescription().contains("at least 30 ms"), analysis.getDescription());
        assertEquals("Change relock.lock-watchdog-timeout (it must be at least 30 ms), or remove it to use relock's"
                + " default.", analysis.getAction());
    }

    @Test
    void renewalBatchSizeOutOfRange_isReported_withTheAllowedRange() {
        FailureAnalysis analysis = startWith(Map.of("relock.renewal-batch-size", "5000"));
        assertTrue(analysis.getDescription().startsWith("Invalid value '5000' for relock.renewal-batch-size"),
                analysis.getDescription());
        assertTrue(analysis.getAction().contains("must be 1..1000"), analysis.getAction());
    }

    @Test
    void replicaSyncTimeoutWithReplicaSyncOff_isReported_namingTheContradiction() {
        FailureAnalysis analysis = startWith(Map.of("relock.replica-sync.enabled", "false", "relock.replica-sync.timeout", "1s"));
        assertTrue(analysis.getDescription().contains("relock.replica-sync.enabled")
                && analysis.getDescription().contains("'false'"), analysis.getDescription());
        assertTrue(analysis.getAction().contains("relock.replica-sync.replicas and .timeout"), analysis.getAction());
    }

    /** An application of one Lettuce client bean and the relock auto-configuration, nothing else. */
    @Configuration(proxyBeanMethods = false)
    @ImportAutoConfiguration(RelockAutoConfiguration.class)
    @Import(RelockAutoConfigurationTest.LettuceClientConfig.class)
    static class App {
    }

    /** Keeps every failure analysis Boot reports, for the test to read. */
    public static final class Reports implements FailureAnalysisReporter {
        static final List<FailureAnalysis> SEEN = new CopyOnWriteArrayList<>();

        @Override
        public void report(FailureAnalysis analysis) {
            SEEN.add(analysis);
        }
    }
}
