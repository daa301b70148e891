//! `--assignor-oracle`: every streams target assignment a run's brokers computed, checked against
//! Kafka 4.4.0's own `StickyTaskAssignor` on the same input.
//!
//! The run records each call of the assignor ([`sim::assignor_log`]); after the run every distinct
//! input goes, in the `regroup assign` format, to the oracle's `Assign --lines -` (Kafka's class
//! from the released jar, `conformance/oracle`), one JVM per thread kept for the whole process.
//! The first call whose output differs from Kafka's fails the run with the invariant
//! `assignor-oracle`, naming when it was computed, both outputs and the input, which `regroup
//! assign` and the oracle's `Assign` reproduce on their own.
//!
//! This is the check the bug zoo's two assignor bugs needed (KAFKA-20899, KAFKA-20719): their
//! assignments are valid, balanced and converge, only less sticky than Kafka's, and no property of
//! an output alone says "as sticky as Kafka" (docs/bug-zoo.md). The inputs the simulator produces
//! under faults are the ones random inputs rarely reach. It needs Java 17+ and the oracle built
//! (`mvn -f conformance/oracle/pom.xml package -DskipTests`).

use std::cell::RefCell;
use std::collections::BTreeMap;
use std::io::{BufRead, BufReader, Write};
use std::process::{Child, ChildStdin, ChildStdout};
use std::sync::OnceLock;
use std::sync::atomic::{AtomicBool, Ordering};

use sim::assignor_log::AssignorCall;
use sim::invariants::{Invariant, Violation};

use crate::assign_cli::{input_json, output_json};
use crate::conformance::oracle::{ASSIGN_MAIN, Oracle};

static ORACLE: OnceLock<Oracle> = OnceLock::new();
/// Whether runs are checked now (`regroup zoo` checks its blind runs, not its targeted ones).
static ACTIVE: AtomicBool = AtomicBool::new(false);

thread_local! {
    static PROCESS: RefCell<Option<AssignProcess>> = const { RefCell::new(None) };
}

/// Turns the check on for every run of this process: runs record their assignor calls and
/// [`check`] asks `oracle`. Calling it again keeps the first oracle.
pub fn enable(oracle: Oracle) {
    let _ = ORACLE.set(oracle);
    ACTIVE.store(true, Ordering::SeqCst);
}

/// Checks runs from now on (`true`, once enabled) or not (`false`).
pub fn set_active(active: bool) {
    ACTIVE.store(active && ORACLE.get().is_some(), Ordering::SeqCst);
}

/// `--assignor-oracle`: turns the check on with the oracle Maven built in `conformance/oracle`;
/// the reason when it is not built (the caller exits 2 with it).
pub fn enable_default() -> Result<(), String> {
    let oracle = Oracle::from_build(&crate::conformance::oracle::default_oracle_dir(), None)?;
    enable(oracle);
    Ok(())
}

/// Whether runs are checked now ([`enable`] was called, and not paused by [`set_active`]).
pub fn enabled() -> bool {
    ACTIVE.load(Ordering::SeqCst)
}

/// The oracle's `Assign --lines -`, asked one input at a time.
struct AssignProcess {
    child: Child,
    stdin: ChildStdin,
    stdout: BufReader<ChildStdout>,
}

impl AssignProcess {
    fn start(oracle: &Oracle) -> Result<Self, String> {
        let mut child = oracle.spawn(ASSIGN_MAIN, &["--lines", "-"])?;
        let stdin = child
            .stdin
            .take()
            .ok_or("the oracle has no standard input")?;
        let stdout = child
            .stdout
            .take()
            .ok_or("the oracle has no standard output")?;
        Ok(Self {
            child,
            stdin,
            stdout: BufReader::new(stdout),
        })
    }

    fn ask(&mut self, input: &str) -> Result<String, String> {
        writeln!(self.stdin, "{input}")
            .and_then(|()| self.stdin.flush())
            .map_err(|e| format!("cannot write to the assignor oracle: {e}"))?;
        let mut line = String::new();
        let n = self
            .stdout
            .read_line(&mut line)
            .map_err(|e| format!("cannot read from the assignor oracle: {e}"))?;
        if n == 0 {
            return Err("the assignor oracle exited".into());
        }
        Ok(line.trim_end().to_string())
    }
}

