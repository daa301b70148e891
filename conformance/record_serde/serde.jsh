// Kafka 4.4.0 GroupCoordinatorRecordSerde bytes for the golden records of records/codec.rs (run.sh).
import org.apache.kafka.coordinator.group.GroupCoordinatorRecordSerde;
import org.apache.kafka.coordinator.group.generated.*;
import org.apache.kafka.coordinator.common.runtime.CoordinatorRecord;
import org.apache.kafka.server.common.ApiMessageAndVersion;
import org.apache.kafka.common.Uuid;
String hex(byte[] b) { var sb = new StringBuilder(); for (byte x : b) sb.append(String.format("%02x", x)); return sb.toString(); }
var serde = new GroupCoordinatorRecordSerde();
var r1 = CoordinatorRecord.record(new OffsetCommitKey().setGroup("g1").setTopic("t").setPartition(3),
  new ApiMessageAndVersion(new OffsetCommitValue().setOffset(42).setLeaderEpoch(-1).setMetadata("m").setCommitTimestamp(1000).setTopicId(new Uuid(1L, 2L)), (short) 4));
System.out.println("oc " + hex(serde.serializeKey(r1)) + " " + hex(serde.serializeValue(r1)));
var r2 = CoordinatorRecord.record(new StreamsGroupMemberMetadataKey().setGroupId("app").setMemberId("m"),
  new ApiMessageAndVersion(new StreamsGroupMemberMetadataValue().setInstanceId(null).setRackId("r").setClientId("c").setClientHost("/h").setRebalanceTimeoutMs(1000).setTopologyEpoch(0).setProcessId("p")
     .setUserEndpoint(new StreamsGroupMemberMetadataValue.Endpoint().setHost("h").setPort(65535))
     .setClientTags(java.util.List.of(new StreamsGroupMemberMetadataValue.KeyValue().setKey("k").setValue("v"))), (short) 0));
System.out.println("mm " + hex(serde.serializeKey(r2)) + " " + hex(serde.serializeValue(r2)));
var ta = new StreamsGroupCurrentMemberAssignmentValue.TaskIds().setSubtopologyId("0").setPartitions(java.util.List.of(0, 1)).setAssignmentEpochs(java.util.List.of(3, 4));
var r3 = CoordinatorRecord.record(new StreamsGroupCurrentMemberAssignmentKey().setGroupId("app").setMemberId("m"),
  new ApiMessageAndVersion(new StreamsGroupCurrentMemberAssignmentValue().setMemberEpoch(3).setPreviousMemberEpoch(2).setState((byte)1).setActiveTasks(java.util.List.of(ta)), (short) 0));
System.out.println("ca " + hex(serde.serializeKey(r3)) + " " + hex(serde.serializeValue(r3)));
var r4 = CoordinatorRecord.record(new StreamsGroupMetadataKey().setGroupId("app"),
  new ApiMessageAndVersion(new StreamsGroupMetadataValue().setEpoch(3).setMetadataHash(-5L).setValidatedTopologyEpoch(0)
     .setLastAssignmentConfigs(java.util.List.of(new StreamsGroupMetadataValue.LastAssignmentConfig().setKey("num.standby.replicas").setValue("0"))).setFailedDescriptionTopologyEpoch(2), (short) 0));
System.out.println("gm " + hex(serde.serializeKey(r4)) + " " + hex(serde.serializeValue(r4)));
var mem = new GroupMetadataValue.MemberMetadata().setMemberId("m-1").setGroupInstanceId("i").setClientId("c").setClientHost("/127.0.0.1").setRebalanceTimeout(300000).setSessionTimeout(45000).setSubscription(new byte[]{1,2}).setAssignment(new byte[]{});
var r5 = CoordinatorRecord.record(new GroupMetadataKey().setGroup("g"),
  new ApiMessageAndVersion(new GroupMetadataValue().setProtocolType("consumer").setGeneration(2).setProtocol("range").setLeader(null).setCurrentStateTimestamp(77).setMembers(java.util.List.of(mem)), (short) 3));
System.out.println("cg " + hex(serde.serializeKey(r5)) + " " + hex(serde.serializeValue(r5)));
/exit
