//! Kafka bug switches: real bugs from Apache Kafka's history, each of which regroup can restore by
//! name, so that the simulator's power to find bugs is measured on bugs that happened.
//!
//! A switch reproduces the logic Kafka had before a documented fix (its [`Polarity`] is
//! [`Polarity::PreFix`]): off by default, so a run without switches is Kafka 4.4.0 and every
//! catalogue trace hash stays as it is. Each switch is one small named branch next to the rule it
//! changes (the entry's `acts` says where), citing the ticket; nothing else reads the set.
//!
//! This crate sits below the coordinator and the client models (both read the set) and knows
//! nothing of either: it holds the names, the facts about each bug, and the set a run carries.

use std::collections::BTreeSet;
use std::fmt;

use serde::{Serialize, Serializer};

/// One bug regroup can switch on.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum KafkaBug {
    /// KAFKA-19233: a fenced streams member rejoining with epoch 0 is fenced again.
    Kafka19233,
    /// KAFKA-20442: the last streams member leaving moves the group epoch but not the assignment
    /// epoch.
    Kafka20442,
    /// KAFKA-19779: a streams offset commit must carry exactly the member's epoch.
    Kafka19779,
    /// KAFKA-20169 (the streams form of KAFKA-20601): a full streams group refuses every join.
    Kafka20169,
    /// KAFKA-19661: fencing a streams member writes metadata hash 0 (the fence half of the ticket).
    Kafka19661,
    /// KAFKA-19190: a shutdown request carried by a leave heartbeat is dropped.
    Kafka19190,
    /// KAFKA-9801: a static member rejoining while the classic group completes a rebalance
    /// triggers no new rebalance.
    Kafka9801,
    /// KAFKA-10284: a static member's replacement in a Stable classic group is not persisted.
    Kafka10284,
    /// KAFKA-20899: the sticky task assignor loses a previous standby owner when the first listed
    /// one's process already holds the task.
    Kafka20899,
    /// KAFKA-20719: the sticky task assignor ignores reported task offsets, so a cold start is not
    /// sticky.
    Kafka20719,
    /// KAFKA-8500: a static member rejoining with no member id while the classic group rebalances
    /// keeps the old member id (nothing is fenced).
    Kafka8500,
    /// KAFKA-8220: a static member that has not rejoined when the join phase times out is removed.
    Kafka8220,
}

/// Whether Apache Kafka 4.4.0 itself carries the bug.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Polarity {
    /// 4.4.0 has the fix; the switch restores the logic from before it.
    PreFix,
}

/// What the simulator needs to see a bug, beyond the switch.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Side {
    /// The switch changes the coordinator (a broker-side rule).
    Coordinator,
    /// The switch changes a client model.
    Client,
}

/// The group type whose coordinator rules (or client) the bug is in.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Group {
    /// KIP-1071 streams groups.
    Streams,
    /// Classic groups (with KIP-345 static membership).
    Classic,
}

/// The facts about one bug.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct BugInfo {
    #[serde(skip)]
    pub bug: KafkaBug,
    /// The name `--kafka-bug` takes: the ticket in lower case.
    pub name: &'static str,
    pub ticket: &'static str,
    /// The ticket's (or the fix's) title.
    pub title: &'static str,
    /// The pull requests that fixed it in apache/kafka.
    pub fix: &'static str,
    /// The Kafka versions that have the bug.
    pub affected: &'static str,
    pub polarity: Polarity,
    pub side: Side,
    pub group: Group,
    /// What goes wrong, in one line.
    pub symptom: &'static str,
    /// Where in regroup the switch acts (file and function).
    pub acts: &'static str,
    /// The catalogue scenario written to show it: it passes with the switch off and fails with it
    /// on.
    pub targeted: &'static str,
    /// The invariant (or `expectation`, the scenario's own check) that fires first in the targeted
    /// scenario with the switch on, by its `--json` name.
    pub caught_by: &'static str,
}