impl Drop for AssignProcess {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Kafka's output for `input`, from this thread's oracle process (started on first use; a
/// process that failed is started again for the next question).
fn ask(oracle: &Oracle, input: &str) -> Result<String, String> {
    PROCESS.with(|cell| {
        let mut slot = cell.borrow_mut();
        if slot.is_none() {
            *slot = Some(AssignProcess::start(oracle)?);
        }
        let answer = slot.as_mut().expect("started above").ask(input);
        if answer.is_err() {
            *slot = None;
        }
        answer
    })
}

/// The first of `calls` whose output differs from Kafka's, as a violation; `None` when every one
/// agrees or the check is off. An oracle that cannot answer fails the run too (a check that did
/// not run is never a pass).
pub fn check(calls: &[AssignorCall]) -> Option<Violation> {
    if !enabled() {
        return None;
    }
    let oracle = ORACLE.get()?;
    check_with(calls, |input| ask(oracle, input))
}

/// [`check`] against any source of Kafka's answers (tests use a fake one).
pub fn check_with(
    calls: &[AssignorCall],
    mut kafka: impl FnMut(&str) -> Result<String, String>,
) -> Option<Violation> {
    let mut asked: BTreeMap<String, String> = BTreeMap::new();
    for call in calls {
        let input = input_json(&call.group, &call.topology);
        let ours = output_json(&call.result);
        let theirs = match asked.get(&input) {
            Some(answer) => answer.clone(),
            None => match kafka(&input) {
                Ok(answer) => {
                    asked.insert(input.clone(), answer.clone());
                    answer
                }
                Err(reason) => {
                    return Some(Violation::new(
                        Invariant::AssignorOracle,
                        call.at_ms,
                        format!("the assignor oracle could not answer: {reason}"),
                    ));
                }
            },
        };
        if theirs != ours {
            return Some(Violation::new(
                Invariant::AssignorOracle,
                call.at_ms,
                format!(
                    "a streams target assignment for {} members differs from Kafka 4.4.0's \
                     StickyTaskAssignor on the same input: regroup {ours}, Kafka {theirs}; input \
                     {input}",
                    call.group.members.len()
                ),
            ));
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;
    use coordinator::streams::assignor::{
        GroupSpec, MemberSpec, StickyTaskAssignor, TaskAssignor, TopologyDescriber,
    };

    fn call(at_ms: i64, members: &[&str]) -> AssignorCall {
        let group = GroupSpec {
            members: members
                .iter()
                .map(|m| MemberSpec::new(*m, format!("p-{m}")))
                .collect(),
            configs: Default::default(),
        };
        let topology = TopologyDescriber::new([("s0", 2, false)]);
        let result = StickyTaskAssignor
            .assign(&group, &topology)
            .map_err(|e| e.to_string());
        AssignorCall {
            at_ms,
            group,
            topology,
            result,
        }
    }

    #[test]
    fn agreeing_outputs_pass_and_each_input_is_asked_once() {
        let calls = [
            call(10, &["a", "b"]),
            call(20, &["a", "b"]),
            call(30, &["a"]),
        ];
        let mut asked = Vec::new();
        let v = check_with(&calls, |input| {
            asked.push(input.to_string());
            let c = calls
                .iter()
                .find(|c| input_json(&c.group, &c.topology) == input);
            Ok(output_json(&c.unwrap().result))
        });
        assert_eq!(v, None);
        assert_eq!(asked.len(), 2);
    }

    #[test]
    fn the_first_differing_output_fails_the_run_at_its_time() {
        let calls = [call(10, &["a", "b"]), call(20, &["a"])];
        let v = check_with(&calls, |input| {
            if input.contains("\"b\"") {
                Ok(output_json(&calls[0].result))
            } else {
                Ok("{\"members\":{}}".into())
            }
        })
        .unwrap();
        assert_eq!(v.invariant, Invariant::AssignorOracle);
        assert_eq!(v.at_ms, 20);
        assert!(
            v.detail.starts_with(
                "a streams target assignment for 1 members differs from Kafka 4.4.0's \
                 StickyTaskAssignor on the same input: regroup {\"members\":{\"a\":"
            ),
            "{}",
            v.detail
        );
        assert!(v.detail.contains("Kafka {\"members\":{}}"), "{}", v.detail);
    }

    #[test]
    fn an_oracle_that_cannot_answer_fails_the_run() {
        let v = check_with(&[call(5, &["a"])], |_| Err("it exited".into())).unwrap();
        assert_eq!(
            (v.at_ms, v.detail.as_str()),
            (5, "the assignor oracle could not answer: it exited")
        );
    }
}
