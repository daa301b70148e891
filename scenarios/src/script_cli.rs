//! `regroup script [FILE|-]`: the command-line front of [`crate::script`].

use std::io::{BufReader, Write};

use crate::script::{EXIT_INVALID_INPUT, run_script};

/// Arguments of `regroup script`.
#[derive(Debug, clap::Args)]
pub struct ScriptArgs {
    /// Script file, or `-` (the default) for standard input.
    #[arg(default_value = "-")]
    pub input: String,
}

/// Runs the command; returns the process exit status.
pub fn run(args: &ScriptArgs) -> i32 {
    let stdout = std::io::stdout();
    let mut out = stdout.lock();
    let result = if args.input == "-" {
        run_script(std::io::stdin().lock(), &mut out)
    } else {
        match std::fs::File::open(&args.input) {
            Ok(f) => run_script(BufReader::new(f), &mut out),
            Err(e) => {
                eprintln!("regroup script: cannot open {}: {e}", args.input);
                return EXIT_INVALID_INPUT;
            }
        }
    };
    let _ = out.flush();
    match result {
        Ok(()) => 0,
        Err(e) => {
            eprintln!("regroup script: {e}");
            EXIT_INVALID_INPUT
        }
    }
}
