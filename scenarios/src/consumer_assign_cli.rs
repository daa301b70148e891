//! `regroup assign` on a consumer-group input (`"kind":"consumer"`): runs Kafka 4.4's `uniform` or `range`
//! server-side assignor on a JSON description of what `TargetAssignmentBuilder` hands it.
//!
//! Input (one JSON object; with `--lines`, one per line):
//!
//! ```json
//! {"kind":"consumer","assignor":"uniform",
//!  "topics":[{"id":"T1-A4s3VTwiI5CTbEp6POw","partitions":3},
//!            {"id":"T3-CU8fVTLCz5YMkLoDQsQ","partitions":2,"racks":{"0":["r1","r2"]}}],
//!  "members":[{"memberId":"A","subscribedTopicIds":["T1-A4s3VTwiI5CTbEp6POw","T3-CU8fVTLCz5YMkLoDQsQ"],
//!              "assignment":{"T1-A4s3VTwiI5CTbEp6POw":[2,0]}},
//!             {"memberId":"B","instanceId":"b","rackId":"r1",
//!              "subscribedTopicIds":["T3-CU8fVTLCz5YMkLoDQsQ","T1-A4s3VTwiI5CTbEp6POw"]}]}
//! ```
//!
//! * `assignor`: `uniform` (the default, as in Kafka) or `range`.
//! * `subscriptionType`: `homogeneous` or `heterogeneous`; by default homogeneous iff every member
//!   subscribes to the same set of topics (what the group computes when no member uses a regex).
//! * `topics`: the metadata image: Kafka topic ids (`Uuid.toString()` form), partition counts, and
//!   optionally each partition's replica racks (no 4.4 assignor reads them).
//! * `members`: put in this order into the `HashMap` that `TargetAssignmentBuilder#build` hands the
//!   assignor (its iteration order decides ties); `instanceId`, `rackId`, `subscribedTopicIds` and
//!   `assignment` (the member's current target, topic id -> partitions) are optional. The subscription and
//!   the assignment are listed in the iteration order of the Java set and map they stand for (they decide
//!   which partitions a member over its quota keeps).
//!
//! Output: `{"members":{"A":{"T3-CU8fVTLCz5YMkLoDQsQ":[0,1]},"B":{"T1-A4s3VTwiI5CTbEp6POw":[0,1,2]}}}`,
//! the members the assignor returned (both uniform builders return none when nobody subscribes to an
//! existing topic), member ids, topic ids and partitions sorted. An assignor failure is an error whose text
//! is Kafka's exception message.

use std::collections::{BTreeMap, BTreeSet};
use std::fmt;
use std::marker::PhantomData;

use coordinator::consumer::assignor::spec::{kafka_uuid, parse_topic_id};
use coordinator::consumer::assignor::{
    self, GroupAssignment, GroupSpec, MemberSubscriptionSpec, SubscribedTopicDescriber,
    SubscriptionType, TopicId, TopicMetadata,
};
use serde::de::{self, Deserializer, MapAccess, Visitor};
use serde::{Deserialize, Serialize};

/// The value of `"kind"` that selects this format.
pub const KIND: &str = "consumer";

