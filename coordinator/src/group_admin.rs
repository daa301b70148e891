//! The admin apis that cover every group type of the shard: ListGroups and DeleteGroups (Kafka's
//! `GroupCoordinatorService.listGroups` / `deleteGroups` and `GroupCoordinatorShard.deleteGroups`). Each
//! group type answers through the shared container methods (`listings`, `validation`, `tombstones`).

use std::collections::BTreeSet;

use protocol::messages::delete_groups_response::DeletableGroupResult;
use protocol::messages::list_groups_response::ListedGroup;
use protocol::messages::{
    DeleteGroupsRequest, DeleteGroupsResponse, ListGroupsRequest, ListGroupsResponse, StrBytes,
};
use protocol::{ErrorCode, Request};

use crate::classic::ClassicGroups;
use crate::consumer::ConsumerGroups;
use crate::context::RequestContext;
use crate::group::GroupValidation;
use crate::group_deletion::delete_group_records;
use crate::java::JavaHashMapOrder;
use crate::offsets::OffsetStore;
use crate::outcome::{Outcome, RequestToken, TimerTask};
use crate::streams::StreamsGroups;
use crate::timer::Timers;

/// What ListGroups and DeleteGroups may touch: the groups of every type, the offsets a deletion
/// tombstones, and the timers a deleted streams group cancels.
pub(crate) struct GroupAdminEnv<'a> {
    pub streams: &'a mut StreamsGroups,
    pub consumer: &'a mut ConsumerGroups,
    pub classic: &'a ClassicGroups,
    pub offsets: &'a OffsetStore,
    pub timers: &'a mut Timers<TimerTask>,
}

impl GroupAdminEnv<'_> {
    fn group_validation(&self, group_id: &str) -> Option<&dyn GroupValidation> {
        self.streams
            .validation(group_id)
            .or_else(|| self.consumer.validation(group_id))
            .or_else(|| self.classic.validation(group_id))
    }
}

fn sb(s: &str) -> StrBytes {
    StrBytes::from_string(s.to_string())
}

/// Runs ListGroups or DeleteGroups; other requests produce an empty outcome.
pub(crate) fn handle(
    env: &mut GroupAdminEnv<'_>,
    token: RequestToken,
    rctx: &RequestContext,
    request: &Request,
) -> Outcome {
    let mut out = Outcome::default();
    match request {
        Request::ListGroups(r) => out.reply(token, list_groups(env, r)),
        Request::DeleteGroups(r) => {
            let response = delete_groups(env, rctx, r, &mut out);
            out.reply(token, response);
        }
        _ => {}
    }
    out
}

/// Every group of the shard passing the state filter (case-insensitive, trimmed) and the type filter
/// (case-insensitive; an unknown type matches nothing), ordered by group id.
fn list_groups(env: &GroupAdminEnv<'_>, r: &ListGroupsRequest) -> ListGroupsResponse {
    let states: BTreeSet<String> = r
        .states_filter
        .iter()
        .map(|s| s.to_lowercase().trim().to_string())
        .collect();
    let types: BTreeSet<String> = r.types_filter.iter().map(|t| t.to_lowercase()).collect();
    let mut listings = env.streams.listings();
    listings.extend(env.consumer.listings());
    listings.extend(env.classic.listings());
    listings.sort();
    let groups = listings
        .into_iter()
        .filter(|g| states.is_empty() || states.contains(&g.state.to_lowercase()))
        .filter(|g| types.is_empty() || types.contains(g.group_type.name()))
        .map(|g| {
            ListedGroup::default()
                .with_group_id(sb(&g.group_id).into())
                .with_protocol_type(sb(&g.protocol_type))
                .with_group_state(sb(&g.state))
                .with_group_type(sb(g.group_type.name()))
        })
        .collect();
    ListGroupsResponse::default().with_groups(groups)
}

/// The order Kafka deletes the groups of one coordinator partition in: the request's distinct ids put
/// through a `java.util.HashSet` built from the list (`new HashSet<>(list).stream()`).
fn deletion_order(ids: &[String]) -> Vec<String> {
    let capacity = ((ids.len() as f32 / 0.75_f32) as i32 + 1).max(16);
    let mut order = JavaHashMapOrder::with_capacity(capacity);
    for id in ids {
        order.put(id);
    }
    order
        .iteration_order()
        .into_iter()
        .map(|i| ids[i as usize].clone())
        .collect()
}

fn delete_groups(
    env: &mut GroupAdminEnv<'_>,
    rctx: &RequestContext,
    r: &DeleteGroupsRequest,
    out: &mut Outcome,
) -> DeleteGroupsResponse {
    let mut distinct: Vec<String> = Vec::new();
    for id in &r.groups_names {
        if !distinct.iter().any(|d| d == id.as_str()) {
            distinct.push(id.to_string());
        }
    }
    let mut results = Vec::with_capacity(distinct.len());
    for group_id in deletion_order(&distinct) {
        let error = match env.group_validation(&group_id) {
            None => ErrorCode::GroupIdNotFound,
            Some(group) => match group.validate_delete_group() {
                Ok(()) => ErrorCode::None,
                Err(e) => e.code,
            },
        };
        if error == ErrorCode::None {
            crate::offsets::deletion::delete_all_offsets(env.offsets, &group_id, &mut out.records);
            delete_group_records(
                env.streams,
                env.consumer,
                env.classic,
                env.timers,
                &group_id,
                &mut out.records,
            );
        }
        let mut error_code = error.code();
        // GROUP_DELETION_FAILED exists from v3 only.
        if rctx.api_version < 3 && error == ErrorCode::GroupDeletionFailed {
            error_code = ErrorCode::UnknownServerError.code();
        }
        results.push(
            DeletableGroupResult::default()
                .with_group_id(sb(&group_id).into())
                .with_error_code(error_code),
        );
    }
    DeleteGroupsResponse::default().with_results(results)
}