/// Every switch. The facts live here and nowhere else.
pub const BUGS: &[BugInfo] = &[
    BugInfo {
        bug: KafkaBug::Kafka19233,
        name: "kafka-19233",
        ticket: "KAFKA-19233",
        title: "Allow fenced members to rejoin streams group with epoch 0",
        fix: "apache/kafka#21312 (streams; #21305 consumer, #21309 share)",
        affected: "streams groups 4.1.x (fixed in 4.2.0)",
        polarity: Polarity::PreFix,
        side: Side::Coordinator,
        group: Group::Streams,
        symptom: "a member that rejoins with epoch 0 under its own member id is answered \
                  FENCED_MEMBER_EPOCH again and again until its session times out; its tasks \
                  stay assigned to it meanwhile",
        acts: "coordinator/src/streams/heartbeat/member.rs: throw_if_member_epoch_is_invalid",
        targeted: "bug-fenced-member-rejoins",
        caught_by: "coordinator-answers",
    },
    BugInfo {
        bug: KafkaBug::Kafka20442,
        name: "kafka-20442",
        ticket: "KAFKA-20442",
        title: "Update streams group assignment epoch when last member leaves",
        fix: "apache/kafka#22047 (streams; #22045 consumer, #22046 share)",
        affected: "every release with streams groups before 4.4.0",
        polarity: Polarity::PreFix,
        side: Side::Coordinator,
        group: Group::Streams,
        symptom: "an empty streams group keeps an assignment epoch one behind its group epoch",
        acts: "coordinator/src/streams/heartbeat/leave.rs: fence_member",
        targeted: "bug-last-member-leaves",
        caught_by: "coordinator-answers",
    },
    BugInfo {
        bug: KafkaBug::Kafka19779,
        name: "kafka-19779",
        ticket: "KAFKA-19779",
        title: "Relax offset commit validation for streams groups",
        fix: "apache/kafka#20714, #20717, #20730, #20760",
        affected: "streams groups 4.1.x (fixed in 4.2.0)",
        polarity: Polarity::PreFix,
        side: Side::Coordinator,
        group: Group::Streams,
        symptom: "a commit by a task's owner with the epoch it held before a bump is rejected \
                  STALE_MEMBER_EPOCH",
        acts: "coordinator/src/streams/offset_admission.rs: validate_offset_commit",
        targeted: "bug-commit-across-epoch-bump",
        caught_by: "convergence",
    },
    BugInfo {
        bug: KafkaBug::Kafka20169,
        name: "kafka-20169",
        ticket: "KAFKA-20169",
        title: "Static membership for the streams protocol (the group-size check of 4.1-4.3)",
        fix: "apache/kafka#22245",
        affected: "streams groups 4.1.x to 4.3.x",
        polarity: Polarity::PreFix,
        side: Side::Coordinator,
        group: Group::Streams,
        symptom: "once a streams group is at group.streams.max.size, every join is refused \
                  GROUP_MAX_SIZE_REACHED, even a member rejoining under its own member id",
        acts: "coordinator/src/streams/heartbeat/member.rs: throw_if_streams_group_is_full",
        targeted: "bug-full-group-rejoin",
        caught_by: "convergence",
    },
    BugInfo {
        bug: KafkaBug::Kafka19661,
        name: "kafka-19661",
        ticket: "KAFKA-19661",
        title: "Streams groups sometimes describe as NOT_READY when STABLE (the fence half)",
        fix: "apache/kafka#20600",
        affected: "streams groups 4.1.x (fixed in 4.2.0)",
        polarity: Polarity::PreFix,
        side: Side::Coordinator,
        group: Group::Streams,
        symptom: "every fence (a leave, a session or rebalance timeout) costs two group-epoch \
                  bumps and two target assignments: the fence writes metadata hash 0, so the next \
                  heartbeat sees the topic metadata change",
        acts: "coordinator/src/streams/heartbeat/leave.rs: fence_member",
        targeted: "bug-leave-bumps-once",
        caught_by: "coordinator-answers",
    },
    BugInfo {
        bug: KafkaBug::Kafka19190,
        name: "kafka-19190",
        ticket: "KAFKA-19190",
        title: "Handle shutdown application correctly",
        fix: "apache/kafka#19544",
        affected: "the streams protocol before its first release (trunk before 4.1.0)",
        polarity: Polarity::PreFix,
        side: Side::Coordinator,
        group: Group::Streams,
        symptom: "a member that asks for SHUTDOWN_APPLICATION only on its leave heartbeat is \
                  ignored: the other members never hear it and the application keeps running",
        acts: "coordinator/src/streams/heartbeat/leave.rs: StreamsGroups::leave",
        targeted: "bug-shutdown-on-leave",
        caught_by: "convergence",
    },
    BugInfo {
        bug: KafkaBug::Kafka9801,
        name: "kafka-9801",
        ticket: "KAFKA-9801",
        title: "Still trigger rebalance when static member joins in CompletingRebalance phase",
        fix: "apache/kafka#8405",
        affected: "classic static membership 2.3.x and 2.4.x (fixed in 2.5.0)",
        polarity: Polarity::PreFix,
        side: Side::Coordinator,
        group: Group::Classic,
        symptom: "a static member restarting between the join responses and the leader's \
                  SyncGroup gets an empty assignment; its partitions stay unowned",
        acts: "coordinator/src/classic/join.rs: update_static_member_then_rebalance",
        targeted: "bug-static-restart-while-completing",
        caught_by: "convergence",
    },
    BugInfo {
        bug: KafkaBug::Kafka10284,
        name: "kafka-10284",
        ticket: "KAFKA-10284",
        title: "Group membership update due to static member rejoin should be persisted",
        fix: "apache/kafka#9270",
        affected: "classic static membership 2.3.0 to 2.6.0 (fixed in 2.6.1 and 2.7.0)",
        polarity: Polarity::PreFix,
        side: Side::Coordinator,
        group: Group::Classic,
        symptom: "a static member that restarted in a Stable group is fenced (FENCED_INSTANCE_ID) \
                  after the coordinator moves: the new member id was never written",
        acts: "coordinator/src/classic/join.rs: update_static_member_then_rebalance",
        targeted: "bug-static-restart-then-failover",
        caught_by: "convergence",
    },
    BugInfo {
        bug: KafkaBug::Kafka20899,
        name: "kafka-20899",
        ticket: "KAFKA-20899",
        title: "Fix \"streams\" StickyAssignor bug for standby tasks",
        fix: "apache/kafka#23096",
        affected: "streams groups 4.2.0 to 4.3.x (fixed on the 4.2 and 4.3 branches after their \
                   releases, and in 4.4.0)",
        polarity: Polarity::PreFix,
        side: Side::Coordinator,
        group: Group::Streams,
        symptom: "a standby replica whose first listed previous standby owner's process already \
                  holds the task (typically just given the active) does not go to another \
                  previous standby owner that lacks it, but to the least-loaded process: its \
                  local state is restored from scratch",
        acts: "coordinator/src/streams/assignor/sticky.rs: find_prev_member_with_least_load",
        targeted: "bug-standby-behind-new-active",
        caught_by: "expectation",
    },
    BugInfo {
        bug: KafkaBug::Kafka20719,
        name: "kafka-20719",
        ticket: "KAFKA-20719",
        title: "\"Streams\" group sticky assignor not sticky at startup",
        fix: "apache/kafka#22783 (integration test #22630)",
        affected: "streams groups 4.1.x to 4.3.x",
        polarity: Polarity::PreFix,
        side: Side::Coordinator,
        group: Group::Streams,
        symptom: "when the whole application restarts (fresh member ids, empty assignments, state \
                  on disk) the assignor ignores the task offsets the members report and deals \
                  the tasks out range style: most tasks move away from the process holding \
                  their state",
        acts: "coordinator/src/streams/assignor/sticky.rs: collect_previous",
        targeted: "bug-cold-start-not-sticky",
        caught_by: "expectation",
    },
    BugInfo {
        bug: KafkaBug::Kafka8500,
        name: "kafka-8500",
        ticket: "KAFKA-8500",
        title: "Static member rejoin should always update member.id",
        fix: "apache/kafka#6899",
        affected: "classic static membership in trunk and 2.3.0-rc1 (fixed in 2.3.0-rc2, before \
                   its release)",
        polarity: Polarity::PreFix,
        side: Side::Coordinator,
        group: Group::Classic,
        symptom: "a second consumer with a member's instance id, joining while the group \
                  rebalances, is handed the member's own id and nobody is fenced: the two take \
                  turns, each JoinGroup silently dropping the other's, and the group rebalances \
                  again every time the loser's request times out",
        acts: "coordinator/src/classic/join.rs: join_new_member",
        targeted: "bug-duplicate-instance-while-rebalancing",
        caught_by: "convergence",
    },
    BugInfo {
        bug: KafkaBug::Kafka8220,
        name: "kafka-8220",
        ticket: "KAFKA-8220",
        title: "Avoid kicking out static group members through rebalance timeout",
        fix: "apache/kafka#6666",
        affected: "classic static membership in trunk before its first release (fixed in \
                   2.3.0-rc1)",
        polarity: Polarity::PreFix,
        side: Side::Coordinator,
        group: Group::Classic,
        symptom: "a static member restarting within its session but after the rebalance timeout \
                  of a rebalance it missed is removed, and its return costs another rebalance",
        acts: "coordinator/src/classic/rebalance.rs: complete_join",
        targeted: "bug-static-restart-misses-rebalance",
        caught_by: "coordinator-answers",
    },
];

