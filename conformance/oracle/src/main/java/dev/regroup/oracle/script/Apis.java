package dev.regroup.oracle.script;

import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.acl.AclOperation;
import org.apache.kafka.common.internals.Topic;
import org.apache.kafka.common.message.ConsumerGroupDescribeResponseData;
import org.apache.kafka.common.message.DeleteGroupsResponseData;
import org.apache.kafka.common.message.DescribeGroupsResponseData;
import org.apache.kafka.common.message.OffsetCommitRequestData;
import org.apache.kafka.common.message.OffsetDeleteRequestData;
import org.apache.kafka.common.message.OffsetFetchRequestData;
import org.apache.kafka.common.message.OffsetFetchResponseData;
import org.apache.kafka.common.message.StreamsGroupDescribeResponseData;
import org.apache.kafka.common.message.StreamsGroupHeartbeatRequestData;
import org.apache.kafka.common.message.StreamsGroupHeartbeatResponseData;
import org.apache.kafka.common.message.TxnOffsetCommitRequestData;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.AbstractRequest;
import org.apache.kafka.common.requests.AbstractResponse;
import org.apache.kafka.common.requests.ConsumerGroupDescribeRequest;
import org.apache.kafka.common.requests.ConsumerGroupDescribeResponse;
import org.apache.kafka.common.requests.ConsumerGroupHeartbeatRequest;
import org.apache.kafka.common.requests.ConsumerGroupHeartbeatResponse;
import org.apache.kafka.common.requests.DeleteGroupsRequest;
import org.apache.kafka.common.requests.DeleteGroupsResponse;
import org.apache.kafka.common.requests.DescribeGroupsRequest;
import org.apache.kafka.common.requests.DescribeGroupsResponse;
import org.apache.kafka.common.requests.HeartbeatRequest;
import org.apache.kafka.common.requests.HeartbeatResponse;
import org.apache.kafka.common.requests.JoinGroupRequest;
import org.apache.kafka.common.requests.JoinGroupResponse;
import org.apache.kafka.common.requests.LeaveGroupRequest;
import org.apache.kafka.common.requests.LeaveGroupResponse;
import org.apache.kafka.common.requests.ListGroupsRequest;
import org.apache.kafka.common.requests.ListGroupsResponse;
import org.apache.kafka.common.requests.OffsetCommitRequest;
import org.apache.kafka.common.requests.OffsetCommitResponse;
import org.apache.kafka.common.requests.OffsetDeleteRequest;
import org.apache.kafka.common.requests.OffsetDeleteResponse;
import org.apache.kafka.common.requests.OffsetFetchRequest;
import org.apache.kafka.common.requests.OffsetFetchResponse;
import org.apache.kafka.common.requests.RequestContext;
import org.apache.kafka.common.requests.StreamsGroupDescribeRequest;
import org.apache.kafka.common.requests.StreamsGroupDescribeResponse;
import org.apache.kafka.common.requests.StreamsGroupHeartbeatRequest;
import org.apache.kafka.common.requests.StreamsGroupHeartbeatResponse;
import org.apache.kafka.common.requests.StreamsGroupTopologyDescriptionUpdateRequest;
import org.apache.kafka.common.requests.StreamsGroupTopologyDescriptionUpdateResponse;
import org.apache.kafka.common.requests.SyncGroupRequest;
import org.apache.kafka.common.requests.SyncGroupResponse;
import org.apache.kafka.common.requests.TxnOffsetCommitRequest;
import org.apache.kafka.common.requests.TxnOffsetCommitResponse;
import org.apache.kafka.common.utils.Utils;
import org.apache.kafka.common.utils.internals.BufferSupplier;
import org.apache.kafka.coordinator.group.GroupCoordinatorService;

import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.function.BiFunction;
import java.util.stream.Collectors;

/**
 * The broker's request layer for the group coordinator apis (the group-coordinator parts of Kafka's
 * KafkaApis, which is Scala in the kafka core jar and cannot be used without a whole broker), written
 * against the same service calls and the same request/response classes from kafka-clients. A broker without
 * an authorizer: every authorization check passes, so only the checks that remain are here. Each handler
 * returns the response future the broker would send once it completes.
 */
