package io.github.relock.tck;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.Function;

/**
 * How the topology fixtures route an admin command: which nodes a server-wide command concerns,
 * how their replies merge, which key a key command is about, and Redis Cluster's hash slot of a key.
 *
 * <p>Thread-safety: stateless.
 */
final class Routing {

    /** Which nodes a server-wide command goes to. */
    enum Scope {
        /** A key command: the one node serving the key. */
        KEY,
        /** Data: every master (a replica holds a copy, and refuses writes). */
        MASTERS,
        /** Connections: every data node (a client may subscribe or connect to a replica). */
        ALL
    }

    private Routing() {
    }

    static Scope scope(String... args) {
        String cmd = args[0].toUpperCase(Locale.ROOT);
        return switch (cmd) {
            case "FLUSHALL", "FLUSHDB", "KEYS", "DBSIZE", "SCRIPT", "CONFIG", "INFO" -> Scope.MASTERS;
            case "PUBSUB", "CLIENT" -> Scope.ALL;
            default -> Scope.KEY;
        };
    }

    /** @return the key a key command is about, or null when any node will do */
    static String keyOf(String... args) {
        String cmd = args[0].toUpperCase(Locale.ROOT);
        return switch (cmd) {
            case "EVAL", "EVALSHA", "EVAL_RO", "EVALSHA_RO" ->
                    args.length > 3 && Long.parseLong(args[2]) > 0 ? args[3] : null;
            case "PUBLISH", "TIME", "PING", "WAIT" -> null;
            default -> args.length > 1 ? args[1] : null;
        };
    }

    /**
     * Runs a server-wide command on each node and merges the replies: lists joined (without
     * duplicates for {@code PUBSUB CHANNELS}/{@code SHARDCHANNELS}), {@code PUBSUB NUMSUB} counts
     * added per channel, integers added, texts joined by lines, anything else the first reply.
     */
    static <N> Object fanOut(List<N> nodes, Function<N, Object> run, String... args) {
        List<Object> replies = new ArrayList<>(nodes.size());
        for (N node : nodes) {
            replies.add(run.apply(node));
        }
        return merge(replies, args);
    }

    static Object merge(List<Object> replies, String... args) {
        if (replies.isEmpty()) {
            return null;
        }
        boolean numsub = args[0].equalsIgnoreCase("PUBSUB") && args.length > 1
                && (args[1].equalsIgnoreCase("NUMSUB") || args[1].equalsIgnoreCase("SHARDNUMSUB"));
        if (numsub) {
            Map<Object, Long> counts = new LinkedHashMap<>();
            for (Object r : replies) {
                List<?> l = (List<?>) r;
                for (int i = 0; i + 1 < l.size(); i += 2) {
                    counts.merge(l.get(i), (Long) l.get(i + 1), Long::sum);
                }
            }
            List<Object> out = new ArrayList<>();
            counts.forEach((k, v) -> {
                out.add(k);
                out.add(v);
            });
            return out;
        }
        Object first = replies.get(0);
        if (first instanceof List) {
            boolean distinct = args[0].equalsIgnoreCase("PUBSUB");
            List<Object> out = new ArrayList<>();
            for (Object r : replies) {
                out.addAll((List<?>) r);
            }
            return distinct ? new ArrayList<>(new LinkedHashSet<>(out)) : out;
        }
        if (first instanceof Long) {
            long sum = 0;
            for (Object r : replies) {
                sum += (Long) r;
            }
            return sum;
        }
        if (first instanceof String && !"OK".equals(first)) {
            StringBuilder b = new StringBuilder();
            for (Object r : replies) {
                b.append(r).append(r.toString().endsWith("\n") ? "" : "\r\n");
            }
            return b.toString();
        }
        return first;
    }

    /**
     * @param key a key
     * @return its Redis Cluster hash slot: CRC16 (XMODEM) of the key, or of its first non-empty
     *     {@code {...}} hash tag, modulo 16384
     */
    static int slot(String key) {
        byte[] b = key.getBytes(StandardCharsets.UTF_8);
        int start = 0;
        int end = b.length;
        for (int i = 0; i < b.length; i++) {
            if (b[i] == '{') {
                for (int j = i + 1; j < b.length; j++) {
                    if (b[j] == '}') {
                        if (j > i + 1) {
                            start = i + 1;
                            end = j;
                        }
                        break;
                    }
                }
                break;
            }
        }
        int crc = 0;
        for (int i = start; i < end; i++) {
            crc ^= (b[i] & 0xff) << 8;
            for (int k = 0; k < 8; k++) {
                crc = (crc & 0x8000) != 0 ? (crc << 1) ^ 0x1021 : crc << 1;
            }
            crc &= 0xffff;
        }
        return crc & 16383;
    }
}
