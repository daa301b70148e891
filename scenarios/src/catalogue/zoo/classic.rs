//! Targeted scenarios of the classic bug switches.

use crate::catalogue::Scenario;

pub fn scenarios() -> Vec<Scenario> {
    vec![]
}