/// Parses one consumer-group input document, runs the assignor and renders the output document.
pub fn assign_json(text: &str) -> Result<String, String> {
    let input: ConsumerInput =
        serde_json::from_str(text).map_err(|e| format!("invalid input: {e}"))?;
    let (name, group, topics) = input.into_spec()?;
    let assignor = assignor::builtin(&name)
        .ok_or_else(|| format!("unknown assignor {name:?} (uniform, range)"))?;
    let assignment = assignor
        .assign(&group, &topics)
        .map_err(|e| e.to_string())?;
    Ok(serde_json::to_string(&render(&assignment))
        .expect("serialising maps of strings cannot fail"))
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
struct ConsumerInput {
    kind: String,
    #[serde(default = "default_assignor")]
    assignor: String,
    #[serde(default)]
    subscription_type: Option<SubscriptionTypeInput>,
    #[serde(default)]
    topics: Vec<TopicInput>,
    members: Vec<MemberInput>,
}

fn default_assignor() -> String {
    assignor::UniformAssignor::NAME.to_string()
}

#[derive(Deserialize, Clone, Copy)]
#[serde(rename_all = "lowercase")]
enum SubscriptionTypeInput {
    Homogeneous,
    Heterogeneous,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct TopicInput {
    id: String,
    partitions: i32,
    #[serde(default)]
    racks: OrderedMap<i32, Vec<String>>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
struct MemberInput {
    member_id: String,
    #[serde(default)]
    instance_id: Option<String>,
    #[serde(default)]
    rack_id: Option<String>,
    #[serde(default)]
    subscribed_topic_ids: Vec<String>,
    #[serde(default)]
    assignment: OrderedMap<String, Vec<i32>>,
}

fn topic_id(text: &str) -> Result<TopicId, String> {
    parse_topic_id(text).ok_or_else(|| {
        format!("invalid topic id {text:?} (expected Kafka's 22-character Uuid form)")
    })
}

impl ConsumerInput {
    fn into_spec(self) -> Result<(String, GroupSpec, SubscribedTopicDescriber), String> {
        debug_assert_eq!(self.kind, KIND);
        let mut topics = SubscribedTopicDescriber::default();
        for t in self.topics {
            let id = topic_id(&t.id)?;
            if t.partitions < 0 {
                return Err(format!(
                    "topic {}: partitions must not be negative, got {}",
                    t.id, t.partitions
                ));
            }
            let mut partition_racks = BTreeMap::new();
            for (p, racks) in t.racks.0 {
                if p < 0 || p >= t.partitions {
                    return Err(format!(
                        "topic {}: racks given for partition {p}, which it does not have",
                        t.id
                    ));
                }
                partition_racks.insert(p, racks.into_iter().collect::<BTreeSet<_>>());
            }
            let metadata = TopicMetadata {
                num_partitions: t.partitions,
                partition_racks,
            };
            if topics.topics.insert(id, metadata).is_some() {
                return Err(format!("topic {} is listed twice", kafka_uuid(&id)));
            }
        }
        let mut seen = BTreeSet::new();
        let mut members = Vec::with_capacity(self.members.len());
        for m in self.members {
            if !seen.insert(m.member_id.clone()) {
                return Err(format!("member id {:?} is listed twice", m.member_id));
            }
            let subscribed_topic_ids = m
                .subscribed_topic_ids
                .iter()
                .map(|t| topic_id(t))
                .collect::<Result<Vec<_>, _>>()?;
            let assignment = m
                .assignment
                .0
                .into_iter()
                .map(|(t, ps)| Ok((topic_id(&t)?, ps)))
                .collect::<Result<Vec<_>, String>>()?;
            members.push(MemberSubscriptionSpec {
                member_id: m.member_id,
                rack_id: m.rack_id,
                instance_id: m.instance_id,
                subscribed_topic_ids,
                assignment,
            });
        }
        let subscription_type = match self.subscription_type {
            Some(SubscriptionTypeInput::Homogeneous) => SubscriptionType::Homogeneous,
            Some(SubscriptionTypeInput::Heterogeneous) => SubscriptionType::Heterogeneous,
            None => GroupSpec::subscription_type_of(&members),
        };
        let group = GroupSpec::from_member_map_insertion_order(members, subscription_type);
        Ok((self.assignor, group, topics))
    }
}

#[derive(Serialize)]
struct ConsumerOutput {
    members: BTreeMap<String, BTreeMap<String, BTreeSet<i32>>>,
}

fn render(assignment: &GroupAssignment) -> ConsumerOutput {
    ConsumerOutput {
        members: assignment
            .members
            .iter()
            .map(|(m, a)| {
                let topics = a
                    .partitions
                    .iter()
                    .map(|(t, ps)| (kafka_uuid(t), ps.clone()))
                    .collect();
                (m.clone(), topics)
            })
            .collect(),
    }
}

/// A JSON object read in document order, rejecting a key given twice (serde's maps keep the last one).
#[derive(Debug)]
struct OrderedMap<K, V>(Vec<(K, V)>);

impl<K, V> Default for OrderedMap<K, V> {
    fn default() -> Self {
        OrderedMap(Vec::new())
    }
}

impl<'de, K, V> Deserialize<'de> for OrderedMap<K, V>
where
    K: Deserialize<'de> + Ord + Clone + fmt::Debug,
    V: Deserialize<'de>,
{
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct OrderedVisitor<K, V>(PhantomData<(K, V)>);

        impl<'de, K, V> Visitor<'de> for OrderedVisitor<K, V>
        where
            K: Deserialize<'de> + Ord + Clone + fmt::Debug,
            V: Deserialize<'de>,
        {
            type Value = OrderedMap<K, V>;

            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("an object")
            }

            fn visit_map<A: MapAccess<'de>>(self, mut access: A) -> Result<Self::Value, A::Error> {
                let mut seen = BTreeSet::new();
                let mut entries = Vec::new();
                while let Some((k, v)) = access.next_entry::<K, V>()? {
                    if !seen.insert(k.clone()) {
                        return Err(de::Error::custom(format!("duplicate key {k:?}")));
                    }
                    entries.push((k, v));
                }
                Ok(OrderedMap(entries))
            }
        }

        deserializer.deserialize_map(OrderedVisitor(PhantomData))
    }
}

#[cfg(test)]
mod tests {
    fn run(text: &str) -> Result<String, String> {
        crate::assign_cli::assign_json(text)
    }

    const T1: &str = "T1-A4s3VTwiI5CTbEp6POw";
    const T3: &str = "T3-CU8fVTLCz5YMkLoDQsQ";

