//! One TCP connection to a broker: a writer task draining a queue of frames, a reader task
//! matching responses to requests by correlation id.

use std::cell::{Cell, RefCell};
use std::collections::BTreeMap;
use std::rc::{Rc, Weak};

use bytes::{Bytes, BytesMut};
use protocol::frame::{FrameReader, write_frame};
use protocol::response::decode_response_frame;
use protocol::{Api, Response};
use tokio::io::{AsyncRead, AsyncWrite};
use tokio::sync::{mpsc, oneshot};
use tokio::task::JoinHandle;

use crate::observer::{Emitter, EventKind, RequestFailure};

type Reply = Result<Response, RequestFailure>;

struct Pending {
    api: Api,
    version: i16,
    tx: oneshot::Sender<Reply>,
}

pub(super) struct Connection {
    id: u64,
    broker: String,
    writer: mpsc::UnboundedSender<BytesMut>,
    pending: RefCell<BTreeMap<i32, Pending>>,
    /// The broker's (min, max) version per api key, from ApiVersions.
    ranges: RefCell<BTreeMap<i16, (i16, i16)>>,
    closed: Cell<bool>,
    tasks: RefCell<Vec<JoinHandle<()>>>,
}

impl Connection {
    /// Wraps an open stream and starts its reader and writer tasks (with `spawn_local`).
    pub(super) fn open<S>(id: u64, broker: String, stream: S, emitter: Emitter) -> Rc<Self>
    where
        S: AsyncRead + AsyncWrite + Unpin + 'static,
    {
        let (mut read_half, mut write_half) = tokio::io::split(stream);
        let (tx, mut rx) = mpsc::unbounded_channel::<BytesMut>();
        let conn = Rc::new(Self {
            id,
            broker,
            writer: tx,
            pending: RefCell::new(BTreeMap::new()),
            ranges: RefCell::new(BTreeMap::new()),
            closed: Cell::new(false),
            tasks: RefCell::new(Vec::new()),
        });
        let weak: Weak<Connection> = Rc::downgrade(&conn);
        let writer_emitter = emitter.clone();
        let writer = tokio::task::spawn_local(async move {
            while let Some(frame) = rx.recv().await {
                if let Err(e) = write_frame(&mut write_half, &frame).await {
                    if let Some(conn) = weak.upgrade() {
                        conn.close(&format!("write failed: {e}"), &writer_emitter);
                    }
                    return;
                }
            }
        });
        let weak: Weak<Connection> = Rc::downgrade(&conn);
        let reader = tokio::task::spawn_local(async move {
            let frames = FrameReader::new();
            loop {
                let result = frames.read(&mut read_half).await;
                let Some(conn) = weak.upgrade() else { return };
                match result {
                    Ok(Some(body)) => {
                        if let Err(why) = conn.deliver(body) {
                            conn.close(&why, &emitter);
                            return;
                        }
                    }
                    Ok(None) => {
                        conn.close("connection closed by the broker", &emitter);
                        return;
                    }
                    Err(e) => {
                        conn.close(&format!("read failed: {e}"), &emitter);
                        return;
                    }
                }
            }
        });
        conn.tasks.borrow_mut().extend([writer, reader]);
        conn
    }

    pub(super) fn broker(&self) -> &str {
        &self.broker
    }

    pub(super) fn is_closed(&self) -> bool {
        self.closed.get()
    }

    pub(super) fn in_flight(&self) -> usize {
        self.pending.borrow().len()
    }

    pub(super) fn broker_range(&self, api: Api) -> Option<(i16, i16)> {
        if api == Api::ApiVersions {
            // Always allowed: the handshake itself.
            return Some((api.min_version(), api.max_version()));
        }
        self.ranges.borrow().get(&api.key()).copied()
    }

    pub(super) fn set_broker_ranges(&self, ranges: impl IntoIterator<Item = (i16, i16, i16)>) {
        let mut map = self.ranges.borrow_mut();
        map.clear();
        for (key, min, max) in ranges {
            map.insert(key, (min, max));
        }
    }

    /// Registers a request about to be written; its answer arrives on the returned receiver.
    pub(super) fn register(
        &self,
        correlation_id: i32,
        api: Api,
        version: i16,
    ) -> Result<oneshot::Receiver<Reply>, RequestFailure> {
        if self.closed.get() {
            return Err(RequestFailure::Disconnected("connection closed".into()));
        }
        let (tx, rx) = oneshot::channel();
        self.pending
            .borrow_mut()
            .insert(correlation_id, Pending { api, version, tx });
        Ok(rx)
    }

    /// Drops a request nobody waits for any more (its answer, if it comes, is ignored).
    pub(super) fn forget(&self, correlation_id: i32) {
        self.pending.borrow_mut().remove(&correlation_id);
    }

    /// Queues a frame for the writer task; false if the connection is closed.
    pub(super) fn write(&self, frame: BytesMut) -> bool {
        !self.closed.get() && self.writer.send(frame).is_ok()
    }

    /// Hands one response frame to the request waiting for it.
    fn deliver(&self, body: Bytes) -> Result<(), String> {
        if body.len() < 4 {
            return Err(format!("response frame of {} bytes", body.len()));
        }
        let correlation_id = i32::from_be_bytes([body[0], body[1], body[2], body[3]]);
        let pending = self.pending.borrow_mut().remove(&correlation_id);
        let Some(pending) = pending else {
            // The answer to a request given up on (nobody waits for it any more).
            return Ok(());
        };
        let decoded = match decode_response_frame(pending.api, pending.version, body.clone()) {
            Ok((_, response)) => Ok(response),
            // A broker that does not support our ApiVersions version answers at version 0
            // (KIP-511); Java's ApiVersionsResponse.parse falls back the same way.
            Err(_) if pending.api == Api::ApiVersions && pending.version > 0 => {
                decode_response_frame(Api::ApiVersions, 0, body)
                    .map(|(_, r)| r)
                    .map_err(|e| RequestFailure::Wire(e.to_string()))
            }
            Err(e) => Err(RequestFailure::Wire(e.to_string())),
        };
        let failed = decoded.is_err();
        let _ = pending.tx.send(decoded);
        if failed {
            return Err("undecodable response".into());
        }
        Ok(())
    }

    /// Closes the connection: fails every request in flight and stops both tasks.
    pub(super) fn close(&self, reason: &str, emitter: &Emitter) {
        if self.closed.replace(true) {
            return;
        }
        emitter.emit(EventKind::Disconnected {
            broker: self.broker.clone(),
            reason: reason.to_string(),
        });
        self.shutdown(reason);
    }

    /// Closes without reporting (the client is being dropped).
    pub(super) fn close_quietly(&self) {
        if !self.closed.replace(true) {
            self.shutdown("client closed");
        }
    }

    fn shutdown(&self, reason: &str) {
        let pending = std::mem::take(&mut *self.pending.borrow_mut());
        for (_, p) in pending {
            let _ =
                p.tx.send(Err(RequestFailure::Disconnected(reason.to_string())));
        }
        for task in self.tasks.borrow_mut().drain(..) {
            task.abort();
        }
        tracing::debug!(connection = self.id, broker = %self.broker, reason, "connection closed");
    }
}
