package dev.regroup.oracle.script;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;

import java.io.BufferedReader;
import java.io.BufferedWriter;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStreamWriter;
import java.io.PrintWriter;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;

/**
 * {@code Script [FILE|-]}: runs one script (the {@code regroup script} input format) against Apache Kafka's
 * group coordinator and prints the {@code regroup script} output lines. Exit 2 on bad input, with
 * {@code line N: message} on stderr, like regroup.
 *
 * <p>{@code Script --batch IN_DIR OUT_DIR} runs every {@code *.jsonl} of IN_DIR (in name order) in this one
 * JVM and writes OUT_DIR/&lt;same name&gt;; {@code Script --list FILE} does the same for the pairs
 * "input&lt;TAB&gt;output" listed in FILE. A script that fails ends its output file with
 * {@code {"error":"line N: message"}}; the batch itself exits 0 unless a file cannot be read or written.
 *
 * <p>{@code Script --interactive}: one script on stdin, answered line by line: after each input line its
 * output lines, then {@code {"done":N}} (or {@code {"error":"line N: message"}}, after which the script is
 * over). Lets a generator react to Kafka's own responses.
 */
public final class ScriptMain {
    private ScriptMain() { }

    public static void main(String[] args) throws IOException {
        if (args.length >= 1 && args[0].equals("--batch")) {
            if (args.length != 3) usage();
            Path in = Path.of(args[1]);
            Path out = Path.of(args[2]);
            Files.createDirectories(out);
            List<Path> inputs;
            try (Stream<Path> s = Files.list(in)) {
                inputs = s.filter(p -> p.getFileName().toString().endsWith(".jsonl")).sorted().toList();
            }
            for (Path p : inputs) runFile(p, out.resolve(p.getFileName()));
            return;
        }
        if (args.length >= 1 && args[0].equals("--list")) {
            if (args.length != 2) usage();
            for (String row : Files.readAllLines(Path.of(args[1]), StandardCharsets.UTF_8)) {
                if (row.isBlank()) continue;
                String[] pair = row.split("\t");
                if (pair.length != 2) throw new IOException("--list rows are \"input<TAB>output\": " + row);
                runFile(Path.of(pair[0]), Path.of(pair[1]));
            }
            return;
        }
        if (args.length == 1 && args[0].equals("--interactive")) {
            interactive();
            return;
        }
        if (args.length > 1) usage();
        String input = args.length == 0 ? "-" : args[0];
        PrintWriter out = new PrintWriter(new BufferedWriter(new OutputStreamWriter(System.out, StandardCharsets.UTF_8)));
        int status;
        try (BufferedReader reader = input.equals("-")
                ? new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8))
                : Files.newBufferedReader(Path.of(input), StandardCharsets.UTF_8)) {
            String error = run(reader, out);
            out.flush();
            if (error != null) System.err.println("Script: " + error);
            status = error == null ? 0 : 2;
        }
        System.exit(status);
    }

    private static void interactive() throws IOException {
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        PrintWriter out = new PrintWriter(new BufferedWriter(new OutputStreamWriter(System.out, StandardCharsets.UTF_8)));
        int n = 0;
        boolean failed = false;
        try (ScriptRun run = new ScriptRun()) {
            String text;
            while ((text = in.readLine()) != null) {
                n++;
                ObjectNode end = JsonNodeFactory.instance.objectNode();
                if (failed) {
                    end.put("error", "line " + n + ": the script already failed");
                } else {
                    try {
                        for (JsonNode l : run.feed(n, text)) out.println(ScriptRun.MAPPER.writeValueAsString(l));
                        end.put("done", n);
                    } catch (ScriptException e) {
                        failed = true;
                        end.put("error", "line " + n + ": " + e.getMessage());
                    } catch (RuntimeException e) {
                        failed = true;
                        end.put("error", "line " + n + ": unexpected " + e);
                    }
                }
                out.println(ScriptRun.MAPPER.writeValueAsString(end));
                out.flush();
            }
        }
    }

    private static void usage() {
        System.err.println("usage: Script [FILE|-] | --batch IN_DIR OUT_DIR | --list FILE | --interactive");
        System.exit(2);
    }

    private static void runFile(Path input, Path output) throws IOException {
        try (BufferedReader reader = Files.newBufferedReader(input, StandardCharsets.UTF_8);
             PrintWriter out = new PrintWriter(Files.newBufferedWriter(output, StandardCharsets.UTF_8))) {
            String error = run(reader, out);
            if (error != null) {
                ObjectNode e = JsonNodeFactory.instance.objectNode();
                e.put("error", error);
                out.println(ScriptRun.MAPPER.writeValueAsString(e));
            }
        }
    }

    /** Runs a script, writing output lines; returns null, or "line N: message" for the line that failed. */
    static String run(BufferedReader reader, Writer out) throws IOException {
        PrintWriter w = out instanceof PrintWriter pw ? pw : new PrintWriter(out);
        int n = 0;
        try (ScriptRun run = new ScriptRun()) {
            String text;
            while ((text = reader.readLine()) != null) {
                n++;
                List<JsonNode> lines;
                try {
                    lines = run.feed(n, text);
                } catch (ScriptException e) {
                    w.flush();
                    return "line " + n + ": " + e.getMessage();
                } catch (RuntimeException e) {
                    // Kafka's code threw where the broker would not have: a harness bug or a script the
                    // broker could not get; reported like bad input, with the exception.
                    w.flush();
                    return "line " + n + ": unexpected " + e;
                }
                for (JsonNode l : lines) w.println(ScriptRun.MAPPER.writeValueAsString(l));
            }
        }
        w.flush();
        return null;
    }

    static List<String> runToLines(List<String> script) throws IOException {
        java.io.StringWriter sw = new java.io.StringWriter();
        String error = run(new BufferedReader(new java.io.StringReader(String.join("\n", script))), new PrintWriter(sw));
        List<String> lines = new ArrayList<>(sw.toString().lines().toList());
        if (error != null) lines.add("error: " + error);
        return lines;
    }
}
