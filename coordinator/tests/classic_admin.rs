//! DescribeGroups, ListGroups and DeleteGroups on classic groups.

mod classic_support;

use classic_support::*;
use coordinator::classic::GroupState;
use coordinator::records::Record;
use protocol::messages::{DeleteGroupsRequest, ListGroupsRequest};
use protocol::{ErrorCode, Response};

const LEADER: &str = "leader-instance-id";
const FOLLOWER: &str = "follower-instance-id";

/// A Stable group is described with the selected protocol, each member's instance id, client, metadata
/// and assignment (Scala's testDescribeGroupStableForStaticMember); authorized operations from v3 when
/// asked for.
#[test]
fn describe_stable_group_with_static_members() {
    let mut ctx = TestContext::new();
    let rebalance = ctx.static_members_join_and_rebalance(LEADER, FOLLOWER, 10000, 5000);
    let r = ctx.describe(5, &[GROUP]);
    let g = &r.groups[0];
    assert_eq!(g.error_code, 0);
    assert_eq!(g.group_state.as_str(), "Stable");
    assert_eq!(g.protocol_type.as_str(), "consumer");
    assert_eq!(g.protocol_data.as_str(), "range");
    assert_eq!(g.authorized_operations, i32::MIN);
    let members: Vec<_> = g
        .members
        .iter()
        .map(|m| {
            (
                m.member_id.to_string(),
                m.group_instance_id.as_deref().map(str::to_string),
                m.client_id.to_string(),
                m.client_host.to_string(),
                m.member_assignment.to_vec(),
            )
        })
        .collect();
    assert_eq!(
        members,
        vec![
            (
                rebalance.leader_id.clone(),
                Some(LEADER.to_string()),
                CLIENT_ID.to_string(),
                CLIENT_HOST.to_string(),
                vec![1]
            ),
            (
                rebalance.follower_id.clone(),
                Some(FOLLOWER.to_string()),
                CLIENT_ID.to_string(),
                CLIENT_HOST.to_string(),
                vec![2]
            ),
        ]
    );
    // "range" is the first of the superset: its metadata subscribes to "foo".
    assert_eq!(g.members[0].member_metadata, subscription(&["foo"]));

    let request = protocol::messages::DescribeGroupsRequest::default()
        .with_groups(vec![sb(GROUP).into(), sb("unknown").into()])
        .with_include_authorized_operations(true);
    let sent = ctx.send(3, request);
    match ctx.answer(&sent) {
        Some(Response::DescribeGroups(r)) => {
            assert_eq!(r.groups[0].authorized_operations, 3400);
            assert_eq!(r.groups[1].group_state.as_str(), "Dead");
            // Only entries without error get authorized operations.
            assert_eq!(r.groups[1].authorized_operations, 3400);
        }
        other => panic!("{other:?}"),
    }
    let request = protocol::messages::DescribeGroupsRequest::default()
        .with_groups(vec![sb("unknown").into()])
        .with_include_authorized_operations(true);
    let sent = ctx.send(6, request);
    match ctx.answer(&sent) {
        Some(Response::DescribeGroups(r)) => {
            assert_eq!(r.groups[0].error_code, code(ErrorCode::GroupIdNotFound));
            assert_eq!(r.groups[0].authorized_operations, i32::MIN);
        }
        other => panic!("{other:?}"),
    }
}

/// Outside Stable members are described without metadata but with their assignment (Kafka's Java
/// coordinator; the old Scala one left both empty).
#[test]
fn describe_rebalancing_group() {
    let mut ctx = TestContext::new();
    let rebalance = ctx.static_members_join_and_rebalance(LEADER, FOLLOWER, 10000, 5000);
    ctx.join(
        join_request()
            .instance(LEADER)
            .member(&rebalance.leader_id)
            .protocol_superset()
            .build(),
    );
    let r = ctx.describe(6, &[GROUP]);
    let g = &r.groups[0];
    assert_eq!(g.group_state.as_str(), "PreparingRebalance");
    assert_eq!(g.protocol_type.as_str(), "consumer");
    assert_eq!(g.protocol_data.as_str(), "");
    assert_eq!(g.members.len(), 2);
    assert!(g.members.iter().all(|m| m.member_metadata.is_empty()));
    assert_eq!(g.members[0].member_assignment.to_vec(), vec![1]);
}

