package io.github.relock.examples;

import java.io.PrintStream;
import java.io.PrintWriter;
import java.io.Writer;
import java.nio.CharBuffer;
import java.util.Map;
import java.util.Set;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.HelpCommand;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.UnmatchedArgumentException;

/**
 * The examples' command line (picocli): {@code demo} (the default) and {@code inspect}.
 *
 * <pre>
 * mvn -B -q -pl examples/demo -am package -DskipTests
 * java -jar examples/demo/target/relock-examples.jar                      # the demo
 * java -jar examples/demo/target/relock-examples.jar inspect orders:42    # what Redis holds for a lock
 * java -jar examples/demo/target/relock-examples.jar --help               # or: help demo, inspect --help
 * </pre>
 *
 * <p>Thread-safety: {@link #run} may be called from several threads (tests do); each call builds
 * its own command objects.
 */
public final class Main {
    /** The demo's invariants held; inspect found a lock. */
    static final int EXIT_OK = 0;
    /** The demo broke an invariant (or failed); inspect found no lock of that name. */
    static final int EXIT_FAILED = 1;
    /** Bad command line: unknown command or option, bad value, bad URL. */
    static final int EXIT_USAGE = 2;
    /** Redis did not answer (not running, wrong host or port), refused the credentials, or (demo
     * without a URL) the embedded server could not start. */
    static final int EXIT_UNREACHABLE = 3;

    static final String JAR = "java -jar examples/demo/target/relock-examples.jar";

    /** The top-level command: only help of its own; {@code demo} runs when no command is named. */
    @Command(name = JAR,
            synopsisHeading = "",
            customSynopsis = {
                "Usage: " + JAR + " [demo] [OPTIONS]",
                "       " + JAR + " inspect [OPTIONS] <lockName>",
                "       " + JAR + " help [COMMAND]"},
            descriptionHeading = "%n", optionListHeading = "%nOptions:%n",
            description = {"relock examples: relock and Redisson sharing locks, and what a lock looks like in Redis."
                    + " With no command, or options first, the demo runs."},
            commandListHeading = "%nCommands:%n",
            exitCodeListHeading = "%nExit codes:%n",
            exitCodeList = {
                "0:ok: the demo's checks passed; inspect found a lock",
                "1:a demo check failed; inspect found no lock of that name",
                "2:usage error: unknown command or option, bad value, malformed URL",
                "3:Redis unreachable or refused the credentials; without a URL, the demo's embedded server"
                        + " could not start"},
            footer = {"%nRun '" + JAR + " COMMAND --help' for a command's options."})
    static final class Examples implements Runnable {
        @Option(names = {"-h", "--help"}, usageHelp = true, description = "Show this help and exit.")
        boolean help;

        @Override
        public void run() {
            // not reached: run() names a command for every argument list
        }
    }

    private static final Set<String> TOP_LEVEL_HELP = Set.of("-h", "--help");

    private Main() {
    }

    /**
     * Runs the command line and exits with its code.
     *
     * @param args the arguments
     */
    public static void main(String[] args) {
        System.exit(run(args, System.getenv(), System.out, System.err));
    }

    /**
     * Runs the command line without exiting.
     *
     * @param args the arguments
     * @param env the environment ({@code REDIS_URL})
     * @param out where results and help go
     * @param err where errors go
     * @return the exit code
     */
    static int run(String[] args, Map<String, String> env, PrintStream out, PrintStream err) {
        PrintWriter outWriter = writerOver(out);
        PrintWriter errWriter = writerOver(err);
        CommandLine cli = new CommandLine(new Examples())
                .addSubcommand(new DemoCommand(env, out))
                .addSubcommand(new InspectCommand(env, out))
                .addSubcommand(new HelpCommand());
        cli.setUsageHelpWidth(100); // the command name alone, "java -jar ...", takes 45 columns
        cli.setOut(outWriter);
        cli.setErr(errWriter);
        if (out != System.out) {
            cli.setColorScheme(CommandLine.Help.defaultColorScheme(CommandLine.Help.Ansi.OFF));
        }
        cli.setParameterExceptionHandler((ex, ignored) -> usageError(ex, errWriter));
        cli.setExecutionExceptionHandler((ex, command, parsed) -> failure(ex, command, errWriter));
        try {
            return cli.execute(withDefaultCommand(args));
        } finally {
            outWriter.flush();
            errWriter.flush();
        }
    }

    /** No command named (no arguments, or an option first): the demo, except for top-level help. */
    static String[] withDefaultCommand(String[] args) {
        if (args.length > 0 && (!args[0].startsWith("-") || TOP_LEVEL_HELP.contains(args[0]))) {
            return args;
        }
        String[] withDemo = new String[args.length + 1];
        withDemo[0] = "demo";
        System.arraycopy(args, 0, withDemo, 1, args.length);
        return withDemo;
    }

    /** {@code --url}, else {@code REDIS_URL}, else null. */
    static String url(String option, Map<String, String> env) {
        String url = option != null ? option : env.get("REDIS_URL");
        return url == null || url.isBlank() ? null : url;
    }

    private static int usageError(ParameterException ex, PrintWriter err) {
        CommandLine command = ex.getCommandLine();
        err.println("relock-examples: " + describe(ex));
        UnmatchedArgumentException.printSuggestions(ex, err);
        err.println("run '" + command.getCommandSpec().qualifiedName() + " --help' for usage");
        return EXIT_USAGE;
    }

    /** picocli's message, named after the command; the commonest three in the words the README uses. */
    private static String describe(ParameterException ex) {
        CommandLine command = ex.getCommandLine();
        String name = command.getCommandName();
        if (ex instanceof UnmatchedArgumentException unmatched && !unmatched.getUnmatched().isEmpty()) {
            String first = unmatched.getUnmatched().get(0);
            if (command.getParent() == null && !first.startsWith("-")) {
                return "unknown command '" + first + "' (commands: demo, inspect)";
            }
            if (unmatched.isUnknownOption()) {
                return name + ": unknown option " + unmatched.getUnmatched().stream().filter(a -> a.startsWith("-"))
                        .findFirst().orElse(first);
            }
            return name + ": unexpected argument '" + first + "'";
        }
        if (ex instanceof CommandLine.MissingParameterException && command.getCommand() instanceof InspectCommand) {
            return name + ": " + InspectCommand.WHICH_LOCK;
        }
        return name + ": " + ex.getMessage();
    }

    private static int failure(Exception ex, CommandLine command, PrintWriter err) {
        if (ex instanceof CliException e) {
            err.println("relock-examples: " + e.getMessage());
            if (e.exitCode() == EXIT_USAGE) {
                err.println("run '" + command.getCommandSpec().qualifiedName() + " --help' for usage");
            }
            return e.exitCode();
        }
        if (ex instanceof InterruptedException) {
            Thread.currentThread().interrupt();
            err.println("relock-examples: interrupted");
            return EXIT_FAILED;
        }
        err.println("relock-examples: " + command.getCommandName() + " failed: " + RedisTarget.rootMessage(ex));
        return EXIT_FAILED;
    }

    /** picocli writes to a PrintWriter; this one hands every character to the stream, in its charset, in order. */
    private static PrintWriter writerOver(PrintStream stream) {
        return new PrintWriter(new Writer() {
            @Override
            public void write(char[] chars, int offset, int length) {
                stream.append(CharBuffer.wrap(chars, offset, length));
            }

            @Override
            public void flush() {
                stream.flush();
            }

            @Override
            public void close() {
                stream.flush(); // the stream belongs to the caller
            }
        }, true);
    }
}
