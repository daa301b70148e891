//! Classic apis against streams groups of the same id (classic-44-delta.md §2.2 and §4.1 items 3-7:
//! Kafka's testClassicGroupJoinWithEmptyStreamsGroup, testClassicGroupJoinWithNonEmptyStreamsGroup,
//! testClassicGroupJoinOnStreamsGroup, testClassicGroupSyncOnStreamsGroup,
//! testClassicGroupLeaveOnStreamsGroup), and a streams join replacing an empty classic group.

mod classic_support;

use classic_support::*;
use coordinator::classic::GroupState;
use coordinator::records::Record;
use protocol::messages::streams_group_heartbeat_request::{Subtopology, Topology};
use protocol::messages::{GroupId, StreamsGroupHeartbeatRequest, TopicName};
use protocol::{ErrorCode, Response};

fn streams_join(member_id: &str, epoch: i32) -> StreamsGroupHeartbeatRequest {
    let mut r = StreamsGroupHeartbeatRequest::default()
        .with_group_id(GroupId(sb(GROUP)))
        .with_member_id(sb(member_id))
        .with_member_epoch(epoch);
    if epoch == 0 {
        r = r
            .with_rebalance_timeout_ms(1500)
            .with_process_id(Some(sb("process-id")))
            .with_topology(Some(Topology::default().with_subtopologies(vec![
                Subtopology::default()
                    .with_subtopology_id(sb("0"))
                    .with_source_topics(vec![TopicName(sb("foo"))]),
            ])))
            .with_active_tasks(Some(Vec::new()))
            .with_standby_tasks(Some(Vec::new()))
            .with_warmup_tasks(Some(Vec::new()));
    }
    r
}

fn streams_context() -> TestContext {
    TestContext::new()
        .with_config("group.streams.initial.rebalance.delay.ms", "0")
        .with_topics(&[("foo", 2)])
}

/// A streams group with one member; returns its epoch.
fn streams_member(ctx: &mut TestContext) -> i32 {
    let sent = ctx.send(1, streams_join("streams-member", 0));
    match ctx.answer(&sent) {
        Some(Response::StreamsGroupHeartbeat(r)) => {
            assert_eq!(r.error_code, 0, "{:?}", r.error_message);
            r.member_epoch
        }
        other => panic!("{other:?}"),
    }
}

/// classic-44-delta.md §4.1 #4/#5/#6/#7 (and Heartbeat, DescribeGroups): every classic api refuses a
/// streams group that has members.
#[test]
fn classic_apis_on_non_empty_streams_group() {
    let mut ctx = streams_context();
    streams_member(&mut ctx);
    assert!(ctx.shard.streams.contains(GROUP));

    // #4 testClassicGroupJoinWithNonEmptyStreamsGroup.
    let sent = ctx.join(join_request().default_protocols().build());
    assert!(sent.records.is_empty());
    let r = ctx.joined(&sent);
    assert_eq!(r.error_code, code(ErrorCode::InconsistentGroupProtocol));
    assert_eq!(r.member_id.as_str(), "");
    // #5 testClassicGroupJoinOnStreamsGroup: an empty protocol list, answered at once the same way.
    let sent = ctx.join_v(join_request().protocols(&[]).build(), 9);
    assert_eq!(
        ctx.joined(&sent).error_code,
        code(ErrorCode::InconsistentGroupProtocol)
    );
    // #6 testClassicGroupSyncOnStreamsGroup.
    let sent = ctx.sync(sync_request("streams-member", 1));
    assert!(sent.records.is_empty());
    assert_eq!(
        ctx.synced(&sent).error_code,
        code(ErrorCode::UnknownMemberId)
    );
    // #7 testClassicGroupLeaveOnStreamsGroup: "Group group-id not found." answered per member.
    let (leave, records) = ctx.leave(leave_request(vec![leave_member("streams-member", None)]));
    assert!(records.is_empty());
    assert_eq!(leave.error_code, 0);
    assert_eq!(
        leave.members[0].error_code,
        code(ErrorCode::UnknownMemberId)
    );
    assert_eq!(
        ctx.heartbeat_error("streams-member", 1),
        ErrorCode::UnknownMemberId
    );
    let d = ctx.describe(6, &[GROUP]);
    assert_eq!(d.groups[0].group_state.as_str(), "Dead");
    assert_eq!(d.groups[0].error_code, code(ErrorCode::GroupIdNotFound));
    assert_eq!(
        d.groups[0].error_message.as_deref(),
        Some("Group group-id is not a classic group.")
    );
    assert!(ctx.shard.classic.get(GROUP).is_none());
    assert!(ctx.shard.streams.contains(GROUP));
}

/// classic-44-delta.md §4.1 #3 testClassicGroupJoinWithEmptyStreamsGroup: a classic join converts an
/// empty streams group: the streams tombstones, then the new classic group's record.
#[test]
fn classic_group_join_with_empty_streams_group() {
    let mut ctx = streams_context();
    let epoch = streams_member(&mut ctx);
    let sent = ctx.send(1, streams_join("streams-member", -1));
    assert!(
        matches!(ctx.answer(&sent), Some(Response::StreamsGroupHeartbeat(r)) if r.error_code == 0)
    );
    let _ = epoch;
    assert!(ctx.shard.streams.is_empty_group(GROUP));
    let tombstones = ctx.shard.streams.tombstones(GROUP);
    assert!(!tombstones.is_empty());
    assert!(tombstones.iter().all(Record::is_tombstone));

    let sent = ctx.join_v(join_request().default_protocols().build(), 4);
    assert_eq!(
        ctx.joined(&sent).error_code,
        code(ErrorCode::MemberIdRequired)
    );
    let n = sent.records.len();
    assert_eq!(n, tombstones.len() + 1);
    assert_eq!(&sent.records[..n - 1], tombstones.as_slice());
    let value = metadata_value(&sent.records[n - 1]);
    assert_eq!(value.generation, 0);
    assert!(value.members.is_empty());
    assert!(!ctx.shard.streams.contains(GROUP));
    assert_eq!(ctx.group().state(), GroupState::Empty);
    assert_eq!(ctx.group().num_pending_join_members(), 1);
}

/// The other direction (Kafka's `getOrCreateStreamsGroup`): a streams join replaces an empty classic
/// group, whose tombstone removes it.
#[test]
fn streams_join_replaces_empty_classic_group() {
    let mut ctx = streams_context();
    ctx.create_group(GROUP);
    let r = ctx.join_and_complete_join(join_request().default_protocols().build(), true, true);
    let (leave, records) = ctx.leave(leave_request(vec![leave_member(&r.member_id, None)]));
    assert_eq!(leave.members[0].error_code, 0);
    assert_eq!(records.len(), 1);
    assert!(ctx.shard.classic.is_empty_group(GROUP));
    assert_eq!(ctx.shard.classic.tombstones(GROUP).len(), 1);

    let sent = ctx.send(1, streams_join("streams-member", 0));
    assert!(
        matches!(ctx.answer(&sent), Some(Response::StreamsGroupHeartbeat(r)) if r.error_code == 0)
    );
    assert!(matches!(
        sent.records.first(),
        Some(Record::GroupMetadata { value: None, .. })
    ));
    assert!(ctx.shard.classic.get(GROUP).is_none());
    assert!(ctx.shard.classic.persisted().get(GROUP).is_none());
    assert!(ctx.shard.streams.contains(GROUP));
}
