//! OffsetDelete requests for the generators: what an admin deleting a group's offsets sends
//! (`Admin.deleteConsumerGroupOffsets`), with now and then a topic or partition that does not exist.

use std::collections::BTreeMap;

use serde_json::{Value, json};

use super::dice::Dice;

/// An OffsetDelete v0 body for `group`: one or two of the cluster's `topics` (name -> partition count),
/// sometimes an unknown topic, each naming one to three partitions (sometimes one past the last).
pub fn body(dice: &mut Dice, group: &str, topics: &BTreeMap<String, i32>) -> Value {
    let names: Vec<&String> = topics.keys().collect();
    let mut chosen: Vec<(String, i32)> = Vec::new();
    if !names.is_empty() {
        for _ in 0..dice.int(1, 2) {
            let name = *dice.pick(&names);
            chosen.push((name.clone(), topics[name]));
        }
    }
    if chosen.is_empty() || dice.chance(0.1) {
        chosen.push(("unknown-topic".to_string(), 1));
    }
    let entries: Vec<Value> = chosen
        .iter()
        .map(|(name, count)| {
            let partitions: Vec<Value> = (0..dice.int(1, 3))
                .map(|_| json!({"partitionIndex": dice.int(0, i64::from(*count))}))
                .collect();
            json!({"name": name, "partitions": partitions})
        })
        .collect();
    json!({"groupId": group, "topics": entries})
}
