//! The catalogue, one cargo test per scenario: each runs its scenario at seeds 1, 2 and 3,
//! requires it to pass (global invariants, the scenario's own check, its faults injected) and
//! compares the run's summary with the YAML snapshot in `snapshots/<scenario>@seed<N>.snap`.
//!
//! CI runs with `INSTA_UPDATE=no`: a changed summary fails the test. Review an intended change
//! with `cargo insta review` (or `INSTA_UPDATE=always cargo test -p scenarios --test catalogue`
//! and read the diff).

use scenarios::catalogue;
use scenarios::run::run_scenario;

fn check(name: &str) {
    let scenario = catalogue::find(name).unwrap_or_else(|| panic!("no scenario {name}"));
    for seed in 1..=3 {
        let run = run_scenario(&scenario, seed, false).expect("setup");
        assert!(run.passed(), "{}", run.summary());
        insta::with_settings!({
            snapshot_path => "../../snapshots",
            prepend_module_to_snapshot => false,
            omit_expression => true,
        }, {
            insta::assert_yaml_snapshot!(format!("{name}@seed{seed}"), run.summary);
        });
    }
}

macro_rules! scenarios {
    ($($test:ident => $name:literal,)*) => {
        $(
            #[test]
            fn $test() {
                check($name);
            }
        )*

        /// Every scenario of the catalogue has its test here, and nothing else does.
        #[test]
        fn every_catalogue_scenario_has_a_test() {
            let tested = [$($name),*];
            let all: Vec<&str> = catalogue::all().iter().map(|s| s.name).collect();
            assert_eq!(tested.to_vec(), all);
        }
    };
}

