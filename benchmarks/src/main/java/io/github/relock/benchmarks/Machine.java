package io.github.relock.benchmarks;

import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Locale;

/**
 * What the report says about the machine it ran on.
 *
 * <p>Thread-safety: stateless.
 */
final class Machine {
    private Machine() {
    }

    static String describe() {
        StringBuilder sb = new StringBuilder();
        sb.append("- CPU: ").append(cpuModel()).append(", ")
                .append(Runtime.getRuntime().availableProcessors()).append(" cores available to the JVM (`nproc`)\n");
        long mem = totalMemory();
        if (mem > 0) {
            sb.append("- Memory: ").append(mem / (1024 * 1024 * 1024)).append(" GiB\n");
        }
        sb.append("- OS: ").append(System.getProperty("os.name")).append(' ').append(System.getProperty("os.version"))
                .append(' ').append(System.getProperty("os.arch")).append('\n');
        sb.append("- JDK: ").append(System.getProperty("java.vm.name")).append(' ')
                .append(System.getProperty("java.runtime.version")).append(" (").append(System.getProperty("java.vendor"))
                .append("); benchmark JVMs: -Xms1g -Xmx1g, default GC\n");
        return sb.toString();
    }

    /** @return {@code git describe --always --dirty} of the tree at {@code root}, or why not */
    static String sourceRevision(Path root) {
        try {
            Process p = new ProcessBuilder("git", "-C", root.toString(), "describe", "--always", "--dirty")
                    .redirectErrorStream(true).start();
            String out = new String(p.getInputStream().readAllBytes(), java.nio.charset.StandardCharsets.UTF_8).trim();
            return p.waitFor() == 0 && !out.isEmpty() ? out : "unknown (not a git work tree)";
        } catch (IOException e) {
            return "unknown (git not found)";
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return "unknown";
        }
    }

    static String loadAverage() {
        double l = ManagementFactory.getOperatingSystemMXBean().getSystemLoadAverage();
        return l < 0 ? "n/a" : String.format(Locale.ROOT, "%.2f", l);
    }

    private static String cpuModel() {
        try {
            for (String line : Files.readAllLines(Path.of("/proc/cpuinfo"))) {
                if (line.startsWith("model name")) {
                    return line.substring(line.indexOf(':') + 1).trim();
                }
            }
        } catch (IOException | RuntimeException e) {
            // not Linux
        }
        return System.getProperty("os.arch");
    }

    private static long totalMemory() {
        if (ManagementFactory.getOperatingSystemMXBean() instanceof com.sun.management.OperatingSystemMXBean os) {
            return os.getTotalMemorySize();
        }
        return -1;
    }
}
