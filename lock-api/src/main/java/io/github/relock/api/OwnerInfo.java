package io.github.relock.api;

import java.net.InetAddress;
import java.util.Objects;

/**
 * Who a {@link LockClient} is, for people reading an inspection ({@link LockClient#inspect}): a
 * client given one ({@link LockOptions.Builder#ownerInfo}) keeps it in Redis under
 * {@code relock:{clients}:<clientId>} while it is open, so an inspection of a lock it holds names
 * the host and application, not only a UUID. Redisson clients register nothing.
 *
 * <pre>{@code
 * LockOptions.builder().ownerInfo(OwnerInfo.of("billing", "2.4.1")).build();
 * }</pre>
 *
 * <p>Thread-safety: immutable.
 *
 * @param host the machine or pod, e.g. {@code billing-7d9f-xk2p}; may be empty
 * @param application the application's name; may be empty
 * @param instance which process of it, e.g. a process id; may be empty
 * @param version the application's version; may be empty
 * @since 0.1.0
 */
public record OwnerInfo(String host, String application, String instance, String version) {

    /** The longest value of each part, in chars. */
    public static final int MAX_LENGTH = 256;

    /**
     * Checks the parts.
     *
     * @throws NullPointerException if a part is null (pass {@code ""} for unknown)
     * @throws IllegalArgumentException if a part is longer than {@link #MAX_LENGTH}
     */
    public OwnerInfo {
        check("host", host);
        check("application", application);
        check("instance", instance);
        check("version", version);
    }

    /**
     * This JVM as an owner: the host from {@code $HOSTNAME} (a Kubernetes pod's name), else the
     * local host name, else empty; the instance is this process's id.
     *
     * @param application the application's name
     * @param version the application's version, or {@code ""}
     * @return the owner info
     * @throws NullPointerException if an argument is null
     * @throws IllegalArgumentException if an argument is longer than {@link #MAX_LENGTH}
     */
    public static OwnerInfo of(String application, String version) {
        return new OwnerInfo(localHost(), application, Long.toString(ProcessHandle.current().pid()), version);
    }

    private static String localHost() {
        String env = System.getenv("HOSTNAME");
        if (env != null && !env.isBlank()) {
            return cut(env.strip());
        }
        try {
            return cut(InetAddress.getLocalHost().getHostName());
        } catch (java.io.IOException | SecurityException e) {
            return "";
        }
    }

    private static String cut(String s) {
        return s.length() > MAX_LENGTH ? s.substring(0, MAX_LENGTH) : s;
    }

    private static void check(String what, String value) {
        Objects.requireNonNull(value, () -> "OwnerInfo " + what + " must not be null (use \"\" for unknown)");
        if (value.length() > MAX_LENGTH) {
            throw new IllegalArgumentException("OwnerInfo " + what + " must be at most " + MAX_LENGTH
                    + " chars, was " + value.length() + " chars");
        }
    }
}