final class Apis {
    private final GroupCoordinatorService coordinator;
    private final boolean streamsEnabled;
    private final boolean consumerEnabled;
    private final Topics topics;
    private final BufferSupplier buffers = BufferSupplier.NO_CACHING;

    Apis(GroupCoordinatorService coordinator, boolean streamsEnabled, boolean consumerEnabled, Topics topics) {
        this.coordinator = coordinator;
        this.streamsEnabled = streamsEnabled;
        this.consumerEnabled = consumerEnabled;
        this.topics = topics;
    }

    /** Null when the api is not one the group coordinator answers. */
    CompletableFuture<AbstractResponse> handle(RequestContext ctx, AbstractRequest request) {
        return switch (request.apiKey()) {
            case JOIN_GROUP -> joinGroup(ctx, (JoinGroupRequest) request);
            case SYNC_GROUP -> syncGroup(ctx, (SyncGroupRequest) request);
            case HEARTBEAT -> heartbeat(ctx, (HeartbeatRequest) request);
            case LEAVE_GROUP -> leaveGroup(ctx, (LeaveGroupRequest) request);
            case DESCRIBE_GROUPS -> describeGroups(ctx, (DescribeGroupsRequest) request);
            case LIST_GROUPS -> listGroups(ctx, (ListGroupsRequest) request);
            case DELETE_GROUPS -> deleteGroups(ctx, (DeleteGroupsRequest) request);
            case OFFSET_COMMIT -> offsetCommit(ctx, (OffsetCommitRequest) request);
            case TXN_OFFSET_COMMIT -> txnOffsetCommit(ctx, (TxnOffsetCommitRequest) request);
            case OFFSET_FETCH -> offsetFetch(ctx, (OffsetFetchRequest) request);
            case OFFSET_DELETE -> offsetDelete(ctx, (OffsetDeleteRequest) request);
            case CONSUMER_GROUP_HEARTBEAT -> consumerGroupHeartbeat(ctx, (ConsumerGroupHeartbeatRequest) request);
            case CONSUMER_GROUP_DESCRIBE -> consumerGroupDescribe(ctx, (ConsumerGroupDescribeRequest) request);
            case STREAMS_GROUP_HEARTBEAT -> streamsGroupHeartbeat(ctx, (StreamsGroupHeartbeatRequest) request);
            case STREAMS_GROUP_DESCRIBE -> streamsGroupDescribe(ctx, (StreamsGroupDescribeRequest) request);
            case STREAMS_GROUP_TOPOLOGY_DESCRIPTION_UPDATE ->
                streamsGroupTopologyDescriptionUpdate(ctx, (StreamsGroupTopologyDescriptionUpdateRequest) request);
            default -> null;
        };
    }

    /** The future's outcome, with a failed future answered by the request's error response. */
    private static <T> CompletableFuture<AbstractResponse> answer(
        CompletableFuture<T> future, AbstractRequest request, BiFunction<T, Throwable, AbstractResponse> onSuccess) {
        return future.handle((value, error) -> {
            if (error != null) return request.getErrorResponse(error);
            return onSuccess.apply(value, null);
        });
    }

    private static CompletableFuture<AbstractResponse> done(AbstractResponse response) {
        return CompletableFuture.completedFuture(response);
    }

    private boolean streamsEnabled() {
        // A 4.4 broker supports the streams feature level; `group.coordinator.rebalance.protocols` decides.
        return streamsEnabled;
    }

    private CompletableFuture<AbstractResponse> joinGroup(RequestContext ctx, JoinGroupRequest request) {
        short version = request.version();
        return answer(coordinator.joinGroup(ctx, request.data(), buffers), request,
            (data, e) -> new JoinGroupResponse(data, version));
    }

    private CompletableFuture<AbstractResponse> syncGroup(RequestContext ctx, SyncGroupRequest request) {
        if (!request.areMandatoryProtocolTypeAndNamePresent()) {
            return done(request.getErrorResponse(Errors.INCONSISTENT_GROUP_PROTOCOL.exception()));
        }
        return answer(coordinator.syncGroup(ctx, request.data(), buffers), request,
            (data, e) -> new SyncGroupResponse(data));
    }

