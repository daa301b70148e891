//! The transport the async shells run on. The trait lives in `protocol` (client models need it
//! too); this module re-exports it so the broker slice can say `crate::net`.

pub use protocol::net::{Net, NetListener, TokioListener, TokioNet, client_host, split_host_port};
