package dev.regroup.oracle.script;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.function.Consumer;

/**
 * One script run against Kafka's coordinator: the input and output contract of {@code regroup script}
 * (see scenarios/src/script.rs), line by line.
 *
 * <p>Broker configs are fixed when Kafka's coordinator starts, so {@code config} lines must come before
 * the first other line; the coordinator starts (loads its empty partition) at the first line that is not a
 * config line, at the time of the line before it.
 */
final class ScriptRun implements AutoCloseable {
    static final ObjectMapper MAPPER = new ObjectMapper();
    private static final JsonNodeFactory JSON = JsonNodeFactory.instance;

    /** A request waiting for its response. */
    private record Pending(String api, String requestMemberId) { }

    private final Map<String, String> brokerConfigs = new LinkedHashMap<>();
    private final GeneratedIds ids = new GeneratedIds();
    private final Map<Integer, Pending> pending = new HashMap<>();
    /** Responses of earlier requests completed during the current step, in completion order. */
    private final List<ObjectNode> completed = new ArrayList<>();
    private KafkaCoordinator kafka;
    private long now;

    /** Runs one input line; returns its output lines. */
    List<JsonNode> feed(int line, String text) {
        if (text.isBlank()) return List.of();
        JsonNode root;
        try {
            root = MAPPER.readTree(text);
        } catch (Exception e) {
            throw new ScriptException("malformed JSON: " + e.getMessage());
        }
        if (root == null || !root.isObject()) throw new ScriptException("expected a JSON object");
        JsonNode atNode = root.get("at");
        if (atNode == null || !atNode.isIntegralNumber() || !atNode.canConvertToLong()) {
            throw new ScriptException("missing or non-integer \"at\"");
        }
        long at = atNode.asLong();
        if (at < now) throw new ScriptException("\"at\" " + at + " is before the previous line's " + now);
        List<String> kinds = new ArrayList<>();
        Iterator<String> names = root.fieldNames();
        while (names.hasNext()) {
            String k = names.next();
            // "expect" is checked by regroup conformance against both outputs; a runner ignores it.
            if (k.equals("at") || k.equals("context") || k.equals("expect")) continue;
            if (!List.of("config", "metadata", "groupConfig", "request").contains(k)) {
                throw new ScriptException("unknown key \"" + k + "\"");
            }
            kinds.add(k);
        }
        if (kinds.size() > 1) {
            throw new ScriptException("a line holds one of config, metadata, groupConfig, request; found " + kinds);
        }
        if (root.has("context") && !root.has("request")) {
            throw new ScriptException("\"context\" is only allowed with \"request\"");
        }
        if (root.has("expect") && !root.has("request")) {
            throw new ScriptException("\"expect\" is only allowed with \"request\"");
        }
        String kind = kinds.isEmpty() ? null : kinds.get(0);

        if ("config".equals(kind)) {
            if (kafka != null) {
                throw new ScriptException("broker configs must come before the first metadata, groupConfig or "
                    + "request line (Kafka reads them once, at start-up)");
            }
            JsonNode configs = root.get("config");
            if (!configs.isObject()) throw new ScriptException("\"config\" must be an object");
            configs.fields().forEachRemaining(e -> brokerConfigs.put(e.getKey(), configValue(e.getKey(), e.getValue())));
            now = at;
            return List.of();
        }

        if (kafka == null) {
            kafka = new KafkaCoordinator(brokerConfigs);
            kafka.setTime(now);
        }
        List<JsonNode> out = new ArrayList<>();
        advance(at, out);
        now = at;
        if ("metadata".equals(kind)) {
            kafka.setTopics(root.get("metadata"));
            writesOf(line, at, out);
            finishStep(out, null);
        } else if ("groupConfig".equals(kind)) {
            groupConfig(root.get("groupConfig"));
            writesOf(line, at, out);
            finishStep(out, null);
        } else if ("request".equals(kind)) {
            request(line, at, root, out);
        }
        return translate(out);
    }

    /**
     * A metadata or groupConfig line prints nothing, unless the coordinator wrote records because of it
     * (Kafka deletes the committed offsets of a deleted topic): then {@code {"at":T,"line":N,"records":[...]}}.
     */
    private void writesOf(int line, long at, List<JsonNode> out) {
        ArrayNode records = records();
        if (records.isEmpty()) return;
        ObjectNode l = JSON.objectNode();
        l.put("at", at);
        l.put("line", line);
        l.set("records", records);
        out.add(l);
    }

    private static String configValue(String key, JsonNode v) {
        if (v.isTextual()) return v.asText();
        if (v.isNumber() || v.isBoolean()) return v.asText();
        if (v.isArray()) {
            List<String> parts = new ArrayList<>();
            for (JsonNode item : v) {
                if (!item.isTextual()) throw new ScriptException("config " + key + ": unsupported value " + v);
                parts.add(item.asText());
            }
            return String.join(",", parts);
        }
        throw new ScriptException("config " + key + ": unsupported value " + v);
    }

