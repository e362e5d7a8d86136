//! The step's console lines and requests put in the entries they happened
//! in, by time: a console line in the entry whose `[start, end]` holds its
//! timestamp, a request in the entry whose span holds its start (a request
//! the click sent belongs to the click even when it ends later). The rest go
//! `between` the entries. Pure: the data is the step log's, taken at the
//! step's end.

use super::Entry;
use crate::logs::{ConsoleEntry, NetworkEntry};
use crate::trace::{TraceConsole, TraceRequest};

/// The console lines and requests of each entry (in the entries' order), and
/// those of no entry.
#[derive(Debug, Default, PartialEq)]
pub(crate) struct Assigned {
    pub entries: Vec<(Vec<TraceConsole>, Vec<TraceRequest>)>,
    pub between: (Vec<TraceConsole>, Vec<TraceRequest>),
}

/// The entry holding the moment `t` (ms): of overlapping entries (two calls
/// joined on one task), the one that began last.
fn holder(entries: &[Entry], t: f64) -> Option<usize> {
    // Console timestamps are whole ms: an entry begun within the ms holds it.
    (entries.iter().enumerate())
        .filter(|(_, e)| e.start.floor() <= t && t <= e.end)
        .max_by(|(_, a), (_, b)| a.start.total_cmp(&b.start))
        .map(|(i, _)| i)
}

/// Assigns `console` and `network` to `entries` (see the module).
pub(crate) fn assign(
    entries: &[Entry],
    console: &[ConsoleEntry],
    network: &[NetworkEntry],
) -> Assigned {
    let mut out = Assigned {
        entries: vec![(Vec::new(), Vec::new()); entries.len()],
        between: Default::default(),
    };
    for c in console {
        let line = TraceConsole {
            level: c.level.clone(),
            text: c.text.clone(),
            source: c.source.clone(),
            url: c.url.clone(),
            timestamp: c.timestamp,
        };
        match holder(entries, c.timestamp as f64) {
            Some(i) => out.entries[i].0.push(line),
            None => out.between.0.push(line),
        }
    }
    for r in network {
        let request = TraceRequest {
            method: r.method.clone(),
            url: r.url.clone(),
            status: r.status,
            kind: r.kind.clone(),
            timing: r.timing,
            failure: r.failure.clone(),
            started_at: r.started_at,
        };
        match r.started_at.and_then(|t| holder(entries, t)) {
            Some(i) => out.entries[i].1.push(request),
            None => out.between.1.push(request),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::trace::{CallText, Kind};

    fn entry(start: f64, end: f64) -> Entry {
        Entry {
            seq: 0,
            page: 0,
            frame: None,
            kind: Kind::Action,
            call: CallText::locator("page.locator(\"b\")", "click", String::new()),
            at: std::panic::Location::caller(),
            start,
            end,
            failure: None,
            unfinished: false,
            log: Vec::new(),
            target: None,
        }
    }

    fn console(text: &str, timestamp: u64) -> ConsoleEntry {
        ConsoleEntry {
            level: "error".into(),
            text: text.into(),
            source: "console-api".into(),
            url: None,
            line: None,
            timestamp,
        }
    }

    fn request(url: &str, started_at: Option<f64>, timing: f64) -> NetworkEntry {
        NetworkEntry {
            method: "POST".into(),
            url: url.into(),
            status: Some(500),
            kind: "Fetch".into(),
            timing: Some(timing),
            failure: None,
            request_id: None,
            redirect_count: None,
            intercepted: None,
            started_at,
        }
    }

    fn texts(a: &Assigned) -> Vec<Vec<String>> {
        let mut v: Vec<Vec<String>> = (a.entries.iter())
            .map(|(c, n)| {
                (c.iter().map(|c| c.text.clone()))
                    .chain(n.iter().map(|r| r.url.clone()))
                    .collect()
            })
            .collect();
        v.push(
            (a.between.0.iter().map(|c| c.text.clone()))
                .chain(a.between.1.iter().map(|r| r.url.clone()))
                .collect(),
        );
        v
    }

    #[test]
    fn a_request_started_in_an_action_belongs_to_it_though_it_ends_after() {
        let entries = [entry(100.0, 200.0), entry(300.0, 400.0)];
        // Sent at 150, answered 500 ms later: long after the click ended.
        let a = assign(&entries, &[], &[request("/api/items", Some(150.0), 500.0)]);
        assert_eq!(texts(&a), [vec!["/api/items"], vec![], vec![]]);
        assert_eq!(a.entries[0].1[0].started_at, Some(150.0));
    }

    #[test]
    fn console_at_the_exact_end_belongs_to_the_action() {
        let entries = [entry(100.0, 200.0), entry(300.0, 400.0)];
        let a = assign(&entries, &[console("end", 200), console("start", 300)], &[]);
        assert_eq!(texts(&a), [vec!["end"], vec!["start"], vec![]]);
        // A start within the millisecond of the line holds it (whole ms).
        let a = assign(&[entry(99.6, 120.0)], &[console("same ms", 99)], &[]);
        assert_eq!(texts(&a), [vec!["same ms"], vec![]]);
    }

    #[test]
    fn gaps_and_unknown_starts_go_between() {
        let entries = [entry(100.0, 200.0), entry(300.0, 400.0)];
        let a = assign(
            &entries,
            &[
                console("before", 50),
                console("gap", 250),
                console("after", 401),
            ],
            &[
                request("/gap", Some(201.0), 1.0),
                // Classic WebDriver: no start known.
                request("/classic", None, 1.0),
            ],
        );
        assert_eq!(
            texts(&a),
            [
                vec![],
                vec![],
                vec!["before", "gap", "after", "/gap", "/classic"]
            ]
        );
    }

    #[test]
    fn overlapping_entries_give_a_moment_to_the_one_begun_last() {
        // Two clicks joined on one task.
        let entries = [entry(100.0, 400.0), entry(150.0, 300.0)];
        let a = assign(&entries, &[console("mid", 200), console("late", 350)], &[]);
        assert_eq!(texts(&a), [vec!["late"], vec!["mid"], vec![]]);
    }
}
