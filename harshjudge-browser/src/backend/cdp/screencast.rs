//! A page's frames as Chromium paints them (`Page.startScreencast`), for the
//! run's video (`HARSHJUDGE_VIDEO`, issue 39 point 5, `docs/design/trace.md`
//! D17). Chromium sends a JPEG only when the page changed, and no more until
//! the last one is acknowledged (`Page.screencastFrameAck`): the page's
//! reader task acknowledges each at once ([`Frames::event`]) and passes it on,
//! stamped with the time it came, to whoever started the screencast
//! ([`Screencast::frames`]). The WebDriver protocols have no such stream.

use std::sync::mpsc;
use std::sync::{Arc, Mutex};
use std::time::Instant;

use base64::Engine as _;
use serde::{Deserialize, Serialize};

use super::connection::{CdpError, Connection, Received};
use super::protocol::{Command, Empty, Event, SessionId};

/// `Page.startScreencast`.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
struct StartScreencast {
    format: &'static str,
    quality: u32,
    max_width: u32,
    max_height: u32,
    every_nth_frame: u32,
}

impl Command for StartScreencast {
    const METHOD: &'static str = "Page.startScreencast";
    type Returns = Empty;
}

/// `Page.stopScreencast`.
#[derive(Debug, Serialize)]
struct StopScreencast {}

impl Command for StopScreencast {
    const METHOD: &'static str = "Page.stopScreencast";
    type Returns = Empty;
}

/// `Page.screencastFrameAck`.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
struct ScreencastFrameAck {
    session_id: i64,
}

impl Command for ScreencastFrameAck {
    const METHOD: &'static str = "Page.screencastFrameAck";
    type Returns = Empty;
}

/// `Page.screencastFrame` (the fields read).
#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
struct ScreencastFrame {
    /// The JPEG, base64.
    data: String,
    /// The frame's number, to acknowledge.
    session_id: i64,
}

impl Event for ScreencastFrame {
    const METHOD: &'static str = "Page.screencastFrame";
}

/// One painted frame: a JPEG and when it came.
#[derive(Debug)]
pub struct Frame {
    /// The frame, a JPEG image.
    pub jpeg: Vec<u8>,
    /// When it arrived.
    pub at: Instant,
}

/// Where a page's frames go while a screencast is on (the reader task's side).
#[derive(Debug, Default)]
pub(crate) struct Frames {
    to: Mutex<Option<mpsc::Sender<Frame>>>,
}

impl Frames {
    /// Handles `event` if it is a frame: acknowledged (so that the next
    /// comes), decoded and passed on while a screencast is on. Whether it
    /// was one.
    pub(crate) fn event(
        &self,
        event: &Received,
        connection: &Arc<Connection>,
        session: &SessionId,
    ) -> bool {
        let Some(frame) = event.parse::<ScreencastFrame>() else {
            return false;
        };
        let at = Instant::now();
        let Ok(frame) = frame else {
            return true;
        };
        let (c, s) = (connection.clone(), session.clone());
        let ack = ScreencastFrameAck {
            session_id: frame.session_id,
        };
        tokio::spawn(async move {
            let _ = c.send(Some(&s), &ack).await;
        });
        let mut to = self.to.lock().unwrap_or_else(|p| p.into_inner());
        if let Some(tx) = to.as_ref()
            && let Ok(jpeg) = base64::engine::general_purpose::STANDARD.decode(frame.data)
            && tx.send(Frame { jpeg, at }).is_err()
        {
            // The receiving end went: no one watches any more.
            *to = None;
        }
        true
    }
}

/// A screencast under way: its frames as they come, until [`Screencast::stop`]
/// (or the page closes, which ends the stream).
#[derive(Debug)]
pub struct Screencast {
    /// The frames, in the order painted, until taken.
    frames: Option<mpsc::Receiver<Frame>>,
    connection: Arc<Connection>,
    session: SessionId,
    to: Arc<Frames>,
}

impl Screencast {
    /// Starts the screencast of `session`'s page at `viewport` (CSS pixels):
    /// JPEG at quality 80, every frame.
    pub(crate) async fn start(
        connection: &Arc<Connection>,
        session: &SessionId,
        to: &Arc<Frames>,
        viewport: (u32, u32),
    ) -> Result<Screencast, CdpError> {
        let (tx, frames) = mpsc::channel();
        *to.to.lock().unwrap_or_else(|p| p.into_inner()) = Some(tx);
        let start = StartScreencast {
            format: "jpeg",
            quality: 80,
            max_width: viewport.0,
            max_height: viewport.1,
            every_nth_frame: 1,
        };
        if let Err(e) = connection.send(Some(session), &start).await {
            *to.to.lock().unwrap_or_else(|p| p.into_inner()) = None;
            return Err(e);
        }
        Ok(Screencast {
            frames: Some(frames),
            connection: connection.clone(),
            session: session.clone(),
            to: to.clone(),
        })
    }

    /// The frames, in the order painted, for whoever encodes them (once).
    pub fn take_frames(&mut self) -> Option<mpsc::Receiver<Frame>> {
        self.frames.take()
    }

    /// Stops the screencast: no frame is passed on after it (a page already
    /// closed has nothing to stop).
    pub async fn stop(self) {
        *self.to.to.lock().unwrap_or_else(|p| p.into_inner()) = None;
        let _ = (self.connection)
            .send(Some(&self.session), &StopScreencast {})
            .await;
    }
}

#[cfg(test)]
#[path = "screencast_tests.rs"]
mod tests;
