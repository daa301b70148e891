//! The error code a response carries, for the `ResponseReceived` event.

use protocol::{ErrorCode, Response};

fn code(c: i16) -> Option<ErrorCode> {
    match ErrorCode::from_code(c) {
        Some(ErrorCode::None) => None,
        Some(e) => Some(e),
        None => Some(ErrorCode::UnknownServerError),
    }
}

/// The top-level error of a response, or its first per-item error when it has no top-level one
/// (OffsetCommit, DeleteGroups, ...). `None` when everything succeeded.
pub fn response_error(response: &Response) -> Option<ErrorCode> {
    match response {
        Response::ApiVersions(r) => code(r.error_code),
        Response::FindCoordinator(r) => {
            code(r.error_code).or_else(|| r.coordinators.iter().find_map(|c| code(c.error_code)))
        }
        Response::StreamsGroupHeartbeat(r) => code(r.error_code),
        Response::ConsumerGroupHeartbeat(r) => code(r.error_code),
        Response::ConsumerGroupDescribe(r) => r.groups.iter().find_map(|g| code(g.error_code)),
        Response::JoinGroup(r) => code(r.error_code),
        Response::SyncGroup(r) => code(r.error_code),
        Response::Heartbeat(r) => code(r.error_code),
        Response::LeaveGroup(r) => {
            code(r.error_code).or_else(|| r.members.iter().find_map(|m| code(m.error_code)))
        }
        Response::OffsetCommit(r) => r
            .topics
            .iter()
            .flat_map(|t| t.partitions.iter())
            .find_map(|p| code(p.error_code)),
        Response::OffsetFetch(r) => code(r.error_code)
            .or_else(|| r.groups.iter().find_map(|g| code(g.error_code)))
            .or_else(|| {
                r.groups
                    .iter()
                    .flat_map(|g| g.topics.iter())
                    .flat_map(|t| t.partitions.iter())
                    .find_map(|p| code(p.error_code))
            }),
        Response::DescribeGroups(r) => r.groups.iter().find_map(|g| code(g.error_code)),
        Response::StreamsGroupDescribe(r) => r.groups.iter().find_map(|g| code(g.error_code)),
        Response::DeleteGroups(r) => r.results.iter().find_map(|g| code(g.error_code)),
        Response::Metadata(r) => code(r.error_code),
        _ => None,
    }
}