    private CompletableFuture<AbstractResponse> heartbeat(RequestContext ctx, HeartbeatRequest request) {
        return answer(coordinator.heartbeat(ctx, request.data()), request, (data, e) -> new HeartbeatResponse(data));
    }

    private CompletableFuture<AbstractResponse> leaveGroup(RequestContext ctx, LeaveGroupRequest request) {
        short version = request.version();
        return answer(coordinator.leaveGroup(ctx, request.normalizedData()), request,
            (data, e) -> new LeaveGroupResponse(data, version));
    }

    /** What an absent authorizer reports as the operations allowed on a group. */
    private static int allGroupOperations() {
        Set<Byte> codes = Set.of(AclOperation.READ, AclOperation.DESCRIBE, AclOperation.DELETE,
                AclOperation.DESCRIBE_CONFIGS, AclOperation.ALTER_CONFIGS)
            .stream().map(AclOperation::code).collect(Collectors.toSet());
        return Utils.to32BitField(codes);
    }

    private CompletableFuture<AbstractResponse> describeGroups(RequestContext ctx, DescribeGroupsRequest request) {
        boolean includeOps = request.data().includeAuthorizedOperations();
        short version = request.version();
        return answer(coordinator.describeGroups(ctx, request.data().groups()), request, (results, e) -> {
            if (version >= 3 && includeOps) {
                for (DescribeGroupsResponseData.DescribedGroup g : results) {
                    if (g.errorCode() == Errors.NONE.code()) g.setAuthorizedOperations(allGroupOperations());
                }
            }
            return new DescribeGroupsResponse(new DescribeGroupsResponseData().setGroups(results));
        });
    }

    private CompletableFuture<AbstractResponse> listGroups(RequestContext ctx, ListGroupsRequest request) {
        return answer(coordinator.listGroups(ctx, request.data()), request, (data, e) -> new ListGroupsResponse(data));
    }

    private CompletableFuture<AbstractResponse> deleteGroups(RequestContext ctx, DeleteGroupsRequest request) {
        List<String> groups = new ArrayList<>(new LinkedHashSet<>(request.data().groupsNames()));
        short version = request.version();
        return coordinator.deleteGroups(ctx, groups, buffers).handle((results, error) -> {
            DeleteGroupsResponseData response = new DeleteGroupsResponseData();
            if (error != null) {
                Errors err = Errors.forException(error);
                for (String g : groups) {
                    response.results().add(new DeleteGroupsResponseData.DeletableGroupResult()
                        .setGroupId(g).setErrorCode(err.code()));
                }
            } else {
                if (version < 3) {
                    results.forEach(r -> {
                        if (r.errorCode() == Errors.GROUP_DELETION_FAILED.code()) {
                            r.setErrorCode(Errors.UNKNOWN_SERVER_ERROR.code());
                        }
                    });
                }
                response.setResults(results);
            }
            return new DeleteGroupsResponse(response);
        });
    }

