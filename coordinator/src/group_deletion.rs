//! Deleting a group whatever its type (DeleteGroups, the periodic expiration, a join replacing an empty
//! group of the other type all come here).

use crate::classic::ClassicGroups;
use crate::consumer::ConsumerGroups;
use crate::outcome::TimerTask;
use crate::records::Record;
use crate::streams::StreamsGroups;
use crate::timer::Timers;

/// Kafka's `createGroupTombstoneRecordsAndCancelTimers`: appends the records that delete the group,
/// whatever its type, and cancels the group's timers (a streams group's initial-rebalance delay;
/// Kafka's classic groups cancel none, nor does an empty consumer group have any). The records still have to be replayed; offsets are not
/// touched (the offsets code deletes them: `offsets::deletion::delete_all_offsets`).
pub fn delete_group_records(
    streams: &mut StreamsGroups,
    consumer: &mut ConsumerGroups,
    classic: &ClassicGroups,
    timers: &mut Timers<TimerTask>,
    group_id: &str,
    records: &mut Vec<Record>,
) {
    if streams.contains(group_id) {
        records.extend(streams.tombstones(group_id));
        streams.cancel_timers(group_id, timers);
    } else if consumer.contains(group_id) {
        records.extend(consumer.tombstones(group_id));
    } else {
        records.extend(classic.tombstones(group_id));
    }
}
