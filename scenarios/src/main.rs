//! `regroup`: the command-line entry point.

use clap::{Parser, Subcommand};

/// A deterministic simulation testbed for Kafka group coordination.
#[derive(Parser)]
#[command(name = "regroup", version, about)]
struct Cli {
    #[command(subcommand)]
    command: Option<Command>,
}

#[derive(Subcommand)]
enum Command {
    /// Run Kafka 4.4's sticky task assignor on a JSON group description (see the README).
    Assign(scenarios::assign_cli::AssignArgs),
    /// Drive one coordinator shard from JSON lines (see the README).
    Script(scenarios::script_cli::ScriptArgs),
    /// Run a scenario of the catalogue in the simulator (see the README).
    Run(scenarios::run_cli::RunArgs),
    /// Measure the simulator: simulated seconds per wall second (see the README).
    Bench(scenarios::bench_cli::BenchArgs),
    /// Run a one-node cluster on real TCP for Kafka clients (see the README).
    Serve(scenarios::serve_cli::ServeArgs),
    /// Inspect the Kafka wire format: sample frames of any api regroup serves, decode frames.
    Wire(scenarios::wire_cli::WireArgs),
    /// Compare regroup's coordinator with Apache Kafka 4.4.0's on generated and corpus scripts (see the README).
    Conformance(scenarios::conformance::ConformanceArgs),
}

fn main() {
    let cli = Cli::parse();
    match cli.command {
        None => {
            // The main job introduces the tool: its scenarios and commands.
            println!("regroup {}", env!("CARGO_PKG_VERSION"));
            println!("scenarios (`regroup run <name> [--seed N]`):");
            for s in scenarios::catalogue::all() {
                println!("  {:<28} {}", s.name, s.description);
            }
            println!("commands:");
            let mut cmd = <Cli as clap::CommandFactory>::command();
            for sub in cmd.get_subcommands_mut() {
                let about = sub.get_about().map(|a| a.to_string()).unwrap_or_default();
                println!("  regroup {:<8} {about}", sub.get_name());
            }
            println!("run `regroup <command> --help` for details");
        }
        Some(Command::Assign(args)) => std::process::exit(scenarios::assign_cli::run(&args)),
        Some(Command::Script(args)) => std::process::exit(scenarios::script_cli::run(&args)),
        Some(Command::Run(args)) => std::process::exit(scenarios::run_cli::run(&args)),
        Some(Command::Bench(args)) => std::process::exit(scenarios::bench_cli::run(&args)),
        Some(Command::Serve(args)) => std::process::exit(scenarios::serve_cli::run(&args)),
        Some(Command::Wire(args)) => std::process::exit(scenarios::wire_cli::run(args)),
        Some(Command::Conformance(args)) => std::process::exit(scenarios::conformance::run(&args)),
    }
}
