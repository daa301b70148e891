package dev.regroup.oracle;

import com.google.re2j.Pattern;
import com.google.re2j.PatternSyntaxException;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/**
 * How Kafka 4.4.0's group coordinator reads subscription regexes: RE2J's {@code Pattern.compile} (as
 * {@code Utils.throwIfRegularExpressionIsInvalid}) and {@code Matcher.matches()} (as
 * {@code TopicRegexResolver.resolveRegularExpressions}).
 *
 * <p>Usage: {@code Re2jCheck FILE TOPIC,TOPIC,...}: for each line of FILE (one expression), prints
 * {@code ok} and the topics it matches (each followed by a space), or {@code ERR} and RE2J's
 * {@code getDescription()}. regroup's side of {@code regroup conformance --regex N} prints the same.
 */
public final class Re2jCheck {
    private Re2jCheck() { }

    static String answer(String regex, String[] topics) {
        try {
            Pattern p = Pattern.compile(regex);
            StringBuilder out = new StringBuilder("ok ");
            for (String t : topics) {
                if (p.matcher(t).matches()) out.append(t).append(' ');
            }
            return out.toString();
        } catch (PatternSyntaxException e) {
            return "ERR " + e.getDescription();
        }
    }

    public static void main(String[] args) throws IOException {
        if (args.length != 2) {
            System.err.println("usage: Re2jCheck FILE TOPIC,TOPIC,...");
            System.exit(2);
        }
        String[] topics = args[1].split(",");
        List<String> lines = Files.readAllLines(Path.of(args[0]), StandardCharsets.UTF_8);
        StringBuilder out = new StringBuilder();
        for (String line : lines) {
            out.append(answer(line, topics)).append('\n');
        }
        System.out.print(out);
    }
}
