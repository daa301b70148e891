//! Wall time of the cost workload ([`sim::bench::Workload`]): a streams application with one
//! standby on 3 brokers and a controller under swarm faults (seed 1), at least 30 simulated
//! seconds (runs with Kafka's timings last until the group converged again, about 365 s).
//! `regroup bench sim` prints simulated seconds per wall second directly, for longer runs and
//! other layouts (docs/cost.md); this is the criterion version, for regressions.
//!
//! `cargo bench -p sim --bench sim_speed`

use criterion::{Criterion, criterion_group, criterion_main};
use sim::bench::{Timings, Workload};

fn workload(processes: usize, threads: usize, tick_ms: u64, timings: Timings) -> Workload {
    Workload {
        processes,
        threads,
        tick_ms,
        sim_ms: 30_000,
        faults: true,
        seed: 1,
        timings,
    }
}

fn bench(c: &mut Criterion) {
    let mut group = c.benchmark_group("sim_swarm");
    group.sample_size(10);
    for (name, w) in [
        (
            "20_members_2x10_tick20_catalogue",
            workload(2, 10, 20, Timings::Catalogue),
        ),
        (
            "200_members_20x10_tick20_catalogue",
            workload(20, 10, 20, Timings::Catalogue),
        ),
        (
            "200_members_20x10_tick20_kafka",
            workload(20, 10, 20, Timings::Kafka),
        ),
        (
            "200_members_20x10_tick10_kafka",
            workload(20, 10, 10, Timings::Kafka),
        ),
    ] {
        group.bench_function(name, |b| {
            b.iter(|| {
                let (spec, schedule, options) = w.prepare();
                let outcome = sim::runner::run(spec, schedule, &options).expect("setup");
                assert!(outcome.passed, "{:?}", outcome.violations);
                outcome.events
            })
        });
    }
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
