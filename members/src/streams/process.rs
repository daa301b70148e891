//! A Kafka Streams process: one process id, N member threads, started on a host and stopped,
//! killed or restarted by the caller.

use std::cell::{Cell, RefCell};
use std::rc::Rc;

use protocol::net::Net;
use rand::{RngCore, SeedableRng};
use rand_chacha::ChaCha8Rng;
use tokio::sync::mpsc;
use tokio::task::JoinHandle;

use super::config::StreamsConfig;
use super::member::{Control, Member, MemberParams, ProcessShared};
use super::membership::LeaveOperation;
use super::state_dir::StateDirectory;
use crate::ids::kafka_uuid_string;
use crate::observer::{ClientKind, ClientRef, Emitter, EndpointPartitions, EventKind, Observer};

/// One member thread as the process sees it.
struct Thread {
    member_id: String,
    instance_id: Option<String>,
    emitter: Emitter,
    handle: JoinHandle<()>,
}

/// A running streams process. Its threads run as local tasks (`spawn_local`), so it must be
/// started inside a `LocalSet` (turmoil runs every host in one).
pub struct StreamsProcess {
    name: String,
    config: Rc<StreamsConfig>,
    state_dir: StateDirectory,
    shared: Rc<ProcessShared>,
    threads: Vec<Thread>,
}

impl StreamsProcess {
    /// Starts `config.num_threads` member threads that find the coordinator through `bootstrap`
    /// (`host:port` of brokers) and join the group `config.application_id`.
    ///
    /// * `name` identifies the process in events (thread `n` reports as `<name>/StreamThread-<n>`).
    /// * `state_dir` holds the process id and local task state: pass the same one to restart
    ///   the process as the same Kafka Streams instance.
    /// * Member ids and every random choice (backoff jitter) come from `rng`, so the same seed
    ///   gives the same run.
    pub fn start<N: Net>(
        net: N,
        bootstrap: Vec<String>,
        config: StreamsConfig,
        state_dir: StateDirectory,
        name: &str,
        rng: &mut impl RngCore,
        observer: Rc<dyn Observer>,
    ) -> Self {
        let config = Rc::new(config);
        let shared = Rc::new(ProcessShared {
            controls: RefCell::new(Vec::new()),
            shutdown_application: Cell::new(false),
            endpoints: RefCell::new(None),
        });
        let process_id = state_dir.process_id();
        let mut threads = Vec::new();
        for n in 1..=config.num_threads.max(1) {
            let member_id = kafka_uuid_string(rng);
            let member_rng = ChaCha8Rng::from_rng(&mut *rng);
            let instance_id = config.thread_instance_id(n);
            let clock_net = net.clone();
            let emitter = Emitter::new(
                observer.clone(),
                Rc::new(move || clock_net.now_ms()),
                ClientRef {
                    kind: ClientKind::StreamsMember,
                    name: format!("{name}/StreamThread-{n}"),
                    group_id: config.application_id.clone(),
                    instance_id: instance_id.clone(),
                    process_id: process_id.clone(),
                },
            );
            let (control_tx, control) = mpsc::unbounded_channel();
            shared.controls.borrow_mut().push(control_tx);
            let member = Member::new(MemberParams {
                net: net.clone(),
                bootstrap: bootstrap.clone(),
                config: config.clone(),
                state_dir: state_dir.clone(),
                shared: shared.clone(),
                control,
                emitter: emitter.clone(),
                rng: member_rng,
                member_id: member_id.clone(),
                instance_id: instance_id.clone(),
                client_id: config.thread_client_id(&process_id, n),
            });
            let handle = tokio::task::spawn_local(member.run());
            threads.push(Thread {
                member_id,
                instance_id,
                emitter,
                handle,
            });
        }
        Self {
            name: name.to_string(),
            config,
            state_dir,
            shared,
            threads,
        }
    }

    pub fn name(&self) -> &str {
        &self.name
    }

    pub fn config(&self) -> &StreamsConfig {
        &self.config
    }

    pub fn process_id(&self) -> String {
        self.state_dir.process_id()
    }

    /// The state directory (hand it to [`StreamsProcess::start`] to restart this process).
    pub fn state_dir(&self) -> StateDirectory {
        self.state_dir.clone()
    }

    /// The member ids of the threads, in thread order.
    pub fn member_ids(&self) -> Vec<String> {
        self.threads.iter().map(|t| t.member_id.clone()).collect()
    }

    /// The instance ids of the threads (static members), in thread order.
    pub fn instance_ids(&self) -> Vec<Option<String>> {
        self.threads.iter().map(|t| t.instance_id.clone()).collect()
    }

    /// The latest IQ endpoint information any thread received: (epoch, endpoints).
    pub fn endpoints(&self) -> Option<(i32, Vec<EndpointPartitions>)> {
        self.shared.endpoints.borrow().clone()
    }

    /// Whether every thread has stopped (after [`Self::stop`], a fatal error, or a
    /// SHUTDOWN_APPLICATION from the group).
    pub fn is_finished(&self) -> bool {
        self.threads.iter().all(|t| t.handle.is_finished())
    }

    /// Stalls (or resumes) the heartbeats of thread `thread` (1-based), or of every thread: the
    /// threads keep processing and committing with their last member epoch, as when a stream
    /// thread's heartbeat thread is stuck. The coordinator eventually removes the members; their
    /// next commits are rejected as stale.
    pub fn stall_heartbeats(&self, thread: Option<usize>, stalled: bool) {
        for (i, tx) in self.shared.controls.borrow().iter().enumerate() {
            if thread.is_none_or(|t| t == i + 1) {
                let _ = tx.send(Control::StallHeartbeats(stalled));
            }
        }
    }

    /// Asks the group to shut the whole application down (Kafka Streams' SHUTDOWN_APPLICATION
    /// uncaught-exception response): every thread sets the flag on its heartbeats.
    pub fn request_shutdown_application(&self) {
        self.shared.shutdown_application.set(true);
    }

    /// Kafka Streams' `close()`: every thread commits, closes its tasks and leaves the group
    /// (dynamic members with epoch -1, static members with -2). Returns once all have stopped.
    pub async fn stop(self) -> StateDirectory {
        self.stop_with(LeaveOperation::Default).await
    }

    /// `close(CloseOptions)` with an explicit group membership operation.
    pub async fn stop_with(mut self, operation: LeaveOperation) -> StateDirectory {
        self.shared.stop_all(operation);
        for t in self.threads.drain(..) {
            let _ = t.handle.await;
        }
        self.state_dir.clone()
    }

    /// Waits until every thread stopped on its own (fatal error, shutdown requested by the
    /// group).
    pub async fn wait(mut self) -> StateDirectory {
        for t in self.threads.drain(..) {
            let _ = t.handle.await;
        }
        self.state_dir.clone()
    }

    /// The process dies: threads stop at once, no commit, no leave, connections drop.
    pub fn kill(mut self) -> StateDirectory {
        for t in self.threads.drain(..) {
            if !t.handle.is_finished() {
                t.handle.abort();
                t.emitter.emit(EventKind::Stopped { graceful: false });
            }
        }
        self.state_dir.clone()
    }
}

impl Drop for StreamsProcess {
    fn drop(&mut self) {
        for t in self.threads.drain(..) {
            t.handle.abort();
        }
    }
}