    private CompletableFuture<AbstractResponse> offsetCommit(RequestContext ctx, OffsetCommitRequest request) {
        boolean useTopicIds = OffsetCommitResponse.useTopicIds(request.version());
        OffsetCommitRequestData data = request.data();
        if (useTopicIds) {
            data.topics().forEach(t -> topics.name(t.topicId()).ifPresent(t::setName));
        }
        OffsetCommitResponse.Builder builder = OffsetCommitResponse.newBuilder(useTopicIds);
        List<OffsetCommitRequestData.OffsetCommitRequestTopic> valid = new ArrayList<>();
        for (OffsetCommitRequestData.OffsetCommitRequestTopic topic : data.topics()) {
            if (useTopicIds && topic.name().isEmpty()) {
                builder.addPartitions(topic.topicId(), topic.name(), topic.partitions(),
                    OffsetCommitRequestData.OffsetCommitRequestPartition::partitionIndex, Errors.UNKNOWN_TOPIC_ID);
                continue;
            }
            if (!useTopicIds) topic.setTopicId(topics.id(topic.name()));
            if (topic.topicId().equals(Uuid.ZERO_UUID)) {
                builder.addPartitions(Uuid.ZERO_UUID, topic.name(), topic.partitions(),
                    OffsetCommitRequestData.OffsetCommitRequestPartition::partitionIndex,
                    Errors.UNKNOWN_TOPIC_OR_PARTITION);
                continue;
            }
            OffsetCommitRequestData.OffsetCommitRequestTopic kept = new OffsetCommitRequestData.OffsetCommitRequestTopic()
                .setTopicId(topic.topicId()).setName(topic.name());
            for (OffsetCommitRequestData.OffsetCommitRequestPartition p : topic.partitions()) {
                if (topics.hasPartition(topic.name(), p.partitionIndex())) {
                    kept.partitions().add(p);
                } else {
                    builder.addPartition(topic.topicId(), topic.name(), p.partitionIndex(),
                        Errors.UNKNOWN_TOPIC_OR_PARTITION);
                }
            }
            if (!kept.partitions().isEmpty()) valid.add(kept);
        }
        if (valid.isEmpty()) return done(builder.build());
        OffsetCommitRequestData forwarded = new OffsetCommitRequestData()
            .setGroupId(data.groupId())
            .setMemberId(data.memberId())
            .setGenerationIdOrMemberEpoch(data.generationIdOrMemberEpoch())
            .setRetentionTimeMs(data.retentionTimeMs())
            .setGroupInstanceId(data.groupInstanceId())
            .setTopics(valid);
        return answer(coordinator.commitOffsets(ctx, forwarded, buffers), request,
            (results, e) -> builder.merge(results).build());
    }

    private CompletableFuture<AbstractResponse> txnOffsetCommit(RequestContext ctx, TxnOffsetCommitRequest request) {
        short version = request.version();
        boolean useTopicIds = TxnOffsetCommitResponse.useTopicIds(version);
        TxnOffsetCommitRequestData data = request.data();
        if (useTopicIds) {
            data.topics().forEach(t -> {
                if (!t.topicId().equals(Uuid.ZERO_UUID)) topics.name(t.topicId()).ifPresent(t::setName);
            });
        }
        TxnOffsetCommitResponse.Builder builder = TxnOffsetCommitResponse.newBuilder(useTopicIds);
        List<TxnOffsetCommitRequestData.TxnOffsetCommitRequestTopic> valid = new ArrayList<>();
        for (TxnOffsetCommitRequestData.TxnOffsetCommitRequestTopic topic : data.topics()) {
            if (useTopicIds && topic.name().isEmpty()) {
                builder.addPartitions(topic.topicId(), topic.name(), topic.partitions(),
                    TxnOffsetCommitRequestData.TxnOffsetCommitRequestPartition::partitionIndex, Errors.UNKNOWN_TOPIC_ID);
                continue;
            }
            if (!useTopicIds) topic.setTopicId(topics.id(topic.name()));
            if (topic.topicId().equals(Uuid.ZERO_UUID)) {
                builder.addPartitions(Uuid.ZERO_UUID, topic.name(), topic.partitions(),
                    TxnOffsetCommitRequestData.TxnOffsetCommitRequestPartition::partitionIndex,
                    Errors.UNKNOWN_TOPIC_OR_PARTITION);
                continue;
            }
            TxnOffsetCommitRequestData.TxnOffsetCommitRequestTopic kept =
                new TxnOffsetCommitRequestData.TxnOffsetCommitRequestTopic()
                    .setTopicId(topic.topicId()).setName(topic.name());
            for (TxnOffsetCommitRequestData.TxnOffsetCommitRequestPartition p : topic.partitions()) {
                if (topics.hasPartition(topic.name(), p.partitionIndex())) {
                    kept.partitions().add(p);
                } else {
                    builder.addPartition(topic.topicId(), topic.name(), p.partitionIndex(),
                        Errors.UNKNOWN_TOPIC_OR_PARTITION);
                }
            }
            if (!kept.partitions().isEmpty()) valid.add(kept);
        }
        if (valid.isEmpty()) return done(loadInProgressForOldClients(builder.build(), version));
        TxnOffsetCommitRequestData forwarded = new TxnOffsetCommitRequestData()
            .setGroupId(data.groupId())
            .setMemberId(data.memberId())
            .setGenerationIdOrMemberEpoch(data.generationIdOrMemberEpoch())
            .setGroupInstanceId(data.groupInstanceId())
            .setProducerEpoch(data.producerEpoch())
            .setProducerId(data.producerId())
            .setTransactionalId(data.transactionalId())
            .setTopics(valid);
        return coordinator.commitTransactionalOffsets(ctx, forwarded, buffers).handle((results, error) -> {
            AbstractResponse response = error != null
                ? request.getErrorResponse(error)
                : builder.merge(results).build();
            return loadInProgressForOldClients((TxnOffsetCommitResponse) response, version);
        });
    }