impl KafkaBug {
    /// The facts about this bug.
    pub fn info(self) -> &'static BugInfo {
        BUGS.iter()
            .find(|b| b.bug == self)
            .expect("every KafkaBug has an entry in BUGS")
    }

    pub fn name(self) -> &'static str {
        self.info().name
    }

    /// The bug called `name` (as `regroup bugs` lists them).
    pub fn from_name(name: &str) -> Option<KafkaBug> {
        BUGS.iter().find(|b| b.name == name).map(|b| b.bug)
    }
}

impl fmt::Display for KafkaBug {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl Serialize for KafkaBug {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.name())
    }
}

/// The bugs switched on for a run (none: Kafka 4.4.0).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
#[serde(transparent)]
pub struct KafkaBugs(BTreeSet<KafkaBug>);

impl KafkaBugs {
    /// No bug: Kafka 4.4.0 as released.
    pub fn none() -> Self {
        Self::default()
    }

    pub fn of(bugs: impl IntoIterator<Item = KafkaBug>) -> Self {
        Self(bugs.into_iter().collect())
    }

    /// Whether `bug` is switched on: the question every switch asks.
    pub fn on(&self, bug: KafkaBug) -> bool {
        self.0.contains(&bug)
    }

    pub fn insert(&mut self, bug: KafkaBug) {
        self.0.insert(bug);
    }

    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    pub fn iter(&self) -> impl Iterator<Item = KafkaBug> + '_ {
        self.0.iter().copied()
    }

    /// The names, in order.
    pub fn names(&self) -> Vec<&'static str> {
        self.iter().map(KafkaBug::name).collect()
    }

    /// Parses names as `--kafka-bug` takes them; an unknown name is an error naming the known ones.
    pub fn parse<'a>(names: impl IntoIterator<Item = &'a str>) -> Result<Self, String> {
        let mut set = Self::none();
        for name in names {
            let bug = KafkaBug::from_name(name.trim()).ok_or_else(|| {
                format!(
                    "no Kafka bug named {name:?} (known: {})",
                    BUGS.iter().map(|b| b.name).collect::<Vec<_>>().join(", ")
                )
            })?;
            set.insert(bug);
        }
        Ok(set)
    }

    /// The `--kafka-bug NAME` arguments that switch these bugs on (empty for none), with a leading
    /// space, for replay commands.
    pub fn cli_args(&self) -> String {
        self.iter().map(|b| format!(" --kafka-bug {b}")).collect()
    }
}

