package dev.regroup.oracle.script;

import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;

import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.coordinator.common.runtime.CoordinatorRecord;
import org.apache.kafka.server.common.ApiMessageAndVersion;

/**
 * A written coordinator record in the form {@code regroup script} prints: {@code {"type":...,"key":{...},
 * "value":{...}|null}}, the type being the key's message name without its {@code Key} suffix, key and value
 * written by their generated JsonConverter (the key at version 0, the value at the version Kafka wrote it);
 * a record of a transactional batch also carries the batch's {@code producerId} and {@code producerEpoch}.
 */
final class RecordJson {
    private RecordJson() { }

    static ObjectNode of(MemoryLog.Written written) {
        CoordinatorRecord record = written.record();
        ApiMessage key = record.key();
        String keyName = key.getClass().getSimpleName();
        String type = keyName.endsWith("Key") ? keyName.substring(0, keyName.length() - 3) : keyName;
        ObjectNode out = JsonNodeFactory.instance.objectNode();
        out.put("type", type);
        out.set("key", MessageJson.write(key, (short) 0));
        ApiMessageAndVersion value = record.value();
        if (value == null) {
            out.putNull("value");
        } else {
            out.set("value", MessageJson.write(value.message(), value.version()));
        }
        if (written.transactional()) {
            out.put("producerId", written.producerId());
            out.put("producerEpoch", written.producerEpoch());
        }
        return out;
    }
}