    /** TxnOffsetCommit v0-1 clients get COORDINATOR_NOT_AVAILABLE instead of COORDINATOR_LOAD_IN_PROGRESS. */
    private static AbstractResponse loadInProgressForOldClients(TxnOffsetCommitResponse response, short version) {
        if (version < 2) {
            response.data().topics().forEach(t -> t.partitions().forEach(p -> {
                if (p.errorCode() == Errors.COORDINATOR_LOAD_IN_PROGRESS.code()) {
                    p.setErrorCode(Errors.COORDINATOR_NOT_AVAILABLE.code());
                }
            }));
        }
        return response;
    }

    private CompletableFuture<AbstractResponse> offsetFetch(RequestContext ctx, OffsetFetchRequest request) {
        boolean requireStable = request.requireStable();
        short version = request.version();
        List<CompletableFuture<OffsetFetchResponseData.OffsetFetchResponseGroup>> futures = new ArrayList<>();
        for (OffsetFetchRequestData.OffsetFetchRequestGroup group : request.groups()) {
            futures.add(OffsetFetchRequest.requestAllOffsets(group)
                ? fetchAllOffsets(ctx, group, requireStable)
                : fetchOffsets(ctx, group, requireStable));
        }
        return CompletableFuture.allOf(futures.toArray(new CompletableFuture<?>[0])).handle((v, e) -> {
            List<OffsetFetchResponseData.OffsetFetchResponseGroup> groups = new ArrayList<>();
            for (CompletableFuture<OffsetFetchResponseData.OffsetFetchResponseGroup> f : futures) groups.add(f.join());
            return new OffsetFetchResponse.Builder(groups).build(version);
        });
    }

    private CompletableFuture<OffsetFetchResponseData.OffsetFetchResponseGroup> fetchAllOffsets(
        RequestContext ctx, OffsetFetchRequestData.OffsetFetchRequestGroup group, boolean requireStable) {
        short version = ctx.apiVersion();
        boolean useTopicIds = OffsetFetchRequest.useTopicIds(version);
        return coordinator.fetchOffsets(ctx, group, requireStable).handle((result, error) -> {
            if (error != null) return OffsetFetchResponse.groupError(group, Errors.forException(error), version);
            if (result.errorCode() != Errors.NONE.code()) return result;
            List<OffsetFetchResponseData.OffsetFetchResponseTopics> kept = new ArrayList<>();
            for (OffsetFetchResponseData.OffsetFetchResponseTopics t : result.topics()) {
                if (useTopicIds) {
                    if (t.topicId().equals(Uuid.ZERO_UUID)) t.setTopicId(topics.id(t.name()));
                    // A topic without an id cannot be written at this version: left out.
                    if (!t.topicId().equals(Uuid.ZERO_UUID)) kept.add(t);
                } else {
                    kept.add(t);
                }
            }
            return result.setTopics(kept);
        });
    }

