package io.github.relock.examples;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * A subcommand's parsed arguments: {@code --name value}, {@code --name=value}, flags, and
 * positional arguments; {@code --} ends the options. Only the JDK, on purpose: the demo should read
 * like something a newcomer can copy.
 *
 * <p>Thread-safety: immutable after {@link #parse}.
 */
final class Args {
    private final Map<String, String> values = new HashMap<>();
    private final Set<String> flags = new HashSet<>();
    private final List<String> positionals = new ArrayList<>();

    private Args() {
    }

    /**
     * @param command the subcommand, for error messages
     * @param raw the arguments after the subcommand
     * @param valued options that take a value, e.g. {@code --url}
     * @param flagNames options without a value, e.g. {@code --json}
     * @return the parsed arguments
     * @throws CliException (usage) on an unknown option or a missing value
     */
    static Args parse(String command, List<String> raw, Set<String> valued, Set<String> flagNames) {
        Args a = new Args();
        boolean optionsEnded = false;
        for (int i = 0; i < raw.size(); i++) {
            String arg = raw.get(i);
            if (optionsEnded || !arg.startsWith("-") || arg.equals("-")) {
                a.positionals.add(arg);
                continue;
            }
            if (arg.equals("--")) {
                optionsEnded = true;
                continue;
            }
            if (arg.equals("-h")) {
                arg = "--help";
            }
            String name = arg;
            String value = null;
            int eq = arg.indexOf('=');
            if (eq > 0) {
                name = arg.substring(0, eq);
                value = arg.substring(eq + 1);
            }
            if (valued.contains(name)) {
                if (value == null) {
                    if (i + 1 >= raw.size()) {
                        throw CliException.usage(command + ": " + name + " needs a value");
                    }
                    value = raw.get(++i);
                }
                a.values.put(name, value);
            } else if (flagNames.contains(name) || name.equals("--help")) {
                if (value != null) {
                    throw CliException.usage(command + ": " + name + " takes no value, was given '" + value + "'");
                }
                a.flags.add(name);
            } else {
                throw CliException.usage(command + ": unknown option " + name);
            }
        }
        return a;
    }

    String value(String name) {
        return values.get(name);
    }

    boolean flag(String name) {
        return flags.contains(name);
    }

    List<String> positionals() {
        return positionals;
    }

    /**
     * @return the option's value as an int within [min, max], or {@code dflt} when absent
     * @throws CliException (usage) when it is not such a number
     */
    int intValue(String command, String name, int dflt, int min, int max) {
        String v = values.get(name);
        if (v == null) {
            return dflt;
        }
        try {
            int n = Integer.parseInt(v.trim());
            if (n >= min && n <= max) {
                return n;
            }
        } catch (NumberFormatException e) {
            // reported below
        }
        throw CliException.usage(command + ": " + name + " must be a whole number from " + min + " to " + max
                + ", was '" + v + "'");
    }
}
