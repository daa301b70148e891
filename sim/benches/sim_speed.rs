//! Wall time of the cost workload ([`sim::bench::Workload`]): a streams application with one
//! standby on 3 brokers and a controller under swarm faults (seed 1), 30 simulated seconds.
//! Divide 30 s by the reported time for simulated seconds per wall second; `regroup bench sim`
//! prints that ratio directly for longer runs and other layouts (README, "Simulation").
//!
//! `cargo bench -p sim --bench sim_speed`

use criterion::{Criterion, criterion_group, criterion_main};
use sim::bench::{Timings, Workload};

fn workload(processes: usize, threads: usize, tick_ms: u64) -> Workload {
    Workload {
        processes,
        threads,
        tick_ms,
        sim_ms: 30_000,
        faults: true,
        seed: 1,
        timings: Timings::Catalogue,
    }
}

fn bench(c: &mut Criterion) {
    let mut group = c.benchmark_group("sim_30s_swarm");
    group.sample_size(10);
    for (name, w) in [
        ("20_members_2x10_tick10", workload(2, 10, 10)),
        ("200_members_20x10_tick10", workload(20, 10, 10)),
        ("200_members_20x10_tick1", workload(20, 10, 1)),
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
