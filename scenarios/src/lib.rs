//! The scenario catalogue and the pieces of the `regroup` command.
pub mod wire_cli;
