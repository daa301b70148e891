//! An in-memory transport for tests: hosts connect to listeners through tokio duplex pipes, on
//! the test's (paused) tokio clock. A host can be partitioned: its connections stop delivering
//! bytes (they stay buffered, like a TCP connection through a black hole, and flow again when
//! the partition heals) and new connections from it are refused.

use std::cell::RefCell;
use std::collections::{BTreeMap, BTreeSet};
use std::io;
use std::pin::Pin;
use std::rc::Rc;
use std::task::{Context, Poll, Waker};

use protocol::net::{Net, NetListener};
use tokio::io::{AsyncRead, AsyncWrite, DuplexStream, ReadBuf};
use tokio::sync::mpsc;

const PIPE_CAPACITY: usize = 4 << 20;

struct Inner {
    listeners: BTreeMap<String, mpsc::UnboundedSender<(GatedStream, String)>>,
    partitioned: BTreeSet<String>,
    wakers: Vec<Waker>,
    next_port: u32,
    epoch_ms: i64,
    start: tokio::time::Instant,
}

/// The network all test hosts share.
#[derive(Clone)]
pub struct Fabric {
    inner: Rc<RefCell<Inner>>,
}

impl Fabric {
    /// A network whose clock reads `epoch_ms` now.
    pub fn new(epoch_ms: i64) -> Self {
        Self {
            inner: Rc::new(RefCell::new(Inner {
                listeners: BTreeMap::new(),
                partitioned: BTreeSet::new(),
                wakers: Vec::new(),
                next_port: 40000,
                epoch_ms,
                start: tokio::time::Instant::now(),
            })),
        }
    }

    /// The transport of host `name`.
    pub fn host(&self, name: &str) -> MemNet {
        MemNet {
            host: name.to_string(),
            fabric: self.clone(),
        }
    }

    /// Cuts `host` off: its traffic stalls and its new connections are refused.
    pub fn partition(&self, host: &str) {
        self.inner.borrow_mut().partitioned.insert(host.to_string());
    }

    /// Restores `host`; stalled bytes flow again.
    pub fn heal(&self, host: &str) {
        let wakers = {
            let mut inner = self.inner.borrow_mut();
            inner.partitioned.remove(host);
            std::mem::take(&mut inner.wakers)
        };
        for w in wakers {
            w.wake();
        }
    }

    pub fn now_ms(&self) -> i64 {
        let inner = self.inner.borrow();
        inner.epoch_ms + inner.start.elapsed().as_millis() as i64
    }

    fn is_cut(&self, a: &str, b: &str) -> bool {
        let inner = self.inner.borrow();
        inner.partitioned.contains(a) || inner.partitioned.contains(b)
    }
}

/// One host's view of the fabric.
#[derive(Clone)]
pub struct MemNet {
    host: String,
    fabric: Fabric,
}

/// One end of a connection.
pub struct GatedStream {
    inner: DuplexStream,
    local: String,
    remote: String,
    fabric: Fabric,
}

impl AsyncRead for GatedStream {
    fn poll_read(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        if self.fabric.is_cut(&self.local, &self.remote) {
            self.fabric
                .inner
                .borrow_mut()
                .wakers
                .push(cx.waker().clone());
            return Poll::Pending;
        }
        Pin::new(&mut self.inner).poll_read(cx, buf)
    }
}

impl AsyncWrite for GatedStream {
    fn poll_write(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        Pin::new(&mut self.inner).poll_write(cx, buf)
    }

    fn poll_flush(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.inner).poll_flush(cx)
    }

    fn poll_shutdown(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.inner).poll_shutdown(cx)
    }
}

/// A bound listener.
pub struct MemListener {
    addr: String,
    rx: tokio::sync::Mutex<mpsc::UnboundedReceiver<(GatedStream, String)>>,
}

impl NetListener for MemListener {
    type Stream = GatedStream;

    async fn accept(&self) -> io::Result<(GatedStream, String)> {
        self.rx
            .lock()
            .await
            .recv()
            .await
            .ok_or_else(|| io::Error::other("listener closed"))
    }

    fn local_addr(&self) -> io::Result<String> {
        Ok(self.addr.clone())
    }
}

fn host_of(addr: &str) -> &str {
    addr.rsplit_once(':').map(|(h, _)| h).unwrap_or(addr)
}

impl Net for MemNet {
    type Stream = GatedStream;
    type Listener = MemListener;

    async fn bind(&self, addr: &str) -> io::Result<MemListener> {
        let (tx, rx) = mpsc::unbounded_channel();
        self.fabric
            .inner
            .borrow_mut()
            .listeners
            .insert(addr.to_string(), tx);
        Ok(MemListener {
            addr: addr.to_string(),
            rx: tokio::sync::Mutex::new(rx),
        })
    }

    async fn connect(&self, addr: &str) -> io::Result<GatedStream> {
        let server_host = host_of(addr).to_string();
        if self.fabric.is_cut(&self.host, &server_host) {
            return Err(io::Error::new(
                io::ErrorKind::ConnectionRefused,
                "host unreachable",
            ));
        }
        let (listener, port) = {
            let mut inner = self.fabric.inner.borrow_mut();
            inner.next_port += 1;
            (inner.listeners.get(addr).cloned(), inner.next_port)
        };
        let listener = listener.ok_or_else(|| {
            io::Error::new(io::ErrorKind::ConnectionRefused, "nothing listens there")
        })?;
        let (a, b) = tokio::io::duplex(PIPE_CAPACITY);
        let client = GatedStream {
            inner: a,
            local: self.host.clone(),
            remote: server_host.clone(),
            fabric: self.fabric.clone(),
        };
        let server = GatedStream {
            inner: b,
            local: server_host,
            remote: self.host.clone(),
            fabric: self.fabric.clone(),
        };
        listener
            .send((server, format!("{}:{port}", self.host)))
            .map_err(|_| io::Error::new(io::ErrorKind::ConnectionRefused, "listener gone"))?;
        Ok(client)
    }

    fn now_ms(&self) -> i64 {
        self.fabric.now_ms()
    }
}
