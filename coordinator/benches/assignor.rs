//! The sticky task assignor at 10/100/1000 members x 100/1,000/10,000 tasks, one standby replica.
//!
//! The inputs are the ones `dev.regroup.oracle.AssignorBench` (conformance/oracle) gives Kafka 4.4.0's
//! StickyTaskAssignor, so the two can be compared side by side:
//! * 10 stateful subtopologies "0".."9" with tasks/10 tasks each, `num.standby.replicas` = 1;
//! * member i has id `format!("{:016x}", mix(i))` and runs in process i / 2 (two members per process,
//!   process id `format!("{:016x}", mix(1_000_000 + j))`), members listed in order of i;
//! * cold: no member owns anything; warm: every member owns what the cold run gave it.
//!
//! Each iteration is one `assign` call including freeing its result (the Java side leaves that to the
//! garbage collector, mostly outside its timings).
//!
//! Profiling mode: `ASSIGNOR_LOOP=cold/1000x100:2000 target/release/deps/assignor-*` runs one case that many
//! times and exits, for `perf record` or for CPU time with `perf stat -e task-clock` (steadier than wall
//! time on a machine shared with other work).
//!
//! `cargo bench -p coordinator --bench assignor`; medians are in
//! target/criterion/assignor/<cold|warm>/<members>x<tasks>/new/estimates.json.

use std::time::Duration;

use coordinator::streams::assignor::{
    AssignmentConfigs, GroupSpec, MemberSpec, TopologyDescriber, assign,
};
use criterion::{BenchmarkId, Criterion, criterion_group};

/// SplitMix64's output function: spreads consecutive integers into unrelated-looking ids.
fn mix(x: u64) -> u64 {
    let mut z = x.wrapping_add(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

fn topology(tasks: i32) -> TopologyDescriber {
    TopologyDescriber::new((0..10).map(|s| (s.to_string(), tasks / 10, true)))
}

fn cold_group(members: u64) -> GroupSpec {
    GroupSpec {
        members: (0..members)
            .map(|i| {
                MemberSpec::new(
                    format!("{:016x}", mix(i)),
                    format!("{:016x}", mix(1_000_000 + i / 2)),
                )
            })
            .collect(),
        configs: AssignmentConfigs {
            num_standby_replicas: 1,
            ..AssignmentConfigs::default()
        },
    }
}

fn warm_group(cold: &GroupSpec, topology: &TopologyDescriber) -> GroupSpec {
    let result = assign(cold, topology).expect("cold assignment");
    let mut warm = cold.clone();
    for m in &mut warm.members {
        let given = result.get(&m.member_id).expect("every member is assigned");
        m.active_tasks = given.active().to_tasks();
        m.standby_tasks = given.standby().to_tasks();
    }
    warm
}

fn bench(c: &mut Criterion) {
    let mut group = c.benchmark_group("assignor");
    group.warm_up_time(Duration::from_secs(1));
    group.measurement_time(Duration::from_secs(3));
    group.sample_size(30);
    for members in [10u64, 100, 1000] {
        for tasks in [100i32, 1_000, 10_000] {
            let topology = topology(tasks);
            let cold = cold_group(members);
            let warm = warm_group(&cold, &topology);
            let id = format!("{members}x{tasks}");
            group.bench_with_input(BenchmarkId::new("cold", &id), &cold, |b, g| {
                b.iter(|| assign(g, &topology))
            });
            group.bench_with_input(BenchmarkId::new("warm", &id), &warm, |b, g| {
                b.iter(|| assign(g, &topology))
            });
        }
    }
    group.finish();
}

criterion_group!(benches, bench);

fn main() {
    if let Ok(spec) = std::env::var("ASSIGNOR_LOOP") {
        let parsed = spec.split_once(':').and_then(|(case, n)| {
            let (kind, size) = case.split_once('/')?;
            let (m, t) = size.split_once('x')?;
            Some((
                kind == "warm",
                m.parse().ok()?,
                t.parse().ok()?,
                n.parse::<u32>().ok()?,
            ))
        });
        let (warm, members, tasks, n) =
            parsed.expect("ASSIGNOR_LOOP=<cold|warm>/<members>x<tasks>:<iterations>");
        let topology = topology(tasks);
        let cold = cold_group(members);
        let g = if warm {
            warm_group(&cold, &topology)
        } else {
            cold
        };
        for _ in 0..n {
            std::hint::black_box(assign(&g, &topology)).ok();
        }
        return;
    }
    benches();
    Criterion::default().configure_from_args().final_summary();
}
