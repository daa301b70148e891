//! The sticky task assignor of Kafka 4.4 (`StickyTaskAssignor`), with Java's iteration and tie-break
//! orders emulated so that outputs equal Kafka's for identical inputs.
