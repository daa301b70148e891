package dev.regroup.oracle.script;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.databind.node.TextNode;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;

/**
 * The member-id normalisation rule shared with regroup's script runner (see the README, "Differential
 * oracle"). A classic member id the coordinator generates (Kafka: {@code clientId-<random UUID>}) is named
 * {@code $gen:L}, L being the script line of the request that generated it: after each request, every
 * member id and pending member id of a classic group without a name gets that line's name; and a JoinGroup
 * response whose {@code memberId} is non-empty, differs from the request's and is not yet named names it
 * after the JoinGroup's line. Requests refer to it
 * by that name (any JSON string equal to a name is replaced by the real id before the request runs); every
 * output string has each real id replaced by its name. Names depend only on line numbers, so two runners
 * agree on them whatever order they complete parked requests in.
 */
final class GeneratedIds {
    private final Map<String, String> realByName = new HashMap<>();
    private final Map<String, String> nameByReal = new HashMap<>();
    /** Real ids, longest first, so that an id that is a prefix of another is never replaced inside it. */
    private final List<String> reals = new ArrayList<>();

    /** Records the id a JoinGroup response at {@code line} handed out, if it is a new one. */
    void learn(int line, String requestMemberId, String responseMemberId) {
        if (responseMemberId == null || responseMemberId.isEmpty()) return;
        if (responseMemberId.equals(requestMemberId) || nameByReal.containsKey(responseMemberId)) return;
        String name = "$gen:" + line;
        if (realByName.containsKey(name)) return;
        realByName.put(name, responseMemberId);
        nameByReal.put(responseMemberId, name);
        reals.add(responseMemberId);
        reals.sort(Comparator.comparingInt(String::length).reversed().thenComparing(Comparator.naturalOrder()));
    }

    /** Names {@code id}, found in a classic group after the request at {@code line}, if it has no name yet. */
    void learnGenerated(int line, String id) {
        learn(line, null, id);
    }

    /** A copy of {@code node} with every string equal to a name replaced by its real id. */
    JsonNode toReal(JsonNode node) {
        if (node.isTextual()) {
            String real = realByName.get(node.asText());
            return real == null ? node : TextNode.valueOf(real);
        }
        if (node.isObject()) {
            ObjectNode out = JsonNodeFactory.instance.objectNode();
            Iterator<Map.Entry<String, JsonNode>> it = node.fields();
            while (it.hasNext()) {
                Map.Entry<String, JsonNode> e = it.next();
                out.set(e.getKey(), toReal(e.getValue()));
            }
            return out;
        }
        if (node.isArray()) {
            ArrayNode out = JsonNodeFactory.instance.arrayNode();
            for (JsonNode n : node) out.add(toReal(n));
            return out;
        }
        return node;
    }

    String toNames(String s) {
        if (reals.isEmpty()) return s;
        for (String real : reals) {
            if (s.contains(real)) s = s.replace(real, nameByReal.get(real));
        }
        return s;
    }

    /** A copy of {@code node} with every real id inside every string (keys too) replaced by its name. */
    JsonNode toNames(JsonNode node) {
        if (reals.isEmpty()) return node;
        if (node.isTextual()) return TextNode.valueOf(toNames(node.asText()));
        if (node.isObject()) {
            ObjectNode out = JsonNodeFactory.instance.objectNode();
            Iterator<Map.Entry<String, JsonNode>> it = node.fields();
            while (it.hasNext()) {
                Map.Entry<String, JsonNode> e = it.next();
                out.set(toNames(e.getKey()), toNames(e.getValue()));
            }
            return out;
        }
        if (node.isArray()) {
            ArrayNode out = JsonNodeFactory.instance.arrayNode();
            for (JsonNode n : node) out.add(toNames(n));
            return out;
        }
        return node;
    }
}
