package io.github.relock.tck;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Collectors;

/**
 * A rule's totals over its runs, appended as one line to the kit's TSV file: scenario, kit,
 * runs, faults, grants, overlaps, signalled, longest signal delay (ms), stale accepted, late
 * accepted, refused, acknowledged writes lost, fault to next grant and heal to next grant (ms,
 * comma-separated, "-" for none). {@link FaultReport} reads these lines. The fault chapter
 * (18) and the lost-reply chapter (22) write them.
 *
 * <p>Thread-safety: not thread-safe; one per rule.
 */
final class FaultTotals {
    final String scenario;
    int runs;
    int faults;
    int grants;
    int overlaps;
    int signalled;
    long maxSignal;
    int stale;
    int late;
    int refused;
    int lostWrites;
    final List<Long> heal = new ArrayList<>();
    final List<Long> fault = new ArrayList<>();

    FaultTotals(String scenario) {
        this.scenario = scenario;
    }

    void add(int injected, History.Verdict v) {
        runs++;
        faults += injected;
        grants += v.grants();
        overlaps += v.overlaps();
        signalled += v.signalled();
        maxSignal = Math.max(maxSignal, v.maxSignalMillis());
        stale += v.staleAccepted();
        late += v.lateAccepted();
        refused += v.refused();
        lostWrites += v.acknowledgedLost();
        heal.addAll(v.healToGrantMillis());
        fault.addAll(v.faultToGrantMillis());
    }

    void append(String kitName) {
        String line = String.join("\t", scenario, kitName, Integer.toString(runs), Integer.toString(faults),
                Integer.toString(grants), Integer.toString(overlaps), Integer.toString(signalled),
                Long.toString(maxSignal), Integer.toString(stale), Integer.toString(late),
                Integer.toString(refused), Integer.toString(lostWrites), joined(fault), joined(heal)) + "\n";
        Path dir = Path.of(System.getProperty(FaultChapter.DIR_PROPERTY, "target/faults"));
        try {
            Files.createDirectories(dir);
            Files.writeString(dir.resolve(kitName + ".env"), io.github.relock.embeddedredis.RedisProcess.describe(
                    io.github.relock.embeddedredis.RedisProcess.defaultServer()) + ", JDK "
                    + Runtime.version() + " (" + System.getProperty("java.vm.name") + ")\n", StandardCharsets.UTF_8);
            Files.writeString(dir.resolve(kitName + ".tsv"), line, StandardCharsets.UTF_8,
                    StandardOpenOption.CREATE, StandardOpenOption.APPEND);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write the fault totals to " + dir, e);
        }
    }

    private static String joined(List<Long> millis) {
        return millis.isEmpty() ? "-" : millis.stream().map(String::valueOf).collect(Collectors.joining(","));
    }
}
