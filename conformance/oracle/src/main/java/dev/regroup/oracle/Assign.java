package dev.regroup.oracle;

import com.fasterxml.jackson.databind.JsonNode;

import dev.regroup.oracle.consumer.ConsumerInputFormat;

import org.apache.kafka.coordinator.group.api.streams.assignor.GroupAssignment;
import org.apache.kafka.coordinator.group.api.streams.assignor.TaskAssignorException;
import org.apache.kafka.coordinator.group.streams.assignor.StickyTaskAssignor;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * `Assign [--lines] [FILE|-]`: the same contract as `regroup assign`, computed by Kafka 4.4.0's
 * StickyTaskAssignor for a streams group, or by its UniformAssignor / RangeAssignor for an input with
 * `"kind":"consumer"` (dev.regroup.oracle.consumer.ConsumerInputFormat), all from the released jars.
 * With `--lines`, each output line is flushed as soon as it is written, so a caller may keep the
 * process and feed it one input at a time.
 */
public final class Assign {
    private Assign() { }

    public static void main(String[] args) throws Exception {
        boolean lines = false;
        String input = "-";
        for (String a : args) {
            if (a.equals("--lines")) lines = true;
            else input = a;
        }
        PrintStream out = new PrintStream(System.out, false, StandardCharsets.UTF_8);
        StickyTaskAssignor assignor = new StickyTaskAssignor();
        int status = 0;
        try (BufferedReader reader = input.equals("-")
                ? new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8))
                : Files.newBufferedReader(Path.of(input), StandardCharsets.UTF_8)) {
            if (lines) {
                String line;
                while ((line = reader.readLine()) != null) {
                    if (line.isBlank()) continue;
                    try {
                        out.println(run(assignor, line));
                    } catch (AssignFailure e) {
                        out.println(InputFormat.renderError(e.getMessage()));
                        status = 2;
                    }
                    // One answer per line as it comes: `regroup sweep --assignor-oracle` keeps this
                    // process and asks it line by line.
                    out.flush();
                }
            } else {
                StringBuilder text = new StringBuilder();
                char[] buf = new char[8192];
                int n;
                while ((n = reader.read(buf)) > 0) text.append(buf, 0, n);
                try {
                    out.println(run(assignor, text.toString()));
                } catch (AssignFailure e) {
                    System.err.println("Assign: " + e.getMessage());
                    status = 2;
                }
            }
        }
        out.flush();
        System.exit(status);
    }

    /** An assignor's exception, its message being the error text regroup prints too. */
    static final class AssignFailure extends Exception {
        AssignFailure(String message) {
            super(message);
        }
    }

    static String run(StickyTaskAssignor assignor, String json) throws Exception {
        JsonNode root = InputFormat.MAPPER.readTree(json);
        String kind = root.has("kind") ? root.get("kind").asText() : "streams";
        if (kind.equals("consumer")) {
            try {
                return ConsumerInputFormat.run(root);
            } catch (RuntimeException e) {
                // PartitionAssignorException, and the JVM's own (ArrayIndexOutOfBoundsException, ...).
                throw new AssignFailure(e.getMessage());
            }
        }
        InputFormat.Input in = InputFormat.parse(root);
        try {
            GroupAssignment result = assignor.assign(in.groupSpec(), in.topology());
            return InputFormat.render(result);
        } catch (TaskAssignorException e) {
            throw new AssignFailure(e.getMessage());
        }
    }
}