    #[test]
    fn documented_example() {
        // UniformHomogeneousAssignmentBuilderTest#testFirstAssignmentTwoMembersTwoTopicsNoMemberRacks with A
        // holding topic1's 0 and 2 before: A keeps them (its quota is 2), B takes the rest.
        let input = format!(
            r#"{{"kind":"consumer","assignor":"uniform",
            "topics":[{{"id":"{T1}","partitions":3}},{{"id":"{T3}","partitions":2,"racks":{{"0":["r1","r2"]}}}}],
            "members":[{{"memberId":"A","subscribedTopicIds":["{T1}","{T3}"],"assignment":{{"{T1}":[2,0]}}}},
                       {{"memberId":"B","instanceId":"b","rackId":"r1","subscribedTopicIds":["{T3}","{T1}"]}}]}}"#
        );
        assert_eq!(
            run(&input).unwrap(),
            format!(r#"{{"members":{{"A":{{"{T1}":[0,2]}},"B":{{"{T1}":[1],"{T3}":[0,1]}}}}}}"#)
        );
    }

    #[test]
    fn first_assignment_matches_kafkas_test() {
        // UniformHomogeneousAssignmentBuilderTest#testFirstAssignmentTwoMembersTwoTopicsNoMemberRacks
        // (A and B put in this order iterate A first, as the test's TreeMap does).
        let input = format!(
            r#"{{"kind":"consumer","topics":[{{"id":"{T1}","partitions":3}},{{"id":"{T3}","partitions":2}}],
            "members":[{{"memberId":"A","subscribedTopicIds":["{T1}","{T3}"]}},
                       {{"memberId":"B","subscribedTopicIds":["{T1}","{T3}"]}}]}}"#
        );
        assert_eq!(
            run(&input).unwrap(),
            format!(r#"{{"members":{{"A":{{"{T3}":[0,1]}},"B":{{"{T1}":[0,1,2]}}}}}}"#)
        );
    }

    #[test]
    fn range_and_explicit_subscription_type() {
        // RangeAssignorTest#testFirstAssignmentTwoMembersTwoTopicsSameSubscriptions.
        let input = format!(
            r#"{{"kind":"consumer","assignor":"range","subscriptionType":"heterogeneous",
            "topics":[{{"id":"{T1}","partitions":3}},{{"id":"{T3}","partitions":2}}],
            "members":[{{"memberId":"B","subscribedTopicIds":["{T1}","{T3}"]}},
                       {{"memberId":"A","subscribedTopicIds":["{T3}","{T1}"]}}]}}"#
        );
        assert_eq!(
            run(&input).unwrap(),
            format!(
                r#"{{"members":{{"A":{{"{T1}":[0,1],"{T3}":[0]}},"B":{{"{T1}":[2],"{T3}":[1]}}}}}}"#
            )
        );
    }

    #[test]
    fn nobody_subscribed_returns_no_member() {
        let input = r#"{"kind":"consumer","members":[{"memberId":"A"},{"memberId":"B"}]}"#;
        assert_eq!(run(input).unwrap(), r#"{"members":{}}"#);
    }

    #[test]
    fn kafka_errors_and_bad_input() {
        let missing = format!(
            r#"{{"kind":"consumer","members":[{{"memberId":"A","subscribedTopicIds":["{T1}"]}}]}}"#
        );
        assert_eq!(
            run(&missing).unwrap_err(),
            format!(
                "Members are subscribed to topic {T1} which doesn't exist in the topic metadata."
            )
        );
        let range = missing.replace(
            r#""kind":"consumer""#,
            r#""kind":"consumer","assignor":"range""#,
        );
        assert_eq!(
            run(&range).unwrap_err(),
            "Member is subscribed to a non-existent topic"
        );
        let sticky = missing.replace(
            r#""kind":"consumer""#,
            r#""kind":"consumer","assignor":"sticky""#,
        );
        assert!(
            run(&sticky)
                .unwrap_err()
                .contains("unknown assignor \"sticky\"")
        );
        let bad_id =
            r#"{"kind":"consumer","members":[{"memberId":"A","subscribedTopicIds":["t1"]}]}"#;
        assert!(run(bad_id).unwrap_err().contains("invalid topic id \"t1\""));
        let twice = format!(
            r#"{{"kind":"consumer","topics":[{{"id":"{T1}","partitions":1}}],
            "members":[{{"memberId":"A","assignment":{{"{T1}":[0],"{T1}":[0]}}}}]}}"#
        );
        assert!(run(&twice).unwrap_err().contains("duplicate key"));
        let negative = format!(
            r#"{{"kind":"consumer","topics":[{{"id":"{T1}","partitions":-1}}],"members":[]}}"#
        );
        assert!(run(&negative).unwrap_err().contains("must not be negative"));
        let same = r#"{"kind":"consumer","members":[{"memberId":"A"},{"memberId":"A"}]}"#;
        assert!(run(same).unwrap_err().contains("listed twice"));
        let unknown = r#"{"kind":"consumer","members":[],"extra":1}"#;
        assert!(run(unknown).unwrap_err().starts_with("invalid input"));
    }
}
