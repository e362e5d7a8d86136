//! The console masked: stdout and stderr (file descriptors 1 and 2) made the
//! write ends of pipes, each read by a thread that masks what comes and
//! writes it to the original descriptor. Everything that reaches the console
//! from this process passes there: libtest's lines, harshjudge's messages,
//! panics, and the children's output that inherits the descriptors.
//!
//! Only a suite's process does it ([`enable`], from the harness's `main`), and
//! only once a secret is known. A secret split between two writes is still
//! found: the reader holds back the last bytes of what it read (shorter than
//! the longest secret) until more comes or nothing has come for
//! [`IDLE`]. [`finish`] writes what is held before the process exits; what a
//! process killed (SIGKILL) or aborted held is lost.

use std::io::{Read, Write};
use std::os::fd::{AsFd, OwnedFd};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Condvar, Mutex, OnceLock};
use std::time::Duration;

/// How long the reader waits for more before it writes what it held back.
pub const IDLE: Duration = Duration::from_millis(15);

/// Set by [`enable`]: this process masks its console once a secret is known.
static ENABLED: AtomicBool = AtomicBool::new(false);

/// The two relays, once installed.
static RELAYS: OnceLock<Vec<Relay>> = OnceLock::new();

/// One masked descriptor.
struct Relay {
    /// 1 or 2.
    fd: i32,
    /// The descriptor it had before (the console, cargo's pipe, a file).
    original: OwnedFd,
    /// Flush requests written (`asked`) and served (`done`).
    flushes: Mutex<(u64, u64)>,
    flushed: Condvar,
    /// Written into the pipe by [`finish`]: the reader writes all it holds.
    marker: Vec<u8>,
}

/// Lets this process mask its stdout and stderr once a secret is known (now,
/// if one is). Called by the harness's `main`; a library user's process (a
/// unit test, the MCP server) is left alone. Returns whether stdout was a
/// terminal before (libtest's colours look at it).
pub fn enable() -> bool {
    let tty = std::io::IsTerminal::is_terminal(&std::io::stdout());
    ENABLED.store(true, Ordering::SeqCst);
    if super::any() {
        guard();
    }
    tty
}

/// Masks stdout and stderr from now on, once per process; nothing unless
/// [`enable`]d. A descriptor that cannot be piped stays as it is.
pub(crate) fn guard() {
    if !ENABLED.load(Ordering::SeqCst) {
        return;
    }
    RELAYS.get_or_init(|| {
        let _ = std::io::stdout().flush();
        [1, 2].into_iter().filter_map(install).collect()
    });
}

fn install(fd: i32) -> Option<Relay> {
    let original = match fd {
        1 => std::io::stdout().as_fd().try_clone_to_owned(),
        _ => std::io::stderr().as_fd().try_clone_to_owned(),
    }
    .ok()?;
    let (reader, writer) = std::io::pipe().ok()?;
    let replaced = match fd {
        1 => rustix::stdio::dup2_stdout(&writer),
        _ => rustix::stdio::dup2_stderr(&writer),
    };
    replaced.ok()?;
    drop(writer);
    let marker = format!("\0harshjudge-flush-{:016x}\0", rand::random::<u64>()).into_bytes();
    let relay = Relay {
        fd,
        original: original.try_clone().ok()?,
        flushes: Mutex::new((0, 0)),
        flushed: Condvar::new(),
        marker,
    };
    let out = std::fs::File::from(original);
    let name = if fd == 1 { "stdout" } else { "stderr" };
    let spawned = std::thread::Builder::new()
        .name(format!("harshjudge-mask-{name}"))
        .spawn(move || relay_loop(reader, out, fd));
    if spawned.is_err() {
        let _ = restore(&relay);
        return None;
    }
    Some(relay)
}

fn relays() -> Option<&'static Vec<Relay>> {
    RELAYS.get()
}

fn relay_of(fd: i32) -> Option<&'static Relay> {
    relays()?.iter().find(|r| r.fd == fd)
}