scenarios! {
    cold_start_streams => "cold-start-streams",
    cold_start_classic_static => "cold-start-classic-static",
    streams_scale_out => "streams-scale-out",
    streams_scale_in => "streams-scale-in",
    streams_static_rolling_bounce => "streams-static-rolling-bounce",
    streams_dynamic_rolling_bounce => "streams-dynamic-rolling-bounce",
    streams_static_member_away => "streams-static-member-away",
    streams_session_timeout => "streams-session-timeout",
    streams_rebalance_timeout => "streams-rebalance-timeout",
    streams_partition_during_revocation => "streams-partition-during-revocation",
    streams_lost_heartbeat_responses => "streams-lost-heartbeat-responses",
    streams_coordinator_failover_mid_rebalance => "streams-coordinator-failover-mid-rebalance",
    streams_standby_promotion => "streams-standby-promotion",
    streams_missing_source_topic => "streams-missing-source-topic",
    streams_source_partitions_increase => "streams-source-partitions-increase",
    streams_internal_topics => "streams-internal-topics",
    streams_copartitioned_join => "streams-copartitioned-join",
    streams_incorrectly_partitioned_topics => "streams-incorrectly-partitioned-topics",
    streams_shutdown_application => "streams-shutdown-application",
    streams_iq_endpoints => "streams-iq-endpoints",
    streams_max_group_size => "streams-max-group-size",
    streams_stale_topology_epoch => "streams-stale-topology-epoch",
    streams_200_members => "streams-200-members",
    classic_static_rolling_bounce => "classic-static-rolling-bounce",
    classic_dynamic_rolling_bounce => "classic-dynamic-rolling-bounce",
    classic_duplicate_instance_id => "classic-duplicate-instance-id",
    classic_max_group_size => "classic-max-group-size",
    classic_leader_stuck_assignor => "classic-leader-stuck-assignor",
    classic_assignor_vote => "classic-assignor-vote",
    classic_static_leader_bounce => "classic-static-leader-bounce",
    classic_admin_remove_static_member => "classic-admin-remove-static-member",
    classic_static_member_away => "classic-static-member-away",
    classic_coordinator_failover => "classic-coordinator-failover",
    classic_mixed_static_dynamic => "classic-mixed-static-dynamic",
    classic_initial_rebalance_delay => "classic-initial-rebalance-delay",
    consumer_cold_start => "consumer-cold-start",
    consumer_scale_out => "consumer-scale-out",
    consumer_scale_in => "consumer-scale-in",
    consumer_static_rolling_bounce => "consumer-static-rolling-bounce",
    consumer_dynamic_rolling_bounce => "consumer-dynamic-rolling-bounce",
    consumer_static_member_away => "consumer-static-member-away",
    consumer_zombie => "consumer-zombie",
    consumer_stalled_heartbeats => "consumer-stalled-heartbeats",
    consumer_lost_heartbeat_responses => "consumer-lost-heartbeat-responses",
    consumer_coordinator_failover_mid_reconciliation => "consumer-coordinator-failover-mid-reconciliation",
    consumer_mixed_with_classic => "consumer-mixed-with-classic",
    consumer_range_assignor => "consumer-range-assignor",
    consumer_regex_new_topic => "consumer-regex-new-topic",
    consumer_rolling_upgrade => "consumer-rolling-upgrade",
    consumer_rolling_downgrade => "consumer-rolling-downgrade",
    consumer_mixed_members => "consumer-mixed-members",
    broker_heartbeat_lapse => "broker-heartbeat-lapse",
    broker_controlled_shutdown => "broker-controlled-shutdown",
    broker_restart_epoch => "broker-restart-epoch",
    broker_rolling_restart => "broker-rolling-restart",
    offsets_under_min_isr => "offsets-under-min-isr",
    broker_preferred_leader_election => "broker-preferred-leader-election",
    coordinator_crash_streams => "coordinator-crash-streams",
    fenced_coordinator_streams => "fenced-coordinator-streams",
    zombie_process_streams => "zombie-process-streams",
    stalled_heartbeats_streams => "stalled-heartbeats-streams",
    stalled_heartbeats_classic => "stalled-heartbeats-classic",
    controller_crash => "controller-crash",
    silent_coordinator_death => "silent-coordinator-death",
    topic_created_mid_run => "topic-created-mid-run",
    classic_admin_lifecycle => "classic-admin-lifecycle",
    streams_admin_lifecycle => "streams-admin-lifecycle",
    classic_deleted_topic_offsets => "classic-deleted-topic-offsets",
    classic_recreated_topic_offsets => "classic-recreated-topic-offsets",
    classic_offsets_retention => "classic-offsets-retention",
    streams_offsets_retention => "streams-offsets-retention",
    classic_unsubscribed_offsets_expire => "classic-unsubscribed-offsets-expire",
    rude_client => "rude-client",
    rude_corners => "rude-corners",
    rude_standbys => "rude-standbys",
    rude_replicas => "rude-replicas",
    rude_admin => "rude-admin",
    swarm_streams => "swarm-streams",
    swarm_classic_static => "swarm-classic-static",
    swarm_mixed => "swarm-mixed",
    swarm_consumer => "swarm-consumer",
    bug_fenced_member_rejoins => "bug-fenced-member-rejoins",
    bug_last_member_leaves => "bug-last-member-leaves",
    bug_commit_across_epoch_bump => "bug-commit-across-epoch-bump",
    bug_full_group_rejoin => "bug-full-group-rejoin",
    bug_shutdown_on_leave => "bug-shutdown-on-leave",
    bug_leave_bumps_once => "bug-leave-bumps-once",
    bug_static_restart_while_completing => "bug-static-restart-while-completing",
    bug_static_restart_then_failover => "bug-static-restart-then-failover",
    bug_duplicate_instance_while_rebalancing => "bug-duplicate-instance-while-rebalancing",
    bug_static_restart_misses_rebalance => "bug-static-restart-misses-rebalance",
    bug_standby_behind_new_active => "bug-standby-behind-new-active",
    bug_cold_start_not_sticky => "bug-cold-start-not-sticky",
}

/// snapshots/ holds exactly one summary per catalogue scenario and seed 1..=3 (plus its README): a
/// renamed or removed scenario must take its snapshots with it, since `INSTA_UPDATE=no` alone does not
/// notice files no test reads.
#[test]
fn no_unreferenced_snapshots() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../snapshots");
    let mut found: Vec<String> = std::fs::read_dir(&dir)
        .expect("snapshots/")
        .map(|e| e.expect("entry").file_name().to_string_lossy().into_owned())
        .filter(|n| n != "README.md")
        .collect();
    found.sort();
    let mut want: Vec<String> = catalogue::all()
        .iter()
        .flat_map(|s| (1..=3).map(move |seed| format!("{}@seed{seed}.snap", s.name)))
        .collect();
    want.sort();
    assert_eq!(found, want);
}
