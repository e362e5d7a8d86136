//! The test step's limit: a test that hangs (a browser that never answers)
//! would hold `cargo xtask test` until CI gives up, with nothing said. Past
//! the limit, the processes still running under the step are listed (which
//! test binary, which driver or browser, for how long) and killed, and the
//! step fails saying so.

use std::collections::BTreeMap;
use std::process::{Child, ExitStatus};
use std::time::{Duration, Instant};

/// How a bounded wait ended.
pub enum Waited {
    /// The step exited.
    Exited(ExitStatus),
    /// It ran past its limit: what ran under it then (each line: pid, seconds
    /// running, command line), all killed since.
    Hung(Vec<String>),
}

/// Waits for `child` up to `limit`; past it, lists and kills its descendants
/// and itself.
pub fn wait_bounded(child: &mut Child, limit: Duration) -> std::io::Result<Waited> {
    let started = Instant::now();
    loop {
        if let Some(status) = child.try_wait()? {
            return Ok(Waited::Exited(status));
        }
        if started.elapsed() >= limit {
            let tree = descendants(child.id());
            let listed = tree.iter().map(|p| p.line()).collect();
            // Leaves first would let parents restart nothing: all at once.
            for p in &tree {
                kill(p.pid);
            }
            let _ = child.kill();
            let _ = child.wait();
            return Ok(Waited::Hung(listed));
        }
        std::thread::sleep(Duration::from_millis(200));
    }
}

struct Proc {
    pid: u32,
    ppid: u32,
    /// Start time in clock ticks since boot.
    start: u64,
    args: String,
}

impl Proc {
    fn line(&self) -> String {
        let ticks = 100.0; // USER_HZ on Linux
        let up = std::fs::read_to_string("/proc/uptime")
            .ok()
            .and_then(|u| u.split_whitespace().next()?.parse::<f64>().ok())
            .unwrap_or(0.0);
        let running = (up - self.start as f64 / ticks).max(0.0);
        format!("{:>7} {:>6.0}s  {}", self.pid, running, self.args)
    }
}

fn read(pid: u32) -> Option<Proc> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    let (_, rest) = stat.rsplit_once(')')?;
    let fields: Vec<&str> = rest.split_whitespace().collect();
    // After the name: state (0), ppid (1), … starttime (19).
    if fields.first() == Some(&"Z") {
        return None;
    }
    let ppid = fields.get(1)?.parse().ok()?;
    let start = fields.get(19)?.parse().ok()?;
    let args = std::fs::read(format!("/proc/{pid}/cmdline")).ok()?;
    let args = String::from_utf8_lossy(&args)
        .trim_end_matches('\0')
        .replace('\0', " ");
    Some(Proc {
        pid,
        ppid,
        start,
        args,
    })
}

/// Every live process under `root` (children, theirs, …), parents first.
fn descendants(root: u32) -> Vec<Proc> {
    let mut by_parent: BTreeMap<u32, Vec<Proc>> = BTreeMap::new();
    for e in std::fs::read_dir("/proc").into_iter().flatten().flatten() {
        if let Some(p) = e
            .file_name()
            .to_str()
            .and_then(|n| n.parse::<u32>().ok())
            .and_then(read)
        {
            by_parent.entry(p.ppid).or_default().push(p);
        }
    }
    let mut out = Vec::new();
    let mut next = vec![root];
    while let Some(pid) = next.pop() {
        for p in by_parent.remove(&pid).unwrap_or_default() {
            next.push(p.pid);
            out.push(p);
        }
    }
    out
}

fn kill(pid: u32) {
    let _ = std::process::Command::new("kill")
        .args(["-KILL", &pid.to_string()])
        .stderr(std::process::Stdio::null())
        .status();
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_step_past_its_limit_is_listed_and_killed_with_what_it_started() {
        let mut child = std::process::Command::new("sh")
            .args(["-c", "sleep 37 & sleep 38; wait"])
            .spawn()
            .unwrap();
        let t = Instant::now();
        let Waited::Hung(listed) = wait_bounded(&mut child, Duration::from_millis(500)).unwrap()
        else {
            panic!("a step of 38 s ended within half a second");
        };
        assert!(t.elapsed() < Duration::from_secs(5), "{:?}", t.elapsed());
        let all = listed.join("\n");
        assert!(
            all.contains("sleep 37") && all.contains("sleep 38"),
            "{all}"
        );
        let pids: Vec<u32> = listed
            .iter()
            .filter_map(|l| l.split_whitespace().next()?.parse().ok())
            .collect();
        std::thread::sleep(Duration::from_millis(100));
        for pid in pids {
            assert!(read(pid).is_none(), "{pid} still runs");
        }
    }

    #[test]
    fn a_step_within_its_limit_gives_its_exit_status() {
        let mut child = std::process::Command::new("sh")
            .args(["-c", "exit 3"])
            .spawn()
            .unwrap();
        match wait_bounded(&mut child, Duration::from_secs(30)).unwrap() {
            Waited::Exited(s) => assert_eq!(s.code(), Some(3)),
            Waited::Hung(l) => panic!("hung: {l:?}"),
        }
    }
}
