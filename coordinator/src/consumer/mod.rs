//! Consumer groups (KIP-848, the "consumer" rebalance protocol driven by ConsumerGroupHeartbeat), as
//! Kafka 4.4.0 runs them. So far only the server-side partition assignors are here ([`assignor`]); the
//! heartbeat, the group state machine and its records come later (issue 21).

pub mod assignor;