/// The reader of one pipe: masks and writes on, holding back a tail that may
/// be the start of a secret until more comes or [`IDLE`] passed.
fn relay_loop(mut reader: std::io::PipeReader, mut out: std::fs::File, fd: i32) {
    let mut pending: Vec<u8> = Vec::new();
    let mut chunk = vec![0u8; 64 * 1024];
    let mut nonblocking = false;
    let mut waited = false;
    loop {
        // Blocking while nothing is held; else a read that says "nothing yet".
        let want = !pending.is_empty();
        if want != nonblocking && rustix::io::ioctl_fionbio(&reader, want).is_ok() {
            nonblocking = want;
        }
        match reader.read(&mut chunk) {
            Ok(0) => {
                emit(&mut out, &pending, pending.len());
                return;
            }
            Ok(n) => {
                waited = false;
                pending.extend_from_slice(&chunk[..n]);
                if let Some(relay) = relay_of(fd) {
                    while let Some(at) = find(&pending, &relay.marker) {
                        emit(&mut out, &pending, at);
                        pending.drain(..at + relay.marker.len());
                        let mut f = relay.flushes.lock().unwrap_or_else(|e| e.into_inner());
                        f.1 += 1;
                        relay.flushed.notify_all();
                    }
                }
                let cut = pending.len() - held_back(&pending);
                emit(&mut out, &pending, cut);
                pending.drain(..cut);
            }
            Err(e) if e.kind() == std::io::ErrorKind::WouldBlock => {
                if waited {
                    emit(&mut out, &pending, pending.len());
                    pending.clear();
                    waited = false;
                } else {
                    std::thread::sleep(IDLE);
                    waited = true;
                }
            }
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(_) => {
                emit(&mut out, &pending, pending.len());
                return;
            }
        }
    }
}

/// How many bytes at the end of `pending` may begin a secret (or the flush
/// marker) that has not fully come yet.
fn held_back(pending: &[u8]) -> usize {
    let longest = super::current().map_or(0, |s| s.longest);
    let marker = relays()
        .and_then(|r| r.first())
        .map_or(0, |r| r.marker.len());
    let keep = longest.max(marker).saturating_sub(1).min(pending.len());
    // A secret found whole across the cut is written whole, masked.
    let cut = pending.len() - keep;
    match super::current() {
        Some(set) => set
            .finder
            .find_iter(pending)
            .find(|m| m.start() < cut && m.end() > cut)
            .map_or(keep, |m| pending.len() - m.end()),
        None => keep,
    }
}

/// Writes `pending[..upto]` masked (errors are dropped: a closed console
/// must not stop the process).
fn emit(out: &mut std::fs::File, pending: &[u8], upto: usize) {
    if upto == 0 {
        return;
    }
    let masked = super::mask_bytes(&pending[..upto]);
    let _ = out.write_all(&masked);
}

fn find(hay: &[u8], needle: &[u8]) -> Option<usize> {
    hay.windows(needle.len()).position(|w| w == needle)
}

/// Writes out everything the relays hold and gives stdout and stderr their
/// original descriptors back: called before the process exits (what is
/// printed after goes unmasked). Waits at most 5 s.
pub fn finish() {
    let Some(relays) = relays() else {
        return;
    };
    let _ = std::io::stdout().flush();
    for r in relays {
        let asked = {
            let mut f = r.flushes.lock().unwrap_or_else(|e| e.into_inner());
            f.0 += 1;
            f.0
        };
        // One write of fewer than PIPE_BUF bytes: never interleaved.
        let _ = rustix::io::write(fd_of(r.fd), &r.marker);
        let f = r.flushes.lock().unwrap_or_else(|e| e.into_inner());
        let _ = r
            .flushed
            .wait_timeout_while(f, Duration::from_secs(5), |f| f.1 < asked);
    }
    for r in relays {
        let _ = restore(r);
    }
}

fn fd_of(fd: i32) -> std::os::fd::BorrowedFd<'static> {
    if fd == 1 {
        // SAFETY: descriptor 1 stays open for the process's lifetime (it is
        // only ever replaced by dup2, never closed).
        unsafe { std::os::fd::BorrowedFd::borrow_raw(1) }
    } else {
        // SAFETY: as above, for descriptor 2.
        unsafe { std::os::fd::BorrowedFd::borrow_raw(2) }
    }
}

fn restore(r: &Relay) -> rustix::io::Result<()> {
    match r.fd {
        1 => rustix::stdio::dup2_stdout(&r.original),
        _ => rustix::stdio::dup2_stderr(&r.original),
    }
}

/// [`finish`], then `std::process::exit(code)`.
pub fn exit(code: i32) -> ! {
    finish();
    std::process::exit(code)
}
