#![warn(rust_2018_idioms)]
#![cfg(all(feature = "full", not(target_os = "wasi"), not(miri)))]

use std::time::Duration;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};

#[test]
#[should_panic(expected = "max_io_events_per_busy_tick must be non-zero")]
fn zero_busy_tick_panics() {
    tokio::runtime::Builder::new_multi_thread().max_io_events_per_busy_tick(0);
}

#[test]
#[should_panic(expected = "max_io_events_per_tick must be non-zero")]
fn zero_io_events_per_tick_panics() {
    tokio::runtime::Builder::new_multi_thread().max_io_events_per_tick(0);
}

// Liveness check: the runtime always has runnable tasks, so its I/O polls do
// not wait and each takes one event. Echo traffic must still complete.
fn busy_runtime_gets_every_event(rt: tokio::runtime::Runtime) {
    for _ in 0..8 {
        rt.spawn(async {
            loop {
                tokio::task::yield_now().await;
            }
        });
    }
    rt.block_on(async {
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap();
        tokio::spawn(async move {
            loop {
                let (mut s, _) = listener.accept().await.unwrap();
                tokio::spawn(async move {
                    let mut buf = [0u8; 4];
                    while s.read_exact(&mut buf).await.is_ok() {
                        s.write_all(&buf).await.unwrap();
                    }
                });
            }
        });
        let clients: Vec<_> = (0..16)
            .map(|_| {
                tokio::spawn(async move {
                    let mut s = TcpStream::connect(addr).await.unwrap();
                    for _ in 0..16 {
                        s.write_all(b"ping").await.unwrap();
                        s.read_exact(&mut [0u8; 4]).await.unwrap();
                    }
                })
            })
            .collect();
        let all = async {
            for c in clients {
                c.await.unwrap();
            }
        };
        tokio::time::timeout(Duration::from_secs(20), all)
            .await
            .expect("echo round trips did not finish");
    });
}

#[test]
fn multi_thread_busy_tick() {
    // One worker, so the spinning tasks keep it from ever parking.
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(1)
        .max_io_events_per_busy_tick(1)
        .enable_all()
        .build()
        .unwrap();
    busy_runtime_gets_every_event(rt);
}

#[test]
fn current_thread_busy_tick() {
    let rt = tokio::runtime::Builder::new_current_thread()
        .max_io_events_per_busy_tick(1)
        .enable_all()
        .build()
        .unwrap();
    busy_runtime_gets_every_event(rt);
}
