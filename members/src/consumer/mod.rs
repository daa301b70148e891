//! Consumers speaking the consumer rebalance protocol (KIP-848, `group.protocol=consumer`): Kafka's
//! `AsyncKafkaConsumer` with its `ConsumerHeartbeatRequestManager`, `ConsumerMembershipManager` and
//! `CommitRequestManager`.

pub mod config;
pub mod errors;
mod member;
pub mod membership;

pub use config::AsyncConsumerConfig;
pub use member::AsyncConsumer;
pub use membership::{Membership, ReconcilePlan, ReconcileStep};