impl fmt::Display for KafkaBugs {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.is_empty() {
            return f.write_str("none");
        }
        f.write_str(&self.names().join(", "))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_bug_has_one_entry_and_a_well_formed_name() {
        let mut names = BTreeSet::new();
        for b in BUGS {
            assert!(names.insert(b.name), "{} twice", b.name);
            assert_eq!(b.bug.info().name, b.name);
            assert_eq!(b.name, b.ticket.to_lowercase(), "the name is the ticket");
            assert!(
                b.acts.contains(".rs: "),
                "{}: acts names a file and a rule",
                b.name
            );
            assert!(b.targeted.starts_with("bug-"), "{}", b.name);
        }
    }

    #[test]
    fn names_parse_and_unknown_names_are_refused_with_the_known_ones() {
        let set = KafkaBugs::parse(["kafka-9801", "kafka-19233"]).unwrap();
        assert!(set.on(KafkaBug::Kafka9801) && set.on(KafkaBug::Kafka19233));
        assert!(!set.on(KafkaBug::Kafka10284));
        assert_eq!(set.names(), vec!["kafka-19233", "kafka-9801"]);
        assert_eq!(
            set.cli_args(),
            " --kafka-bug kafka-19233 --kafka-bug kafka-9801"
        );
        let err = KafkaBugs::parse(["kafka-1"]).unwrap_err();
        assert!(
            err.contains("\"kafka-1\"") && err.contains("kafka-10284"),
            "{err}"
        );
        assert_eq!(KafkaBugs::none().to_string(), "none");
    }
}
