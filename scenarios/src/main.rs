//! `regroup`: the command-line entry point.

use clap::{Parser, Subcommand};

/// mimalloc instead of the system allocator: a simulated run allocates for every message, and
/// glibc's malloc and free were about 15 % of its time (docs/cost.md). Allocation addresses never
/// reach behaviour, so traces are unchanged.
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

/// A deterministic simulation testbed for Kafka group coordination.
#[derive(Parser)]
#[command(name = "regroup", version, about)]
struct Cli {
    #[command(subcommand)]
    command: Option<Command>,
}

#[derive(Subcommand)]
enum Command {
    /// Run Kafka 4.4's sticky task assignor (streams group) or uniform/range assignor (consumer group,
    /// `"kind":"consumer"`) on a JSON group description (see docs/streams.md, docs/consumer.md).
    Assign(scenarios::assign_cli::AssignArgs),
    /// Drive one coordinator shard from JSON lines (see docs/streams.md).
    Script(scenarios::script_cli::ScriptArgs),
    /// List the scenarios of the catalogue.
    List,
    /// Run a scenario of the catalogue in the simulator (see docs/simulation.md).
    Run(scenarios::run_cli::RunArgs),
    /// Run scenarios over a range of seeds in parallel (see docs/scenarios.md).
    Sweep(scenarios::sweep::SweepArgs),
    /// Re-run a failure file written by `regroup sweep --out DIR` or `regroup shrink`.
    Replay(scenarios::sweep::ReplayArgs),
    /// Shrink a failure file to a smaller run that fails the same way (see docs/scenarios.md).
    Shrink(scenarios::shrink_cli::ShrinkArgs),
    /// Measure the simulator: simulated seconds per wall second (see docs/cost.md).
    Bench(scenarios::bench_cli::BenchArgs),
    /// List the Kafka bug switches (see docs/bug-zoo.md).
    Bugs(scenarios::bugs_cli::BugsArgs),
    /// Measure how the simulator finds each Kafka bug switch, targeted and blind (see docs/bug-zoo.md).
    Zoo(scenarios::zoo_cli::ZooArgs),
    /// Run a scenario's clients and faults against a real cluster, in real time (see docs/real-kafka.md).
    Drive(scenarios::drive_cli::DriveArgs),
    /// Run a one-node cluster on real TCP for Kafka clients (see docs/broker.md).
    Serve(scenarios::serve_cli::ServeArgs),
    /// Inspect the Kafka wire format: sample frames of any api regroup serves, decode frames.
    Wire(scenarios::wire_cli::WireArgs),
    /// Compare regroup's coordinator with Apache Kafka 4.4.0's on generated and corpus scripts (see docs/oracle.md).
    Conformance(scenarios::conformance::ConformanceArgs),
}

fn main() {
    let cli = Cli::parse();
    match cli.command {
        // The main job: every scenario at seeds 1..=3, then the table.
        None => std::process::exit(scenarios::sweep::main_job()),
        Some(Command::List) => print!("{}", scenarios::sweep::list()),
        Some(Command::Sweep(args)) => std::process::exit(scenarios::sweep::sweep(&args)),
        Some(Command::Replay(args)) => std::process::exit(scenarios::sweep::replay(&args)),
        Some(Command::Shrink(args)) => std::process::exit(scenarios::shrink_cli::run(&args)),
        Some(Command::Assign(args)) => std::process::exit(scenarios::assign_cli::run(&args)),
        Some(Command::Script(args)) => std::process::exit(scenarios::script_cli::run(&args)),
        Some(Command::Run(args)) => std::process::exit(scenarios::run_cli::run(&args)),
        Some(Command::Bugs(args)) => std::process::exit(scenarios::bugs_cli::run(&args)),
        Some(Command::Zoo(args)) => std::process::exit(scenarios::zoo_cli::run(&args)),
        Some(Command::Bench(args)) => std::process::exit(scenarios::bench_cli::run(&args)),
        Some(Command::Drive(args)) => std::process::exit(scenarios::drive_cli::run(&args)),
        Some(Command::Serve(args)) => std::process::exit(scenarios::serve_cli::run(&args)),
        Some(Command::Wire(args)) => std::process::exit(scenarios::wire_cli::run(args)),
        Some(Command::Conformance(args)) => std::process::exit(scenarios::conformance::run(&args)),
    }
}
