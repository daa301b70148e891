package dev.regroup.oracle.script;

import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.MutableRecordBatch;
import org.apache.kafka.common.record.internal.Record;
import org.apache.kafka.coordinator.common.runtime.CoordinatorRecord;
import org.apache.kafka.coordinator.common.runtime.PartitionWriter;
import org.apache.kafka.coordinator.group.GroupCoordinatorRecordSerde;
import org.apache.kafka.storage.internals.log.LogConfig;
import org.apache.kafka.storage.internals.log.VerificationGuard;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;

/**
 * The {@code __consumer_offsets} partition as the runtime sees it: every batch the runtime appends is
 * decoded back into coordinator records (so the printed records are what Kafka actually wrote, after its
 * own serialisation), collected for the runner, and committed at once: the high watermark moves to the end
 * of the batch, which is what lets the runtime complete the write's response and let reads see it.
 */
public final class MemoryLog implements PartitionWriter {
    /** One record as written, with its batch's producer when the batch was transactional. */
    public record Written(CoordinatorRecord record, boolean transactional, long producerId, short producerEpoch) { }

    private final GroupCoordinatorRecordSerde serde = new GroupCoordinatorRecordSerde();
    private final List<Listener> listeners = new ArrayList<>();
    private final List<Written> written = new ArrayList<>();
    private long endOffset;

    /**
     * Starts the log after {@code records} records another coordinator wrote, which a loading coordinator
     * replays: its next write must get the offset after them, as it would in the partition's real log.
     */
    public void startAfter(long records) {
        endOffset = records;
    }

    /** The records written since the last call, in log order. */
    public List<Written> drain() {
        List<Written> out = new ArrayList<>(written);
        written.clear();
        return out;
    }

    @Override
    public void registerListener(TopicPartition tp, Listener listener) {
        listeners.add(listener);
    }

    @Override
    public void deregisterListener(TopicPartition tp, Listener listener) {
        listeners.remove(listener);
    }

    @Override
    public LogConfig config(TopicPartition tp) {
        return new LogConfig(Map.of());
    }

    @Override
    public long append(TopicPartition tp, VerificationGuard guard, MemoryRecords records, short transactionVersion) {
        long count = 0;
        for (MutableRecordBatch batch : records.batches()) {
            for (Record r : batch) {
                count++;
                // Control batches (transaction markers) carry no coordinator record.
                if (batch.isControlBatch()) continue;
                CoordinatorRecord decoded = serde.deserialize(r.key(), r.hasValue() ? r.value() : null);
                written.add(new Written(decoded, batch.isTransactional(), batch.producerId(), batch.producerEpoch()));
            }
        }
        if (count == 0) throw new KafkaException("the coordinator wrote an empty batch");
        endOffset += count;
        long committed = endOffset;
        // Committed as soon as written (one replica, acks=all trivially met).
        for (Listener l : List.copyOf(listeners)) l.onHighWatermarkUpdated(tp, committed);
        return committed;
    }

    @Override
    public CompletableFuture<VerificationGuard> maybeStartTransactionVerification(
        TopicPartition tp, String transactionalId, long producerId, short producerEpoch, int apiVersion) {
        return CompletableFuture.completedFuture(new VerificationGuard());
    }

    @Override
    public CompletableFuture<Void> deleteRecords(TopicPartition tp, long deleteBeforeOffset) {
        return CompletableFuture.completedFuture(null);
    }
}
