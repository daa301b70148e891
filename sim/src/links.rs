//! The link faults in force, counted, so that overlapping faults on one link compose.
//!
//! turmoil keeps one state per direction of a link (healthy, partitioned or held) and one latency
//! and failure rate per link: a second fault on a link overwrites the first, and healing either
//! undoes both (releasing a pause reopened a link an isolation still cut; healing one fencing of a
//! broker ended another one still in force). The runner applies every link fault through
//! [`LinkFaults`], which counts what is in force on each direction and tells turmoil only when the
//! effective state changes: a direction is cut while any cut covers it, otherwise held while any
//! hold covers it, otherwise healthy; a link's latency is the largest of the latency faults in force
//! (the cluster's own when none), and its failure rate the largest rate in force (0 when none). A
//! schedule without overlapping faults makes exactly the turmoil calls it made before.

use std::collections::BTreeMap;

/// What one direction of a link is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
enum Flow {
    #[default]
    Healthy,
    Held,
    Cut,
}

/// The faults in force on one link (an unordered host pair `lo < hi`).
#[derive(Debug, Clone, Default)]
struct Link {
    /// Cuts of lo -> hi and hi -> lo (a two-way cut counts in both).
    cuts: [u32; 2],
    /// Holds (always both ways).
    holds: u32,
    /// What turmoil was last told, per direction.
    applied: [Flow; 2],
    /// Latency faults in force (max ms each).
    latencies: Vec<u64>,
    /// Failure-rate faults in force.
    fail_rates: Vec<f64>,
}

impl Link {
    fn wanted(&self, dir: usize) -> Flow {
        if self.cuts[dir] > 0 {
            Flow::Cut
        } else if self.holds > 0 {
            Flow::Held
        } else {
            Flow::Healthy
        }
    }
}

/// One change of a link's state to make in turmoil; [`LinkFaults`] returns them in order and the
/// caller applies them ([`apply`]), which keeps this module testable without a simulation.
#[derive(Debug, Clone, PartialEq)]
pub enum LinkCall {
    Partition(String, String),
    PartitionOneway(String, String),
    Repair(String, String),
    RepairOneway(String, String),
    Hold(String, String),
    Release(String, String),
    Latency(String, String, u64),
    FailRate(String, String, f64),
}

/// Counts of the link faults in force; see the module documentation.
#[derive(Debug, Clone)]
pub struct LinkFaults {
    links: BTreeMap<(String, String), Link>,
    /// The cluster's own latency, restored when no latency fault is in force.
    default_latency_ms: u64,
}

impl LinkFaults {
    pub fn new(default_latency_ms: u64) -> Self {
        Self {
            links: BTreeMap::new(),
            default_latency_ms,
        }
    }

    /// The link of `a` and `b` and the direction index of `a -> b`.
    fn link(&mut self, a: &str, b: &str) -> (&mut Link, usize, (String, String)) {
        let (key, dir) = if a < b {
            ((a.to_string(), b.to_string()), 0)
        } else {
            ((b.to_string(), a.to_string()), 1)
        };
        (self.links.entry(key.clone()).or_default(), dir, key)
    }

    /// Brings turmoil's state of `key` to what the counts want.
    fn settle(link: &mut Link, key: &(String, String)) -> Vec<LinkCall> {
        let (lo, hi) = (key.0.clone(), key.1.clone());
        let ends = |dir: usize| {
            if dir == 0 {
                (lo.clone(), hi.clone())
            } else {
                (hi.clone(), lo.clone())
            }
        };
        let wanted = [link.wanted(0), link.wanted(1)];
        if wanted == link.applied {
            return Vec::new();
        }
        let mut calls = Vec::new();
        // A change to or from a hold acts on both directions in turmoil: do it first, then put a
        // direction that must stay or become cut back to cut.
        let both = |f: Flow| wanted == [f, f];
        if both(Flow::Cut)
            && link.applied != [Flow::Cut, Flow::Cut]
            && link.applied[0] == link.applied[1]
        {
            calls.push(LinkCall::Partition(lo.clone(), hi.clone()));
        } else if both(Flow::Healthy) && link.applied == [Flow::Cut, Flow::Cut] {
            calls.push(LinkCall::Repair(lo.clone(), hi.clone()));
        } else if wanted.contains(&Flow::Held) && !link.applied.contains(&Flow::Held) {
            calls.push(LinkCall::Hold(lo.clone(), hi.clone()));
            for (dir, w) in wanted.iter().enumerate() {
                if *w == Flow::Cut {
                    let (f, t) = ends(dir);
                    calls.push(LinkCall::PartitionOneway(f, t));
                }
            }
        } else if link.applied.contains(&Flow::Held) && !wanted.contains(&Flow::Held) {
            calls.push(LinkCall::Release(lo.clone(), hi.clone()));
            for (dir, w) in wanted.iter().enumerate() {
                if *w == Flow::Cut {
                    let (f, t) = ends(dir);
                    calls.push(LinkCall::PartitionOneway(f, t));
                }
            }
        } else {
            for (dir, (&applied, &want)) in link.applied.iter().zip(&wanted).enumerate() {
                if want == applied {
                    continue;
                }
                let (f, t) = ends(dir);
                match (applied, want) {
                    (_, Flow::Cut) => calls.push(LinkCall::PartitionOneway(f, t)),
                    (Flow::Cut, Flow::Healthy) => calls.push(LinkCall::RepairOneway(f, t)),
                    (Flow::Cut, Flow::Held) => {
                        // The other direction is held too (a hold covers both): hold again.
                        calls.push(LinkCall::Hold(lo.clone(), hi.clone()));
                    }
                    _ => {}
                }
            }
        }
        link.applied = wanted;
        calls
    }

