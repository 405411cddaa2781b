package io.github.relock.benchmarks;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** The report's switches: scenario names, relock's local hand-off setting, the cluster property. */
class OptionsAndSelectionTest {

    @AfterEach
    void clearProperties() {
        System.clearProperty(Contender.LOCAL_HANDOFF);
        System.clearProperty(BenchEnv.CLUSTER);
    }

    @Test
    void scenarioNames_includeTheIssue15Scenarios() {
        assertTrue(BenchmarkReport.scenarioNames().containsAll(List.of("a", "b", "c", "d", "e", "f", "g", "h", "i", "j",
                "rw")), BenchmarkReport.scenarioNames().toString());
    }

    @Test
    void localHandOff_defaultAndOff_areAccepted() {
        assertEquals(Duration.ofSeconds(7), Contender.relockOptions(Duration.ofSeconds(7)).lockWatchdogTimeout());
        System.setProperty(Contender.LOCAL_HANDOFF, "OFF");
        assertEquals("off", Contender.localHandOff());
        assertEquals(Duration.ofSeconds(7), Contender.relockOptions(Duration.ofSeconds(7)).lockWatchdogTimeout());
    }

    @Test
    void localHandOff_unknownValue_isRejectedNamingTheAllowedOnes() {
        System.setProperty(Contender.LOCAL_HANDOFF, "sometimes");
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> Contender.relockOptions(Duration.ofSeconds(30)));
        assertEquals("-Drelock.localHandoff must be 'default' or 'off', was 'sometimes'", e.getMessage());
    }

    @Test
    void clusterProperty_isParsedIntoSeeds_andEmptyMeansOneNode() {
        assertEquals(List.of(), BenchEnv.cluster());
        System.setProperty(BenchEnv.CLUSTER, "127.0.0.1:7000, 127.0.0.1:7001");
        assertEquals(List.of(InetSocketAddress.createUnresolved("127.0.0.1", 7000),
                InetSocketAddress.createUnresolved("127.0.0.1", 7001)), BenchEnv.cluster());
    }

    @Test
    void clusterProperty_withoutAPort_isRejectedWithTheFormat() {
        System.setProperty(BenchEnv.CLUSTER, "localhost");
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, BenchEnv::cluster);
        assertEquals("-Drelock.bench.cluster takes host:port,host:port,...; got 'localhost'", e.getMessage());
    }

    @Test
    void briefProfile_shortHasFewerIterations_longOneFork_quickUnchanged() {
        assertEquals(2, Profile.SHORT.brief().warmupIterations());
        assertEquals(4, Profile.SHORT.brief().measurementIterations());
        assertEquals(Profile.SHORT.forks(), Profile.SHORT.brief().forks());
        assertEquals(1, Profile.LONG.brief().forks());
        assertEquals(Profile.LONG.measurementIterations(), Profile.LONG.brief().measurementIterations());
        assertEquals(Profile.QUICK, Profile.QUICK.brief());
    }
}
