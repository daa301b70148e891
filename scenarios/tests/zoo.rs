//! Every Kafka bug switch is found by its targeted scenario: with the switch off (Kafka 4.4.0) the
//! scenario passes; with it on, the run fails, and the first violation is the invariant or check
//! the bug's entry names (`caught_by`). One test per switch, so a failure names the bug.

use kafka_bugs::{BUGS, KafkaBug, KafkaBugs};
use scenarios::catalogue;
use scenarios::run::{Verdict, run_scenario_with};

fn targeted(bug: KafkaBug) {
    let info = bug.info();
    let scenario = catalogue::find(info.targeted)
        .unwrap_or_else(|| panic!("{}: no scenario {}", info.name, info.targeted));
    let seed = scenario.default_seed;
    let off = run_scenario_with(&scenario, seed, false, &KafkaBugs::none()).expect("setup");
    assert_eq!(
        off.verdict(),
        Verdict::Passed,
        "{} without the switch:\n{}",
        info.targeted,
        off.summary()
    );
    let on = run_scenario_with(&scenario, seed, false, &KafkaBugs::of([bug])).expect("setup");
    assert_eq!(
        on.verdict(),
        Verdict::Failed,
        "{} with {} on:\n{}",
        info.targeted,
        info.name,
        on.summary()
    );
    let first = on.violations.first().expect("a failed run has a violation");
    assert_eq!(
        first.invariant.name(),
        info.caught_by,
        "{} with {} on:\n{}",
        info.targeted,
        info.name,
        on.summary()
    );
}

macro_rules! bugs {
    ($($test:ident => $bug:expr,)*) => {
        $(
            #[test]
            fn $test() {
                targeted($bug);
            }
        )*

        /// Every switch has its test here.
        #[test]
        fn every_switch_has_a_targeted_test() {
            let tested = [$($bug),*];
            for b in BUGS {
                assert!(tested.contains(&b.bug), "{} has no targeted test", b.name);
            }
        }
    };
}

bugs! {
    kafka_19233 => KafkaBug::Kafka19233,
    kafka_20442 => KafkaBug::Kafka20442,
    kafka_19779 => KafkaBug::Kafka19779,
    kafka_20169 => KafkaBug::Kafka20169,
    kafka_19190 => KafkaBug::Kafka19190,
    kafka_19661 => KafkaBug::Kafka19661,
    kafka_9801 => KafkaBug::Kafka9801,
    kafka_10284 => KafkaBug::Kafka10284,
    kafka_20899 => KafkaBug::Kafka20899,
    kafka_20719 => KafkaBug::Kafka20719,
    kafka_8500 => KafkaBug::Kafka8500,
    kafka_8220 => KafkaBug::Kafka8220,
}
