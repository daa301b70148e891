package dev.regroup.oracle.script;

import com.fasterxml.jackson.databind.JsonNode;

import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.protocol.ByteBufferAccessor;
import org.apache.kafka.common.protocol.MessageUtil;
import org.apache.kafka.common.requests.AbstractRequest;
import org.apache.kafka.common.requests.AbstractResponse;

import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Kafka's generated JsonConverter classes, found by name: {@code <Message>JsonConverter.read/write} next to
 * each generated message class (request and response data in kafka-clients, coordinator records in
 * kafka-group-coordinator). Requests and responses also take the trip over the wire at their version, so the
 * coordinator sees exactly the request a broker would parse (version defaults, v0 rebalance timeout, ...)
 * and the printed response is exactly what a client would read back.
 */
final class MessageJson {
    private MessageJson() { }

    private static final Map<Class<?>, Method[]> CONVERTERS = new ConcurrentHashMap<>();

    private static Method[] converter(Class<?> messageClass) {
        return CONVERTERS.computeIfAbsent(messageClass, c -> {
            try {
                // A nested struct Outer$Inner has its converter nested too: OuterJsonConverter$InnerJsonConverter.
                Class<?> outer = c;
                StringBuilder nested = new StringBuilder();
                while (outer.getEnclosingClass() != null) {
                    nested.insert(0, "$" + outer.getSimpleName() + "JsonConverter");
                    outer = outer.getEnclosingClass();
                }
                Class<?> conv = Class.forName(outer.getName() + "JsonConverter" + nested, true, c.getClassLoader());
                return new Method[] {
                    conv.getMethod("read", JsonNode.class, short.class),
                    conv.getMethod("write", c, short.class),
                };
            } catch (ReflectiveOperationException e) {
                throw new IllegalStateException("no JsonConverter for " + c.getName(), e);
            }
        });
    }

    static JsonNode write(Object message, short version) {
        try {
            return (JsonNode) converter(message.getClass())[1].invoke(null, message, version);
        } catch (InvocationTargetException e) {
            throw rethrow(e.getCause());
        } catch (IllegalAccessException e) {
            throw new IllegalStateException(e);
        }
    }

    @SuppressWarnings("unchecked")
    static <T> T read(Class<T> messageClass, JsonNode node, short version) {
        try {
            return (T) converter(messageClass)[0].invoke(null, node, version);
        } catch (InvocationTargetException e) {
            throw rethrow(e.getCause());
        } catch (IllegalAccessException e) {
            throw new IllegalStateException(e);
        }
    }

    private static RuntimeException rethrow(Throwable t) {
        if (t instanceof RuntimeException r) return r;
        if (t instanceof Error err) throw err;
        return new IllegalStateException(t);
    }

    /** The api named {@code name} (Kafka's message name, any case), or null. */
    static ApiKeys api(String name) {
        for (ApiKeys k : ApiKeys.values()) {
            if (k.name.toLowerCase(Locale.ROOT).equals(name.toLowerCase(Locale.ROOT))) return k;
        }
        return null;
    }

    /** The request body read from JSON at {@code version}, then encoded and parsed as a broker would. */
    static AbstractRequest request(ApiKeys api, short version, JsonNode body) {
        Class<?> cls = api.messageType.newRequest().getClass();
        ApiMessage data = (ApiMessage) read(cls, Defaults.fill(cls, body, version, ""), version);
        ByteBufferAccessor wire = MessageUtil.toByteBufferAccessor(data, version);
        wire.buffer().rewind();
        return AbstractRequest.parseRequest(api, version, wire).request;
    }

    /** The response as a client reads it at {@code version}, in JSON. */
    static JsonNode response(ApiKeys api, short version, AbstractResponse response) {
        ByteBufferAccessor wire = MessageUtil.toByteBufferAccessor(response.data(), version);
        wire.buffer().rewind();
        AbstractResponse parsed = AbstractResponse.parseResponse(api, wire, version);
        return write(parsed.data(), version);
    }
}
