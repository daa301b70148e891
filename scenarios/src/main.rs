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
    /// Inspect the Kafka wire format: sample frames of any api regroup serves, decode frames.
    Wire(scenarios::wire_cli::WireArgs),
}

fn main() {
    let cli = Cli::parse();
    match cli.command {
        None => {
            println!("regroup {}", env!("CARGO_PKG_VERSION"));
            println!("no scenarios yet; commands: see `regroup --help`");
        }
        Some(Command::Wire(args)) => std::process::exit(scenarios::wire_cli::run(args)),
    }
}
