//! Targeted scenarios of the streams bug switches.

use crate::catalogue::Scenario;

pub fn scenarios() -> Vec<Scenario> {
    vec![]
}
