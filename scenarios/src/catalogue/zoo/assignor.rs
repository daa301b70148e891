//! Targeted scenarios of the assignor bug switches.

use crate::catalogue::Scenario;

pub fn scenarios() -> Vec<Scenario> {
    vec![]
}
