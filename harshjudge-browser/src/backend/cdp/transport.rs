//! How DevTools-protocol messages travel between this process and Chromium:
//! over the pipe pair of `--remote-debugging-pipe` (Chromium reads fd 3 and
//! writes fd 4; each message is its JSON followed by one NUL byte, as
//! Playwright's `pipeTransport.ts` frames it) or over the WebSocket of
//! `--remote-debugging-port` (one text message each). [`Outgoing`] and
//! [`Incoming`] are the two halves, each owned by one task of the connection.

use bytes::{Bytes, BytesMut};
use futures_util::stream::{SplitSink, SplitStream};
use futures_util::{SinkExt, StreamExt};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;
use tokio::net::unix::pipe;
use tokio_tungstenite::tungstenite::Message;
use tokio_tungstenite::{MaybeTlsStream, WebSocketStream};

type Socket = WebSocketStream<MaybeTlsStream<TcpStream>>;

/// How much one read of the pipe asks for.
const READ_CHUNK: usize = 64 * 1024;

/// Why a transport stopped carrying messages.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub(crate) enum TransportError {
    /// Reading or writing the pipe failed.
    #[error("the DevTools pipe failed: {0}")]
    Pipe(#[from] std::io::Error),
    /// The WebSocket failed.
    #[error("the DevTools WebSocket failed: {0}")]
    Socket(#[from] tokio_tungstenite::tungstenite::Error),
}

/// The half that sends messages to the browser.
#[derive(Debug)]
pub(crate) enum Outgoing {
    Pipe(pipe::Sender),
    Socket(SplitSink<Socket, Message>),
}

/// The half that receives the browser's messages.
#[derive(Debug)]
pub(crate) enum Incoming {
    Pipe {
        reader: pipe::Receiver,
        frames: NulFrames,
    },
    Socket(SplitStream<Socket>),
}

/// Both halves of one transport.
pub(crate) fn pipe_pair(
    to_browser: pipe::Sender,
    from_browser: pipe::Receiver,
) -> (Outgoing, Incoming) {
    (
        Outgoing::Pipe(to_browser),
        Incoming::Pipe {
            reader: from_browser,
            frames: NulFrames::default(),
        },
    )
}

/// Both halves of a WebSocket connected to `url` (`ws://127.0.0.1:PORT/devtools/browser/…`).
pub(crate) async fn connect_socket(url: &str) -> Result<(Outgoing, Incoming), TransportError> {
    let (socket, _) = tokio_tungstenite::connect_async(url).await?;
    let (sink, stream) = socket.split();
    Ok((Outgoing::Socket(sink), Incoming::Socket(stream)))
}

impl Outgoing {
    /// Sends one message (a JSON text, without its NUL).
    pub(crate) async fn send(&mut self, mut text: String) -> Result<(), TransportError> {
        match self {
            Outgoing::Pipe(pipe) => {
                text.push('\0');
                pipe.write_all(text.as_bytes()).await?;
            }
            Outgoing::Socket(sink) => sink.send(Message::text(text)).await?,
        }
        Ok(())
    }

    /// Closes the browser's side of the conversation (best effort).
    pub(crate) async fn close(&mut self) {
        match self {
            Outgoing::Pipe(pipe) => {
                let _ = pipe.shutdown().await;
            }
            Outgoing::Socket(sink) => {
                let _ = sink.close().await;
            }
        }
    }
}

impl Incoming {
    /// The next message, `None` once the browser closed its side. A frame
    /// left unfinished by the closing is dropped.
    pub(crate) async fn next(&mut self) -> Option<Result<Bytes, TransportError>> {
        match self {
            Incoming::Pipe { reader, frames } => loop {
                if let Some(frame) = frames.next_frame() {
                    return Some(Ok(frame));
                }
                match frames.read_from(reader).await {
                    Ok(0) => return None,
                    Ok(_) => {}
                    Err(e) => return Some(Err(e.into())),
                }
            },
            Incoming::Socket(stream) => loop {
                match stream.next().await? {
                    Ok(Message::Text(text)) => return Some(Ok(text.into())),
                    Ok(Message::Binary(bytes)) => return Some(Ok(bytes)),
                    Ok(Message::Close(_)) => return None,
                    Ok(_) => {}
                    Err(e) => return Some(Err(e.into())),
                }
            },
        }
    }
}

/// Splits a byte stream into NUL-terminated frames: a frame may come in
/// several reads, and one read may hold several frames.
#[derive(Debug, Default)]
pub(crate) struct NulFrames {
    /// Bytes read and not yet handed out; `buf[..scanned]` holds no NUL.
    buf: BytesMut,
    scanned: usize,
}

impl NulFrames {
    /// Appends bytes read.
    #[cfg(test)]
    pub(crate) fn push(&mut self, bytes: &[u8]) {
        self.buf.extend_from_slice(bytes);
    }

    /// Reads once from `reader` into the buffer; the number of bytes read
    /// (0: end of the stream).
    async fn read_from(&mut self, reader: &mut pipe::Receiver) -> std::io::Result<usize> {
        self.buf.reserve(READ_CHUNK);
        reader.read_buf(&mut self.buf).await
    }

    /// The next whole frame (without its NUL), if one is complete.
    pub(crate) fn next_frame(&mut self) -> Option<Bytes> {
        let Some(i) = self.buf[self.scanned..].iter().position(|b| *b == 0) else {
            self.scanned = self.buf.len();
            return None;
        };
        let mut frame = self.buf.split_to(self.scanned + i + 1);
        frame.truncate(frame.len() - 1);
        self.scanned = 0;
        Some(frame.freeze())
    }

    /// Whether no partial frame is buffered.
    #[cfg(test)]
    pub(crate) fn is_empty(&self) -> bool {
        self.buf.is_empty()
    }
}
