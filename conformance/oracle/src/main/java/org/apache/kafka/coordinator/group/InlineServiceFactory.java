package org.apache.kafka.coordinator.group;

import org.apache.kafka.common.utils.Time;
import org.apache.kafka.common.utils.internals.LogContext;
import org.apache.kafka.coordinator.common.runtime.CoordinatorRecord;
import org.apache.kafka.coordinator.common.runtime.CoordinatorRuntime;
import org.apache.kafka.coordinator.group.metrics.GroupCoordinatorMetrics;
import org.apache.kafka.server.share.persister.Persister;
import org.apache.kafka.server.util.PartitionMetadataClient;
import org.apache.kafka.server.util.timer.Timer;

import java.util.Map;
import java.util.Optional;

/**
 * regroup's oracle, not Kafka code. Lives in Kafka's package for one reason: GroupCoordinatorService.Builder
 * always builds a MultiThreadedEventProcessor, and the constructor that takes a prepared runtime (ours, with
 * an inline event processor) is package-private. Everything else about the service is Kafka's own.
 */
public final class InlineServiceFactory {
    private InlineServiceFactory() { }

    public static GroupCoordinatorService create(
        GroupCoordinatorConfig config,
        CoordinatorRuntime<GroupCoordinatorShard, CoordinatorRecord> runtime,
        GroupCoordinatorMetrics metrics,
        GroupConfigManager groupConfigManager,
        Persister persister,
        Timer timer,
        PartitionMetadataClient partitionMetadataClient,
        Time time
    ) {
        return new GroupCoordinatorService(
            new LogContext("[GroupCoordinator oracle] "),
            config,
            runtime,
            metrics,
            groupConfigManager,
            persister,
            timer,
            partitionMetadataClient,
            // The description plugin is configured the way the builder does it (none unless the config
            // names one).
            Optional.ofNullable(config.streamsGroupTopologyDescriptionPlugin(Map.of())),
            time
        );
    }
}