    private void groupConfig(JsonNode g) {
        if (g == null || !g.isObject()) throw new ScriptException("\"groupConfig\" must be an object");
        g.fieldNames().forEachRemaining(k -> {
            if (!k.equals("groupId") && !k.equals("configs")) {
                throw new ScriptException("unknown groupConfig field \"" + k + "\"");
            }
        });
        JsonNode groupId = g.get("groupId");
        if (groupId == null || !groupId.isTextual()) throw new ScriptException("groupConfig needs a \"groupId\"");
        JsonNode configs = g.get("configs");
        if (configs == null || !configs.isObject()) throw new ScriptException("groupConfig needs \"configs\"");
        Map<String, String> values = new LinkedHashMap<>();
        configs.fields().forEachRemaining(e -> values.put(e.getKey(), configValue(e.getKey(), e.getValue())));
        kafka.setGroupConfig(groupId.asText(), values);
    }

    /** Fires, in deadline order, every timer due at or before {@code at}. */
    private void advance(long at, List<JsonNode> out) {
        while (true) {
            KafkaCoordinator.Fired fired = kafka.fireNext(at);
            if (fired == null) break;
            ArrayNode records = records();
            boolean quiet = records.isEmpty() && completed.isEmpty()
                && (fired.key() == null || KafkaCoordinator.HOUSEKEEPING_TIMERS.contains(fired.key()));
            if (!quiet) {
                ObjectNode line = JSON.objectNode();
                line.put("at", fired.deadlineMs());
                line.put("timer", fired.key() == null ? "<runtime>" : fired.key());
                line.set("records", records);
                out.add(line);
            }
            finishStep(out, null);
        }
        kafka.setTime(at);
    }

    private ArrayNode records() {
        ArrayNode arr = JSON.arrayNode();
        for (MemoryLog.Written w : kafka.drainRecords()) arr.add(RecordJson.of(w));
        return arr;
    }

    /** Appends the responses of earlier requests completed in this step (all but {@code own}). */
    private void finishStep(List<JsonNode> out, Integer own) {
        for (ObjectNode c : completed) {
            if (own != null && c.get("line").asInt() == own) continue;
            out.add(c);
        }
        completed.clear();
    }

    private void request(int line, long at, JsonNode root, List<JsonNode> out) {
        JsonNode r = root.get("request");
        if (r == null || !r.isObject()) throw new ScriptException("\"request\" must be an object");
        r.fieldNames().forEachRemaining(k -> {
            if (!List.of("api", "version", "body").contains(k)) {
                throw new ScriptException("unknown request field \"" + k + "\"");
            }
        });
        JsonNode api = r.get("api");
        if (api == null || !api.isTextual()) throw new ScriptException("request needs an \"api\" name");
        JsonNode version = r.get("version");
        if (version == null || !version.isIntegralNumber() || version.asLong() < Short.MIN_VALUE
            || version.asLong() > Short.MAX_VALUE) {
            throw new ScriptException("request needs an integer \"version\"");
        }
        JsonNode body = r.has("body") ? r.get("body") : JSON.objectNode();
        body = ids.toReal(body);
        String clientId = "client";
        String clientHost = "/127.0.0.1";
        JsonNode ctx = root.get("context");
        if (ctx != null) {
            if (!ctx.isObject()) throw new ScriptException("\"context\" must be an object, found " + ctx);
            Iterator<String> keys = ctx.fieldNames();
            while (keys.hasNext()) {
                String k = keys.next();
                if (!k.equals("clientId") && !k.equals("clientHost")) {
                    throw new ScriptException("unknown context field \"" + k + "\"");
                }
                if (!ctx.get(k).isTextual()) {
                    throw new ScriptException("context " + k + " must be a string, found " + ctx.get(k));
                }
            }
            if (ctx.has("clientId")) clientId = ctx.get("clientId").asText();
            if (ctx.has("clientHost")) clientHost = ctx.get("clientHost").asText();
        }
        String apiName = api.asText();
        JsonNode memberIdNode = body.get("memberId");
        String requestMemberId = memberIdNode != null && memberIdNode.isTextual() ? memberIdNode.asText() : null;
        CompletableFuture<JsonNode> future =
            kafka.request(apiName, (short) version.asInt(), body, clientId, clientHost);
        for (String id : kafka.classicMemberIds()) ids.learnGenerated(line, id);
        ArrayNode records = records();
        ObjectNode own = JSON.objectNode();
        own.put("at", at);
        own.put("line", line);
        if (future.isDone()) {
            JsonNode response = future.join();
            own.set("response", response);
            learn(line, apiName, requestMemberId, response);
        } else {
            own.putNull("response");
            pending.put(line, new Pending(apiName, requestMemberId));
            future.whenComplete((response, error) -> complete(line, response, error));
        }
        own.set("records", records);
        out.add(own);
        finishStep(out, line);
    }

    private void complete(int line, JsonNode response, Throwable error) {
        Pending p = pending.remove(line);
        ObjectNode c = JSON.objectNode();
        c.put("at", kafka.now());
        c.put("line", line);
        if (error != null) {
            c.put("error", String.valueOf(error));
        } else {
            c.set("response", response);
            if (p != null) learn(line, p.api(), p.requestMemberId(), response);
        }
        completed.add(c);
    }

    private void learn(int line, String api, String requestMemberId, JsonNode response) {
        if (!api.equalsIgnoreCase("JoinGroup") || response == null) return;
        JsonNode m = response.get("memberId");
        if (m != null && m.isTextual()) ids.learn(line, requestMemberId, m.asText());
    }

    private List<JsonNode> translate(List<JsonNode> out) {
        List<JsonNode> named = new ArrayList<>(out.size());
        for (JsonNode n : out) named.add(ids.toNames(n));
        return named;
    }

    @Override
    public void close() {
        if (kafka != null) kafka.close();
    }
}
