//! The scenario catalogue and the pieces of the `regroup` command.

pub mod assign_cli;
pub mod assignor_oracle;
pub mod bench_cli;
pub mod bugs_cli;
pub mod catalogue;
pub mod conformance;
pub mod consumer_assign_cli;
pub mod coverage;
pub mod drive_cli;
pub mod html;
pub mod run;
pub mod run_cli;
pub mod script;
pub mod script_cli;
pub mod serve_cli;
pub mod shard;
pub mod shrink;
pub mod shrink_cli;
pub mod summary;
pub mod sweep;
pub mod wire_cli;
pub mod zoo_cli;
