//! Ctrl-C and SIGTERM during a harness run.

use std::sync::atomic::{AtomicI32, Ordering};

/// The signal that stopped the run (its exit code: 130 for SIGINT, 143 for
/// SIGTERM), 0 when none.
static SIGNALLED: AtomicI32 = AtomicI32::new(0);

/// The exit code a signal asks for, if one arrived.
pub fn signal_exit_code() -> Option<i32> {
    match SIGNALLED.load(Ordering::SeqCst) {
        0 => None,
        n => Some(n),
    }
}

/// Listens for Ctrl-C and SIGTERM on the harness's runtime. The first stops
/// every running scenario (each marks its run interrupted, its files written,
/// its browser released) and lets the harness finish normally; a second one
/// stops the run's chromedriver (`killer`'s) and exits at once.
pub(crate) fn listen_for_signals(rt: &tokio::runtime::Runtime, killer: harshjudge_browser::Killer) {
    rt.spawn(async move {
        let Ok(mut term) =
            tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate())
        else {
            return;
        };
        let (name, code) = tokio::select! {
            _ = tokio::signal::ctrl_c() => ("SIGINT (Ctrl-C)", 130),
            _ = term.recv() => ("SIGTERM", 143),
        };
        SIGNALLED.store(code, Ordering::SeqCst);
        eprintln!(
            "\nharshjudge: {name}: stopping the running scenarios and marking their runs interrupted (send it again to stop at once)"
        );
        crate::runner::interrupt_all(format!(
            "interrupted by {name} before the run ended; rerun with --resume to continue the suite"
        ));
        tokio::select! {
            _ = tokio::signal::ctrl_c() => {},
            _ = term.recv() => {},
        }
        eprintln!("harshjudge: stopping at once");
        let _ = harshjudge_store::store::flush_writes();
        killer.kill_now();
        harshjudge_browser::secrets::stdio::exit(code);
    });
}
