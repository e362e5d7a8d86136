//! The command judge: `HARSHJUDGE_JUDGE_CMD`, run by `/bin/sh -c`, reads one JSON
//! document on stdin and prints a JSON verdict on stdout.

use std::process::Stdio;
use std::time::Duration;

use tokio::io::{AsyncReadExt, AsyncWriteExt};

use super::{Judge, JudgeError, JudgeInput, MAX_REPLY, Reply, parse_reply};

/// A judge that is a program: any script, or an agent's command line.
///
/// It receives a [`JudgeInput`] as JSON on stdin and must print one JSON object
/// `{"verdict": "pass" | "fail" | "uncertain", "reasoning": "…"}` on stdout and
/// exit 0. A crash, a timeout or an answer that is not a verdict is retried up
/// to `retries` more times; then the step has no verdict and the error says why.
#[derive(Clone, Debug)]
pub struct CommandJudge {
    /// The command line, run by `/bin/sh -c`.
    pub command: String,
    /// How long one attempt may take.
    pub timeout: Duration,
    /// Attempts after a failed one.
    pub retries: u32,
}

impl CommandJudge {
    async fn attempt(&self, stdin_doc: &[u8]) -> Result<(String, String), JudgeError> {
        let mut child = tokio::process::Command::new("/bin/sh")
            .arg("-c")
            .arg(&self.command)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .process_group(0)
            .kill_on_drop(true)
            .spawn()
            .map_err(|source| JudgeError::Spawn {
                command: self.command.clone(),
                source,
            })?;
        let pid = child.id();
        let mut stdin = child.stdin.take();
        let mut stdout = child.stdout.take();
        let mut stderr = child.stderr.take();
        let work = async {
            // A judge that does not read its stdin must not block us: the write
            // ends with the judge (broken pipe), which is not an error by itself.
            let write = async {
                if let Some(mut w) = stdin.take() {
                    let _ = w.write_all(stdin_doc).await;
                    let _ = w.shutdown().await;
                }
            };
            let read_out = read_bounded(stdout.take());
            let read_err = read_bounded(stderr.take());
            let ((), out, err) = tokio::join!(write, read_out, read_err);
            let status = child.wait().await;
            (status, out, err)
        };
        match tokio::time::timeout(self.timeout, work).await {
            Err(_) => {
                if let Some(pid) = pid.and_then(|p| rustix::process::Pid::from_raw(p as i32)) {
                    let _ = rustix::process::kill_process_group(pid, rustix::process::Signal::KILL);
                }
                Err(JudgeError::Timeout(self.timeout))
            }
            Ok((status, out, err)) => {
                let status = status.map_err(|source| JudgeError::Io {
                    during: "waiting for the judge command",
                    source,
                })?;
                let out = out?;
                let err = err.unwrap_or_default();
                if !status.success() {
                    return Err(JudgeError::Crashed {
                        status: status.to_string(),
                        stderr: tail(&err, 500),
                    });
                }
                Ok((out, err))
            }
        }
    }
}

impl Judge for CommandJudge {
    fn kind(&self) -> &'static str {
        "command"
    }

    fn identity(&self) -> String {
        format!("command:{}", self.command)
    }

    fn judge<'a>(
        &'a self,
        input: &'a JudgeInput,
    ) -> futures_util::future::BoxFuture<'a, Result<Reply, JudgeError>> {
        Box::pin(async move {
            let doc = serde_json::to_vec_pretty(input).map_err(JudgeError::Encode)?;
            let mut last = None;
            for attempt in 1..=self.retries.saturating_add(1) {
                match self.attempt(&doc).await {
                    Ok((out, _err)) => match parse_reply(&out) {
                        Ok((verdict, reasoning)) => {
                            return Ok(Reply {
                                verdict,
                                reasoning,
                                prompt: Some(String::from_utf8_lossy(&doc).into_owned()),
                                response: Some(out),
                                attempts: attempt,
                                info: Default::default(),
                            });
                        }
                        Err(e) => last = Some(e),
                    },
                    Err(e) => last = Some(e),
                }
            }
            Err(last.expect("retries + 1 >= 1 attempt was made"))
        })
    }
}

/// Reads a pipe to its end, failing past [`MAX_REPLY`] bytes.
async fn read_bounded<R: tokio::io::AsyncRead + Unpin>(
    pipe: Option<R>,
) -> Result<String, JudgeError> {
    let Some(pipe) = pipe else {
        return Ok(String::new());
    };
    let mut buf = Vec::new();
    let mut limited = pipe.take(MAX_REPLY as u64 + 1);
    limited
        .read_to_end(&mut buf)
        .await
        .map_err(|source| JudgeError::Io {
            during: "reading the judge's output",
            source,
        })?;
    if buf.len() > MAX_REPLY {
        return Err(JudgeError::Malformed(format!(
            "the judge printed more than {MAX_REPLY} bytes"
        )));
    }
    Ok(String::from_utf8_lossy(&buf).into_owned())
}

/// The last `max` bytes of `text` (at a character boundary), trimmed.
fn tail(text: &str, max: usize) -> String {
    let text = text.trim();
    if text.len() <= max {
        return text.to_string();
    }
    let mut start = text.len() - max;
    while !text.is_char_boundary(start) {
        start += 1;
    }
    format!("… {}", &text[start..])
}