    fn cut_dirs(&mut self, a: &str, b: &str, both: bool, add: bool) -> Vec<LinkCall> {
        let (link, dir, key) = self.link(a, b);
        for d in 0..2 {
            if d == dir || both {
                if add {
                    link.cuts[d] += 1;
                } else {
                    link.cuts[d] = link.cuts[d].saturating_sub(1);
                }
            }
        }
        Self::settle(link, &key)
    }

    /// A two-way cut of `a` and `b` comes into force.
    pub fn cut(&mut self, a: &str, b: &str) -> Vec<LinkCall> {
        self.cut_dirs(a, b, true, true)
    }

    /// A two-way cut of `a` and `b` ends.
    pub fn uncut(&mut self, a: &str, b: &str) -> Vec<LinkCall> {
        self.cut_dirs(a, b, true, false)
    }

    /// A cut of `from -> to` comes into force.
    pub fn cut_oneway(&mut self, from: &str, to: &str) -> Vec<LinkCall> {
        self.cut_dirs(from, to, false, true)
    }

    /// A cut of `from -> to` ends.
    pub fn uncut_oneway(&mut self, from: &str, to: &str) -> Vec<LinkCall> {
        self.cut_dirs(from, to, false, false)
    }

    /// A hold of the link comes into force.
    pub fn hold(&mut self, a: &str, b: &str) -> Vec<LinkCall> {
        let (link, _, key) = self.link(a, b);
        link.holds += 1;
        Self::settle(link, &key)
    }

    /// A hold of the link ends (its messages are delivered once nothing else holds or cuts it).
    pub fn release(&mut self, a: &str, b: &str) -> Vec<LinkCall> {
        let (link, _, key) = self.link(a, b);
        link.holds = link.holds.saturating_sub(1);
        Self::settle(link, &key)
    }

    /// A latency fault of at most `max_ms` comes into force.
    pub fn add_latency(&mut self, a: &str, b: &str, max_ms: u64) -> Vec<LinkCall> {
        let (link, _, _) = self.link(a, b);
        let before = link.latencies.iter().copied().max();
        link.latencies.push(max_ms);
        let after = link.latencies.iter().copied().max();
        if before == after {
            return Vec::new();
        }
        vec![LinkCall::Latency(a.to_string(), b.to_string(), max_ms)]
    }

    /// A latency fault of `max_ms` ends.
    pub fn remove_latency(&mut self, a: &str, b: &str, max_ms: u64) -> Vec<LinkCall> {
        let default = self.default_latency_ms;
        let (link, _, _) = self.link(a, b);
        let before = link.latencies.iter().copied().max();
        if let Some(i) = link.latencies.iter().position(|l| *l == max_ms) {
            link.latencies.remove(i);
        }
        let after = link.latencies.iter().copied().max();
        if before == after {
            return Vec::new();
        }
        vec![LinkCall::Latency(
            a.to_string(),
            b.to_string(),
            after.unwrap_or(default),
        )]
    }

    /// A failure-rate fault comes into force.
    pub fn add_fail_rate(&mut self, a: &str, b: &str, rate: f64) -> Vec<LinkCall> {
        let (link, _, _) = self.link(a, b);
        let before = max_rate(&link.fail_rates);
        link.fail_rates.push(rate);
        if before == max_rate(&link.fail_rates) {
            return Vec::new();
        }
        vec![LinkCall::FailRate(a.to_string(), b.to_string(), rate)]
    }

    /// A failure-rate fault ends.
    pub fn remove_fail_rate(&mut self, a: &str, b: &str, rate: f64) -> Vec<LinkCall> {
        let (link, _, _) = self.link(a, b);
        let before = max_rate(&link.fail_rates);
        if let Some(i) = link.fail_rates.iter().position(|r| *r == rate) {
            link.fail_rates.remove(i);
        }
        let after = max_rate(&link.fail_rates);
        if before == after {
            return Vec::new();
        }
        vec![LinkCall::FailRate(
            a.to_string(),
            b.to_string(),
            after.unwrap_or(0.0),
        )]
    }
}

fn max_rate(rates: &[f64]) -> Option<f64> {
    rates.iter().copied().reduce(f64::max)
}