    private CompletableFuture<OffsetFetchResponseData.OffsetFetchResponseGroup> fetchOffsets(
        RequestContext ctx, OffsetFetchRequestData.OffsetFetchRequestGroup group, boolean requireStable) {
        short version = ctx.apiVersion();
        boolean useTopicIds = OffsetFetchRequest.useTopicIds(version);
        if (useTopicIds) {
            group.topics().forEach(t -> {
                if (!t.topicId().equals(Uuid.ZERO_UUID)) topics.name(t.topicId()).ifPresent(t::setName);
            });
        }
        List<OffsetFetchRequestData.OffsetFetchRequestTopics> valid = new ArrayList<>();
        List<OffsetFetchResponseData.OffsetFetchResponseTopics> errors = new ArrayList<>();
        for (OffsetFetchRequestData.OffsetFetchRequestTopics t : group.topics()) {
            if (useTopicIds && t.name().isEmpty()) {
                OffsetFetchResponseData.OffsetFetchResponseTopics unknown = new OffsetFetchResponseData.OffsetFetchResponseTopics()
                    .setTopicId(t.topicId()).setName(t.name());
                for (int p : t.partitionIndexes()) {
                    unknown.partitions().add(new OffsetFetchResponseData.OffsetFetchResponsePartitions()
                        .setPartitionIndex(p).setCommittedOffset(-1).setErrorCode(Errors.UNKNOWN_TOPIC_ID.code()));
                }
                errors.add(unknown);
            } else {
                valid.add(t);
            }
        }
        OffsetFetchRequestData.OffsetFetchRequestGroup forwarded = new OffsetFetchRequestData.OffsetFetchRequestGroup()
            .setGroupId(group.groupId())
            .setMemberId(group.memberId())
            .setMemberEpoch(group.memberEpoch())
            .setTopics(valid);
        return coordinator.fetchOffsets(ctx, forwarded, requireStable).handle((result, error) -> {
            if (error != null) return OffsetFetchResponse.groupError(group, Errors.forException(error), version);
            if (result.errorCode() != Errors.NONE.code()) return result;
            List<OffsetFetchResponseData.OffsetFetchResponseTopics> all = new ArrayList<>(result.topics());
            all.addAll(errors);
            return result.setTopics(all);
        });
    }

    private CompletableFuture<AbstractResponse> offsetDelete(RequestContext ctx, OffsetDeleteRequest request) {
        OffsetDeleteResponse.Builder builder = new OffsetDeleteResponse.Builder();
        OffsetDeleteRequestData.OffsetDeleteRequestTopicCollection valid =
            new OffsetDeleteRequestData.OffsetDeleteRequestTopicCollection();
        for (OffsetDeleteRequestData.OffsetDeleteRequestTopic topic : request.data().topics()) {
            if (!topics.contains(topic.name())) {
                builder.addPartitions(topic.name(), topic.partitions(),
                    OffsetDeleteRequestData.OffsetDeleteRequestPartition::partitionIndex,
                    Errors.UNKNOWN_TOPIC_OR_PARTITION);
                continue;
            }
            OffsetDeleteRequestData.OffsetDeleteRequestTopic kept =
                new OffsetDeleteRequestData.OffsetDeleteRequestTopic().setName(topic.name());
            for (OffsetDeleteRequestData.OffsetDeleteRequestPartition p : topic.partitions()) {
                if (topics.hasPartition(topic.name(), p.partitionIndex())) {
                    kept.partitions().add(p);
                } else {
                    builder.addPartition(topic.name(), p.partitionIndex(), Errors.UNKNOWN_TOPIC_OR_PARTITION);
                }
            }
            if (!kept.partitions().isEmpty()) valid.add(kept);
        }
        OffsetDeleteRequestData forwarded = new OffsetDeleteRequestData()
            .setGroupId(request.data().groupId()).setTopics(valid);
        return answer(coordinator.deleteOffsets(ctx, forwarded, buffers), request,
            (results, e) -> builder.merge(results).build());
    }

    /**
     * KafkaApis.handleConsumerGroupHeartbeat. A 4.4 broker finalizes group.version 1, so
     * `group.coordinator.rebalance.protocols` alone decides whether the api is enabled; without an
     * authorizer the GROUP READ and TOPIC DESCRIBE checks pass.
     */
    private CompletableFuture<AbstractResponse> consumerGroupHeartbeat(
        RequestContext ctx, ConsumerGroupHeartbeatRequest request) {
        if (!consumerEnabled) return done(request.getErrorResponse(Errors.UNSUPPORTED_VERSION.exception()));
        return answer(coordinator.consumerGroupHeartbeat(ctx, request.data()), request,
            (data, e) -> new ConsumerGroupHeartbeatResponse(data));
    }

