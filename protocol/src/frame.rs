//! Kafka framing: every request and response is an int32 big-endian size followed by that many
//! bytes (header + body).
//!
//! Reading works over any tokio `AsyncRead` (a `tokio::net::TcpStream`, a turmoil stream, an
//! in-memory duplex) and copes with data arriving in pieces. A negative or oversized size is
//! rejected before anything is allocated, and the body buffer grows with the bytes that actually
//! arrive, so a peer announcing a large frame and then stalling costs little memory.

use bytes::{Buf, Bytes, BytesMut};
use tokio::io::{AsyncRead, AsyncReadExt, AsyncWrite, AsyncWriteExt};

/// Kafka's default `socket.request.max.bytes` (100 MiB).
pub const DEFAULT_MAX_FRAME_SIZE: usize = 104_857_600;

/// Bytes requested from the reader at a time while a body is arriving.
const READ_CHUNK: usize = 64 * 1024;

/// A frame that could not be read.
#[derive(Debug, thiserror::Error)]
pub enum FrameError {
    /// The size prefix is negative.
    #[error("frame size {0} is negative")]
    NegativeSize(i32),
    /// The size prefix exceeds the configured maximum.
    #[error("frame size {size} exceeds the maximum of {max} bytes")]
    Oversized { size: usize, max: usize },
    /// The stream ended inside a frame.
    #[error("stream ended inside a frame: {read} of {expected} bytes")]
    Truncated { expected: usize, read: usize },
    /// The underlying stream failed.
    #[error("i/o error: {0}")]
    Io(#[from] std::io::Error),
}

/// Checks a size prefix against the maximum.
fn check_size(size: i32, max: usize) -> Result<usize, FrameError> {
    if size < 0 {
        return Err(FrameError::NegativeSize(size));
    }
    let size = size as usize;
    if size > max {
        return Err(FrameError::Oversized { size, max });
    }
    Ok(size)
}

/// Reads frames from a stream.
#[derive(Debug, Clone, Copy)]
pub struct FrameReader {
    max_frame_size: usize,
}

impl Default for FrameReader {
    fn default() -> Self {
        Self {
            max_frame_size: DEFAULT_MAX_FRAME_SIZE,
        }
    }
}

impl FrameReader {
    /// A reader with Kafka's default maximum frame size.
    pub fn new() -> Self {
        Self::default()
    }

    /// A reader accepting frames of at most `max_frame_size` bytes (size prefix excluded).
    pub fn with_max_frame_size(max_frame_size: usize) -> Self {
        Self { max_frame_size }
    }

    pub fn max_frame_size(&self) -> usize {
        self.max_frame_size
    }

    /// Reads one frame and returns what follows its size prefix. `Ok(None)` means the stream
    /// ended cleanly between frames.
    pub async fn read<R: AsyncRead + Unpin>(&self, r: &mut R) -> Result<Option<Bytes>, FrameError> {
        let mut prefix = [0u8; 4];
        let mut got = 0;
        while got < 4 {
            let n = r.read(&mut prefix[got..]).await?;
            if n == 0 {
                if got == 0 {
                    return Ok(None);
                }
                return Err(FrameError::Truncated {
                    expected: 4,
                    read: got,
                });
            }
            got += n;
        }
        let size = check_size(i32::from_be_bytes(prefix), self.max_frame_size)?;
        let mut body = BytesMut::new();
        while body.len() < size {
            let left = size - body.len();
            body.reserve(left.min(READ_CHUNK));
            let n = (&mut *r).take(left as u64).read_buf(&mut body).await?;
            if n == 0 {
                return Err(FrameError::Truncated {
                    expected: 4 + size,
                    read: 4 + body.len(),
                });
            }
        }
        Ok(Some(body.freeze()))
    }