/// Makes `calls` in turmoil.
pub fn apply(sim: &mut turmoil::Sim<'_>, calls: Vec<LinkCall>) {
    for c in calls {
        match c {
            LinkCall::Partition(a, b) => sim.partition(a.as_str(), b.as_str()),
            LinkCall::PartitionOneway(a, b) => sim.partition_oneway(a.as_str(), b.as_str()),
            LinkCall::Repair(a, b) => sim.repair(a.as_str(), b.as_str()),
            LinkCall::RepairOneway(a, b) => sim.repair_oneway(a.as_str(), b.as_str()),
            LinkCall::Hold(a, b) => sim.hold(a.as_str(), b.as_str()),
            LinkCall::Release(a, b) => sim.release(a.as_str(), b.as_str()),
            LinkCall::Latency(a, b, ms) => sim.set_link_max_message_latency(
                a.as_str(),
                b.as_str(),
                std::time::Duration::from_millis(ms),
            ),
            LinkCall::FailRate(a, b, rate) => sim.set_link_fail_rate(a.as_str(), b.as_str(), rate),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use LinkCall::*;

    fn s(a: &str, b: &str) -> (String, String) {
        (a.to_string(), b.to_string())
    }

    #[test]
    fn one_fault_at_a_time_makes_the_same_calls_as_before() {
        let mut l = LinkFaults::new(18);
        let (a, b) = s("broker-1", "controller");
        assert_eq!(
            l.cut("broker-1", "controller"),
            vec![Partition(a.clone(), b.clone())]
        );
        assert_eq!(
            l.uncut("broker-1", "controller"),
            vec![Repair(a.clone(), b.clone())]
        );
        assert_eq!(
            l.hold("controller", "broker-1"),
            vec![Hold(a.clone(), b.clone())]
        );
        assert_eq!(
            l.release("controller", "broker-1"),
            vec![Release(a.clone(), b.clone())]
        );
        assert_eq!(
            l.cut_oneway("controller", "broker-1"),
            vec![PartitionOneway(b.clone(), a.clone())]
        );
        assert_eq!(
            l.uncut_oneway("controller", "broker-1"),
            vec![RepairOneway(b.clone(), a.clone())]
        );
        assert_eq!(
            l.add_latency("x", "y", 30),
            vec![Latency("x".into(), "y".into(), 30)]
        );
        assert_eq!(
            l.remove_latency("x", "y", 30),
            vec![Latency("x".into(), "y".into(), 18)]
        );
        assert_eq!(
            l.add_fail_rate("x", "y", 0.1),
            vec![FailRate("x".into(), "y".into(), 0.1)]
        );
        assert_eq!(
            l.remove_fail_rate("x", "y", 0.1),
            vec![FailRate("x".into(), "y".into(), 0.0)]
        );
    }

    #[test]
    fn overlapping_faults_on_a_link_end_only_when_the_last_one_does() {
        let mut l = LinkFaults::new(18);
        let (a, b) = s("app-0", "broker-2");
        // An isolation cuts the link; a pause of app-0 then holds it: it stays cut.
        assert_eq!(
            l.cut("app-0", "broker-2"),
            vec![Partition(a.clone(), b.clone())]
        );
        assert_eq!(l.hold("app-0", "broker-2"), vec![]);
        // The pause heals while the isolation lasts: nothing reopens.
        assert_eq!(l.release("app-0", "broker-2"), vec![]);
        assert_eq!(
            l.uncut("app-0", "broker-2"),
            vec![Repair(a.clone(), b.clone())]
        );
        // Two fencings of one broker: the first heal leaves it cut off.
        l.cut("broker-1", "controller");
        assert_eq!(l.cut("broker-1", "controller"), vec![]);
        assert_eq!(l.uncut("broker-1", "controller"), vec![]);
        assert_eq!(
            l.uncut("broker-1", "controller"),
            vec![Repair("broker-1".into(), "controller".into())]
        );
        // A hold, then a cut, then the hold ends: the link stays cut, and repairs when the cut ends.
        l.hold("p", "q");
        assert_eq!(l.cut("p", "q"), vec![Partition("p".into(), "q".into())]);
        assert_eq!(l.release("p", "q"), vec![]);
        assert_eq!(l.uncut("p", "q"), vec![Repair("p".into(), "q".into())]);
        // A hold under a one-way cut: releasing the hold keeps the cut direction cut.
        l.cut_oneway("q", "p");
        l.hold("p", "q");
        assert_eq!(
            l.release("p", "q"),
            vec![
                Release("p".into(), "q".into()),
                PartitionOneway("q".into(), "p".into())
            ]
        );
        // Latencies: the largest in force applies, the cluster's own when none is.
        assert_eq!(
            l.add_latency("x", "y", 10),
            vec![Latency("x".into(), "y".into(), 10)]
        );
        assert_eq!(
            l.add_latency("x", "y", 30),
            vec![Latency("x".into(), "y".into(), 30)]
        );
        assert_eq!(
            l.remove_latency("x", "y", 30),
            vec![Latency("x".into(), "y".into(), 10)]
        );
        assert_eq!(
            l.remove_latency("x", "y", 10),
            vec![Latency("x".into(), "y".into(), 18)]
        );
    }
}
