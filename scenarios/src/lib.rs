//! The scenario catalogue and the pieces of the `regroup` command.
