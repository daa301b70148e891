package dev.regroup.oracle.script;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;

import org.apache.kafka.common.protocol.Message;

import java.lang.reflect.Method;
import java.lang.reflect.ParameterizedType;
import java.lang.reflect.Type;
import java.util.Iterator;
import java.util.Map;

/**
 * regroup's JSON leniency on the Java side (docs/divergences.md): a field a script leaves out takes its
 * schema default, a key that names no field is an error. Kafka's JsonConverter itself requires every field
 * of the version, so the script's object is laid over the JsonConverter form of a default-constructed
 * message (recursively for nested structs and arrays of structs) before Kafka reads it.
 */
final class Defaults {
    private Defaults() { }

    /** No-argument methods of every generated message that are not fields. */
    private static final java.util.Set<String> NOT_FIELDS = notFields();

    private static java.util.Set<String> notFields() {
        java.util.Set<String> names = new java.util.HashSet<>();
        for (Class<?> c : new Class<?>[] {Object.class, Message.class, org.apache.kafka.common.protocol.ApiMessage.class}) {
            for (Method m : c.getMethods()) {
                if (m.getParameterCount() == 0) names.add(m.getName());
            }
        }
        return names;
    }

    static JsonNode fill(Class<?> cls, JsonNode given, short version, String path) {
        if (given == null || given.isNull()) return given;
        if (!given.isObject()) throw new ScriptException(path + ": expected an object, found " + given);
        ObjectNode out;
        try {
            out = ((ObjectNode) MessageJson.write(cls.getDeclaredConstructor().newInstance(), version)).deepCopy();
        } catch (ReflectiveOperationException e) {
            throw new IllegalStateException("cannot build a default " + cls.getName(), e);
        }
        Iterator<Map.Entry<String, JsonNode>> fields = given.fields();
        while (fields.hasNext()) {
            Map.Entry<String, JsonNode> e = fields.next();
            String key = e.getKey();
            JsonNode value = e.getValue();
            Method getter;
            try {
                getter = cls.getMethod(key);
            } catch (NoSuchMethodException ex) {
                getter = null;
            }
            if (getter == null || getter.getParameterCount() != 0 || NOT_FIELDS.contains(key)) {
                throw new ScriptException(path + ": unknown field \"" + key + "\"");
            }
            String child = path.isEmpty() ? key : path + "." + key;
            Class<?> struct = messageClass(getter.getGenericReturnType());
            if (struct != null && value.isArray()) {
                ArrayNode arr = JsonNodeFactory.instance.arrayNode();
                int i = 0;
                for (JsonNode item : value) arr.add(fill(struct, item, version, child + "[" + i++ + "]"));
                out.set(key, arr);
            } else if (struct != null && value.isObject()) {
                out.set(key, fill(struct, value, version, child));
            } else {
                out.set(key, value);
            }
        }
        return out;
    }

    /** The generated struct class a getter returns, directly or as the element of its list/collection. */
    private static Class<?> messageClass(Type type) {
        if (type instanceof Class<?> c) {
            if (Message.class.isAssignableFrom(c)) return c;
            // Generated collections (ImplicitLinkedHashMultiCollection<X>) name their element in the superclass.
            Type sup = c.getGenericSuperclass();
            return sup == null || sup == Object.class ? null : messageClass(sup);
        }
        if (type instanceof ParameterizedType p) {
            for (Type arg : p.getActualTypeArguments()) {
                Class<?> c = messageClass(arg);
                if (c != null) return c;
            }
        }
        return null;
    }
}