    /** KafkaApis.handleConsumerGroupDescribe, without an authorizer (no group or topic is filtered out). */
    private CompletableFuture<AbstractResponse> consumerGroupDescribe(
        RequestContext ctx, ConsumerGroupDescribeRequest request) {
        if (!consumerEnabled) return done(request.getErrorResponse(Errors.UNSUPPORTED_VERSION.exception()));
        boolean includeOps = request.data().includeAuthorizedOperations();
        return answer(coordinator.consumerGroupDescribe(ctx, request.data().groupIds()), request, (results, e) -> {
            if (includeOps) {
                for (ConsumerGroupDescribeResponseData.DescribedGroup g : results) {
                    if (g.errorCode() == Errors.NONE.code()) g.setAuthorizedOperations(allGroupOperations());
                }
            }
            return new ConsumerGroupDescribeResponse(new ConsumerGroupDescribeResponseData().setGroups(results));
        });
    }

    private CompletableFuture<AbstractResponse> streamsGroupHeartbeat(
        RequestContext ctx, StreamsGroupHeartbeatRequest request) {
        if (!streamsEnabled()) return done(request.getErrorResponse(Errors.UNSUPPORTED_VERSION.exception()));
        StreamsGroupHeartbeatRequestData data = request.data();
        if (data.topology() != null) {
            // Distinct, in order of first appearance, as the broker lists them in its messages.
            LinkedHashSet<String> required = new LinkedHashSet<>();
            for (StreamsGroupHeartbeatRequestData.Subtopology s : data.topology().subtopologies()) {
                required.addAll(s.sourceTopics());
                required.addAll(s.repartitionSinkTopics());
                s.repartitionSourceTopics().forEach(t -> required.add(t.name()));
                s.stateChangelogTopics().forEach(t -> required.add(t.name()));
            }
            List<String> internal = required.stream().filter(Topic::isInternal).toList();
            if (!internal.isEmpty()) {
                return done(new StreamsGroupHeartbeatResponse(new StreamsGroupHeartbeatResponseData()
                    .setErrorCode(Errors.STREAMS_INVALID_TOPOLOGY.code())
                    .setErrorMessage("Use of Kafka internal topics " + String.join(",", internal)
                        + " in a Kafka Streams topology is prohibited.")));
            }
            List<String> invalid = required.stream().filter(t -> !Topic.isValid(t)).toList();
            if (!invalid.isEmpty()) {
                return done(new StreamsGroupHeartbeatResponse(new StreamsGroupHeartbeatResponseData()
                    .setErrorCode(Errors.STREAMS_INVALID_TOPOLOGY.code())
                    .setErrorMessage("Topic names " + String.join(",", invalid) + " are not valid topic names.")));
            }
        }
        // The internal topics the coordinator asks for (result.creatableTopics) would be created by the
        // broker's auto-topic-creation manager; in a script they appear only through a metadata line, and
        // without creation errors the response is unchanged.
        return answer(coordinator.streamsGroupHeartbeat(ctx, data), request,
            (result, e) -> new StreamsGroupHeartbeatResponse(result.data()));
    }

    private CompletableFuture<AbstractResponse> streamsGroupDescribe(
        RequestContext ctx, StreamsGroupDescribeRequest request) {
        if (!streamsEnabled()) return done(request.getErrorResponse(Errors.UNSUPPORTED_VERSION.exception()));
        boolean includeOps = request.data().includeAuthorizedOperations();
        return answer(coordinator.streamsGroupDescribe(ctx, request.data().groupIds(),
                request.data().includeTopologyDescription()), request, (results, e) -> {
            if (includeOps) {
                for (StreamsGroupDescribeResponseData.DescribedGroup g : results) {
                    if (g.errorCode() == Errors.NONE.code()) g.setAuthorizedOperations(allGroupOperations());
                }
            }
            return new StreamsGroupDescribeResponse(new StreamsGroupDescribeResponseData().setGroups(results));
        });
    }

    private CompletableFuture<AbstractResponse> streamsGroupTopologyDescriptionUpdate(
        RequestContext ctx, StreamsGroupTopologyDescriptionUpdateRequest request) {
        if (!streamsEnabled()) return done(request.getErrorResponse(Errors.UNSUPPORTED_VERSION.exception()));
        return answer(coordinator.streamsGroupTopologyDescriptionUpdate(ctx, request.data()), request,
            (data, e) -> new StreamsGroupTopologyDescriptionUpdateResponse(data));
    }
}
