//! regroup's broker slice: group coordinator shards (streams and classic groups), the KRaft controller, the broker shell.
