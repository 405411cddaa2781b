package io.github.relock.benchmarks;

import java.io.IOException;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.concurrent.TimeUnit;

/**
 * {@code --pin} (Linux, {@code taskset}): puts Redis on the last CPU and this JVM, with every
 * benchmark JVM it forks, on the others. Every round trip then crosses CPUs, as it crosses
 * machines in production, and the client side has CPUs of its own. Unpinned, the scheduler
 * sometimes runs Redis and the caller on one CPU (a loopback round trip of ~30 µs on the 2-vCPU
 * reference VM) and sometimes on two (~100 µs: waking an idle vCPU is slow), and switches every
 * few seconds. Pinned figures are steadier on a quiet machine; on a shared one, pinning leaves the
 * benchmarks no CPU to escape another process's load to, so it is off by default.
 *
 * <p>Thread-safety: stateless.
 */
final class CpuPinning {
    private CpuPinning() {
    }

    /** @return what was pinned, or why nothing was */
    static String apply() {
        int cpus = Runtime.getRuntime().availableProcessors();
        if (cpus < 2) {
            return "not pinned (one CPU)";
        }
        if (!System.getProperty("os.name").toLowerCase(Locale.ROOT).contains("linux")) {
            return "not pinned (needs Linux taskset)";
        }
        Optional<ProcessHandle> redis = ProcessHandle.current().children()
                .filter(p -> p.info().command().map(c -> c.endsWith("redis-server")).orElse(false))
                .findFirst();
        if (redis.isEmpty()) {
            return "not pinned (redis-server process not found)";
        }
        String last = Integer.toString(cpus - 1);
        String rest = cpus == 2 ? "0" : "0-" + (cpus - 2);
        if (!taskset(last, redis.get().pid()) || !taskset(rest, ProcessHandle.current().pid())) {
            return "not pinned (taskset failed)";
        }
        return "pinned: redis-server on CPU " + last + ", benchmark JVMs on CPU " + rest;
    }

    private static boolean taskset(String cpus, long pid) {
        try {
            Process p = new ProcessBuilder(List.of("taskset", "-a", "-p", "-c", cpus, Long.toString(pid)))
                    .redirectErrorStream(true).redirectOutput(ProcessBuilder.Redirect.DISCARD).start();
            return p.waitFor(10, TimeUnit.SECONDS) && p.exitValue() == 0;
        } catch (IOException e) {
            return false;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }
}
