//! The task loop shared by the client models (the classic consumer and the streams member
//! thread).
//!
//! A model is a single-threaded state machine: `poll` does everything that is due at `now`, then
//! the task waits for the earliest of its next deadline, a result from one of its request tasks,
//! or a signal from its owner. The wait is a `select!` with `biased` so the branches are always
//! tried in the same order (control, results, timer), which keeps a seeded run reproducible.
//!
//! The models differ only in what they do with each of those wake-ups, which is what [`Model`]
//! asks of them; [`drive`] is the loop itself.

use std::time::Duration;

use tokio::sync::mpsc;

/// How many times in a row the loop polls again without sleeping when something is due at once.
/// Past this it sleeps at least a millisecond, so a model whose next deadline never moves forward
/// cannot spin the simulation.
const MAX_IMMEDIATE_POLLS: u32 = 16;

/// The two channels a model task reads: the owner's control signals and its request tasks'
/// results.
pub(crate) struct Inbox<C, R> {
    control: mpsc::UnboundedReceiver<C>,
    /// False once the owner's handle was dropped; the control branch is not polled again.
    control_open: bool,
    results: mpsc::UnboundedReceiver<R>,
}

impl<C, R> Inbox<C, R> {
    /// An inbox around the owner's control receiver, with a fresh results channel whose sender the
    /// model hands to the request tasks it spawns.
    pub(crate) fn new(control: mpsc::UnboundedReceiver<C>) -> (Self, mpsc::UnboundedSender<R>) {
        let (tx, results) = mpsc::unbounded_channel();
        let inbox = Self {
            control,
            control_open: true,
            results,
        };
        (inbox, tx)
    }
}

/// What [`drive`] needs from a client model.
pub(crate) trait Model {
    /// A signal from the model's owner (close, stall heartbeats, ...).
    type Control;
    /// A request task's report.
    type Result;

    fn inbox(&mut self) -> &mut Inbox<Self::Control, Self::Result>;
    /// The current (simulated) time in milliseconds.
    fn now(&self) -> i64;
    /// Does everything that is due at `now`.
    fn poll_due(&mut self, now: i64);
    /// True once the model has finished; checked right after each poll.
    fn finished(&self) -> bool;
    /// The earliest time something will be due; `<= now` means at once.
    fn next_wake_ms(&self, now: i64) -> i64;
    fn on_control(&mut self, control: Self::Control);
    /// The owner's handle is gone; called once, and the control channel is not read again.
    fn on_control_closed(&mut self);
    fn on_result(&mut self, result: Self::Result, now: i64);
}

/// What ended one wait.
enum Woke<C, R> {
    Control(Option<C>),
    Result(R),
    Timer,
}

/// Runs `model` until it reports [`Model::finished`]. What the model does before and after (its
/// first subscription, closing connections, its final event) is the caller's.
pub(crate) async fn drive<M: Model>(model: &mut M) {
    let mut immediate = 0;
    loop {
        let now = model.now();
        model.poll_due(now);
        if model.finished() {
            break;
        }
        let wake = model.next_wake_ms(now);
        // Something is due at once (an acknowledgement, a job step): poll again without
        // sleeping, as Kafka's network thread does, but never spin.
        if wake <= now && immediate < MAX_IMMEDIATE_POLLS {
            immediate += 1;
            tokio::task::yield_now().await;
            continue;
        }
        immediate = 0;
        let sleep = tokio::time::sleep(Duration::from_millis((wake - now).max(1) as u64));
        let woke = {
            let inbox = model.inbox();
            tokio::select! {
                biased;
                control = inbox.control.recv(), if inbox.control_open => Woke::Control(control),
                Some(result) = inbox.results.recv() => Woke::Result(result),
                _ = sleep => Woke::Timer,
            }
        };
        match woke {
            Woke::Control(Some(control)) => model.on_control(control),
            Woke::Control(None) => {
                model.inbox().control_open = false;
                model.on_control_closed();
            }
            Woke::Result(result) => {
                let now = model.now();
                model.on_result(result, now);
            }
            Woke::Timer => {}
        }
    }
}
