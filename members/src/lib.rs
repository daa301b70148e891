//! regroup's client models: streams processes, classic consumers and admin operations that speak the wire.