    /// Takes one complete frame off the front of `buf` if it holds one (for callers that
    /// buffer bytes themselves). `Ok(None)` means more bytes are needed.
    pub fn split(&self, buf: &mut BytesMut) -> Result<Option<Bytes>, FrameError> {
        if buf.len() < 4 {
            return Ok(None);
        }
        let size = check_size(
            i32::from_be_bytes([buf[0], buf[1], buf[2], buf[3]]),
            self.max_frame_size,
        )?;
        if buf.len() < 4 + size {
            return Ok(None);
        }
        buf.advance(4);
        Ok(Some(buf.split_to(size).freeze()))
    }
}

/// Reads one frame with Kafka's default maximum size (see [`FrameReader::read`]).
pub async fn read_frame<R: AsyncRead + Unpin>(r: &mut R) -> Result<Option<Bytes>, FrameError> {
    FrameReader::new().read(r).await
}

/// Writes one complete frame (size prefix included, as the `encode_*_frame` helpers produce it)
/// and flushes.
pub async fn write_frame<W: AsyncWrite + Unpin>(w: &mut W, frame: &[u8]) -> Result<(), FrameError> {
    w.write_all(frame).await?;
    w.flush().await?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use tokio::io::duplex;

    #[tokio::test]
    async fn reads_frames_delivered_one_byte_at_a_time() {
        let (mut client, mut server) = duplex(1);
        let writer = tokio::spawn(async move {
            for b in [0u8, 0, 0, 3, b'a', b'b', b'c', 0, 0, 0, 0] {
                client.write_all(&[b]).await.unwrap();
            }
        });
        let reader = FrameReader::new();
        assert_eq!(
            reader.read(&mut server).await.unwrap().unwrap(),
            &b"abc"[..]
        );
        assert_eq!(reader.read(&mut server).await.unwrap().unwrap(), &b""[..]);
        writer.await.unwrap();
        assert!(reader.read(&mut server).await.unwrap().is_none());
    }

    #[tokio::test]
    async fn rejects_negative_and_oversized_sizes() {
        let mut neg: &[u8] = &[0xff, 0xff, 0xff, 0xfe];
        assert!(matches!(
            read_frame(&mut neg).await,
            Err(FrameError::NegativeSize(-2))
        ));
        let mut big: &[u8] = &[0x7f, 0xff, 0xff, 0xff];
        assert!(matches!(
            read_frame(&mut big).await,
            Err(FrameError::Oversized {
                size: 2147483647,
                max: DEFAULT_MAX_FRAME_SIZE
            })
        ));
        let mut small_max: &[u8] = &[0, 0, 0, 9, 1, 2, 3, 4, 5, 6, 7, 8, 9];
        assert!(matches!(
            FrameReader::with_max_frame_size(8)
                .read(&mut small_max)
                .await,
            Err(FrameError::Oversized { size: 9, max: 8 })
        ));
    }

    #[tokio::test]
    async fn reports_truncation_in_prefix_and_body() {
        let mut short_prefix: &[u8] = &[0, 0];
        assert!(matches!(
            read_frame(&mut short_prefix).await,
            Err(FrameError::Truncated {
                expected: 4,
                read: 2
            })
        ));
        let mut short_body: &[u8] = &[0, 0, 0, 5, 1, 2];
        assert!(matches!(
            read_frame(&mut short_body).await,
            Err(FrameError::Truncated {
                expected: 9,
                read: 6
            })
        ));
    }

    #[tokio::test]
    async fn a_stalled_large_frame_does_not_allocate_its_size() {
        // 100 MiB announced, 10 bytes sent, then EOF: the reader grows its buffer with the data
        // that arrives (64 KiB at a time), so it reports the truncation after buffering 10 bytes.
        let mut data = vec![0x06, 0x40, 0x00, 0x00];
        data.extend_from_slice(&[7; 10]);
        let mut r: &[u8] = &data;
        match read_frame(&mut r).await {
            Err(FrameError::Truncated { expected, read }) => {
                assert_eq!(expected, 4 + 104_857_600);
                assert_eq!(read, 14);
            }
            other => panic!("unexpected {other:?}"),
        }
    }

    #[test]
    fn split_takes_whole_frames_only() {
        let reader = FrameReader::new();
        let mut buf = BytesMut::from(&[0u8, 0, 0, 2, 9][..]);
        assert!(reader.split(&mut buf).unwrap().is_none());
        buf.extend_from_slice(&[8, 0, 0]);
        assert_eq!(reader.split(&mut buf).unwrap().unwrap(), &[9u8, 8][..]);
        assert_eq!(&buf[..], &[0, 0]);
        let mut neg = BytesMut::from(&[0x80u8, 0, 0, 0][..]);
        assert!(matches!(
            reader.split(&mut neg),
            Err(FrameError::NegativeSize(i32::MIN))
        ));
    }
}