fn list(
    ctx: &mut TestContext,
    version: i16,
    states: &[&str],
    types: &[&str],
) -> Vec<(String, String, String, String)> {
    let request = ListGroupsRequest::default()
        .with_states_filter(states.iter().map(|s| sb(s)).collect())
        .with_types_filter(types.iter().map(|s| sb(s)).collect());
    let sent = ctx.send(version, request);
    match ctx.answer(&sent) {
        Some(Response::ListGroups(r)) => {
            assert_eq!(r.error_code, 0);
            r.groups
                .iter()
                .map(|g| {
                    (
                        g.group_id.to_string(),
                        g.protocol_type.to_string(),
                        g.group_state.to_string(),
                        g.group_type.to_string(),
                    )
                })
                .collect()
        }
        other => panic!("{other:?}"),
    }
}

/// ListGroups with state (case-insensitive, trimmed) and type filters.
#[test]
fn list_groups_with_filters() {
    let mut ctx = TestContext::new().with_topics(&[("foo", 1)]);
    ctx.static_members_join_and_rebalance(LEADER, FOLLOWER, 10000, 5000);
    ctx.commit(9, commit_request("simple", "", None, -1, "foo", 0, 1));
    let all = list(&mut ctx, 5, &[], &[]);
    assert_eq!(
        all,
        vec![
            (
                GROUP.into(),
                "consumer".into(),
                "Stable".into(),
                "classic".into()
            ),
            ("simple".into(), "".into(), "Empty".into(), "classic".into()),
        ]
    );
    assert_eq!(list(&mut ctx, 5, &[" STABLE "], &[]).len(), 1);
    assert_eq!(list(&mut ctx, 5, &["empty"], &["Classic"])[0].0, "simple");
    assert!(list(&mut ctx, 5, &[], &["consumer"]).is_empty());
    assert!(list(&mut ctx, 5, &[], &["nonsense"]).is_empty());
}

fn delete(
    ctx: &mut TestContext,
    version: i16,
    groups: &[&str],
) -> (Vec<(String, ErrorCode)>, Vec<Record>) {
    let request = DeleteGroupsRequest::default()
        .with_groups_names(groups.iter().map(|g| sb(g).into()).collect());
    let sent = ctx.send(version, request);
    match ctx.answer(&sent) {
        Some(Response::DeleteGroups(r)) => (
            r.results
                .iter()
                .map(|g| {
                    (
                        g.group_id.to_string(),
                        ErrorCode::from_code(g.error_code).unwrap(),
                    )
                })
                .collect(),
            sent.records,
        ),
        other => panic!("{other:?}"),
    }
}

/// DeleteGroups: a non-empty group is refused, an unknown one is not found, an empty one is tombstoned
/// after its offsets. Results come in the order Kafka's `HashSet` of the ids yields them.
#[test]
fn delete_groups() {
    let mut ctx = TestContext::new().with_topics(&[("foo", 2), ("bar", 1)]);
    ctx.static_members_join_and_rebalance(LEADER, FOLLOWER, 10000, 5000);
    ctx.commit(9, commit_request("simple", "", None, -1, "foo", 1, 1));
    ctx.commit(9, commit_request("simple", "", None, -1, "bar", 0, 2));
    ctx.commit(9, commit_request("simple", "", None, -1, "foo", 0, 3));
    let (results, records) = delete(&mut ctx, 3, &["simple", GROUP, "unknown", "simple"]);
    // Java spreads "group-id", "simple" and "unknown" to buckets 4, 10 and 15 of 16.
    assert_eq!(
        results,
        vec![
            (GROUP.to_string(), ErrorCode::NonEmptyGroup),
            ("simple".to_string(), ErrorCode::None),
            ("unknown".to_string(), ErrorCode::GroupIdNotFound),
        ]
    );
    let keys: Vec<_> = records
        .iter()
        .map(|r| match r {
            Record::OffsetCommit { key, value: None } => {
                format!("offset {}-{}", key.topic, key.partition)
            }
            Record::GroupMetadata { key, value: None } => format!("group {}", key.group),
            other => panic!("{other:?}"),
        })
        .collect();
    assert_eq!(
        keys,
        vec![
            "offset bar-0",
            "offset foo-0",
            "offset foo-1",
            "group simple"
        ]
    );
    assert!(ctx.shard.classic.get("simple").is_none());
    assert!(ctx.shard.offsets.group("simple").is_none());
    assert!(ctx.shard.classic.persisted().get("simple").is_none());

    // Once empty, the classic group can be deleted too.
    let (leave, _) = ctx.leave(leave_request(vec![
        leave_member("", Some(LEADER)),
        leave_member("", Some(FOLLOWER)),
    ]));
    assert!(leave.members.iter().all(|m| m.error_code == 0));
    assert_eq!(ctx.group().state(), GroupState::Empty);
    let (results, records) = delete(&mut ctx, 0, &[GROUP]);
    assert_eq!(results, vec![(GROUP.to_string(), ErrorCode::None)]);
    assert_eq!(records.len(), 1);
    assert!(ctx.shard.classic.get(GROUP).is_none());
}
