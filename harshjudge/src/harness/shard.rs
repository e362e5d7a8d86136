//! `--shard i/n`: which scenarios the `i`-th of `n` CI jobs runs.
//!
//! The split is a pure function of the registered scenarios and their recorded
//! durations (`avgDuration` in each `meta.yaml`), so every shard computes the same
//! split and each scenario lands in exactly one shard. Scenarios are placed
//! longest first, each on the shard with the least work so far (ties: the lower
//! shard); a scenario without a recorded duration counts as the mean of the
//! recorded ones, and when none is recorded every scenario counts as one (a split
//! by count).

use std::fmt;

use harshjudge_store::store::{Slug, Store};

/// One shard of a suite: `index` of `count`, counted from 1.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Shard {
    /// Which shard, from 1 to `count`.
    pub index: u32,
    /// How many shards the suite is split into.
    pub count: u32,
}

impl fmt::Display for Shard {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}/{}", self.index, self.count)
    }
}

/// A shard that is not `i/n` with 1 ≤ i ≤ n: the flag and the value given.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error(
    "{flag} {value:?} is invalid: expected i/n, the i-th of n shards with 1 <= i <= n, e.g. {flag} 2/3"
)]
pub struct ShardError {
    /// The flag (`--shard`).
    pub flag: &'static str,
    /// The value given.
    pub value: String,
}

impl Shard {
    /// Parses `i/n` (1 ≤ i ≤ n); `flag` names the flag in the error.
    pub fn parse(v: &str, flag: &'static str) -> Result<Shard, ShardError> {
        let bad = || ShardError {
            flag,
            value: v.into(),
        };
        let (i, n) = v.trim().split_once('/').ok_or_else(bad)?;
        let index: u32 = i.trim().parse().map_err(|_| bad())?;
        let count: u32 = n.trim().parse().map_err(|_| bad())?;
        if index == 0 || count == 0 || index > count {
            return Err(bad());
        }
        Ok(Shard { index, count })
    }
}

/// Splits `scenarios` (slug, recorded average duration in ms if any) into
/// `count` shards; returns each shard's slugs in the order given. Every slug is
/// in exactly one shard; the result does not depend on the input order.
pub fn split<'a>(scenarios: &[(&'a str, Option<u64>)], count: u32) -> Vec<Vec<&'a str>> {
    let count = count.max(1) as usize;
    let known: Vec<u64> = scenarios.iter().filter_map(|(_, d)| *d).collect();
    let fallback = if known.is_empty() {
        1
    } else {
        (known.iter().sum::<u64>() / known.len() as u64).max(1)
    };
    let mut order: Vec<(u64, &'a str)> = scenarios
        .iter()
        .map(|(slug, d)| (d.unwrap_or(fallback).max(1), *slug))
        .collect();
    // Longest first; equal durations by slug, so that the split is the same
    // whatever order the scenarios were registered in.
    order.sort_by(|a, b| b.0.cmp(&a.0).then(a.1.cmp(b.1)));
    let mut load = vec![0u64; count];
    let mut shard_of: std::collections::HashMap<&str, usize> = Default::default();
    for (w, slug) in order {
        let (best, _) = load
            .iter()
            .enumerate()
            .min_by_key(|(i, l)| (**l, *i))
            .expect("at least one shard");
        load[best] += w;
        shard_of.insert(slug, best);
    }
    let mut out = vec![Vec::new(); count];
    for (slug, _) in scenarios {
        out[shard_of[slug]].push(*slug);
    }
    out
}

/// The slugs of `shard` (see [`split`]).
pub fn select<'a>(scenarios: &[(&'a str, Option<u64>)], shard: Shard) -> Vec<&'a str> {
    split(scenarios, shard.count).swap_remove(shard.index as usize - 1)
}

/// Each slug with its recorded average duration in `store` (`avgDuration` of a
/// `meta.yaml` with at least one run), `None` when there is none.
pub fn durations<'a>(
    store: Option<&Store>,
    slugs: impl IntoIterator<Item = &'a str>,
) -> Vec<(&'a str, Option<u64>)> {
    slugs
        .into_iter()
        .map(|slug| {
            let avg = store
                .zip(Slug::new(slug).ok())
                .and_then(|(st, s)| st.scenario(&s).meta().ok().flatten())
                .filter(|m| m.total_runs > 0 && m.avg_duration > 0)
                .map(|m| m.avg_duration);
            (slug, avg)
        })
        .collect()
}

/// The note the harness prints for `shard`: which scenarios, and how the split
/// was balanced.
pub fn note(shard: Shard, input: &[(&str, Option<u64>)], mine: &[&str]) -> String {
    let by = if input.iter().any(|(_, d)| d.is_some()) {
        "balanced by the durations recorded in meta.yaml"
    } else {
        "no durations recorded yet: balanced by count"
    };
    format!(
        "--shard {shard}: running {} of {} scenario(s) ({by}): {}",
        mine.len(),
        input.len(),
        if mine.is_empty() {
            "none".to_string()
        } else {
            mine.join(", ")
        }
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn names(n: usize) -> Vec<String> {
        (0..n).map(|i| format!("scenario-{i:02}")).collect()
    }

    #[test]
    fn parse_takes_i_of_n_and_names_the_flag_when_wrong() {
        assert_eq!(
            Shard::parse("2/3", "--shard").unwrap(),
            Shard { index: 2, count: 3 }
        );
        assert_eq!(Shard::parse("1/1", "--shard").unwrap().to_string(), "1/1");
        for bad in ["0/3", "4/3", "3", "a/b", "1/0", "-1/3", "", "2/3/4"] {
            let e = Shard::parse(bad, "--shard").unwrap_err().to_string();
            assert!(
                e.starts_with(&format!("--shard {bad:?} is invalid"))
                    && e.contains("expected i/n")
                    && e.contains("--shard 2/3"),
                "{e}"
            );
        }
    }

    #[test]
    fn every_scenario_is_in_exactly_one_shard() {
        let owned = names(23);
        for with_durations in [false, true] {
            let input: Vec<(&str, Option<u64>)> = owned
                .iter()
                .enumerate()
                .map(|(i, s)| {
                    let d = (with_durations && i % 3 != 0).then_some(100 + (i as u64 * 37) % 900);
                    (s.as_str(), d)
                })
                .collect();
            for n in 1..=30 {
                let shards = split(&input, n);
                assert_eq!(shards.len(), n as usize);
                let mut all: Vec<&str> = shards.concat();
                all.sort();
                let mut expected: Vec<&str> = owned.iter().map(String::as_str).collect();
                expected.sort();
                assert_eq!(all, expected, "n = {n}");
                for i in 1..=n {
                    assert_eq!(
                        select(&input, Shard { index: i, count: n }),
                        shards[i as usize - 1]
                    );
                }
            }
        }
    }

    #[test]
    fn the_split_does_not_depend_on_the_input_order() {
        let owned = names(17);
        let input: Vec<(&str, Option<u64>)> = owned
            .iter()
            .enumerate()
            .map(|(i, s)| (s.as_str(), Some([500, 500, 1200, 80][i % 4])))
            .collect();
        let mut reversed = input.clone();
        reversed.reverse();
        fn sorted(mut v: Vec<Vec<&str>>) -> Vec<Vec<&str>> {
            v.iter_mut().for_each(|s| s.sort());
            v
        }
        for n in 1..=6 {
            assert_eq!(sorted(split(&input, n)), sorted(split(&reversed, n)));
            assert_eq!(split(&input, n), split(&input, n));
        }
    }

    #[test]
    fn without_durations_shards_differ_by_at_most_one_scenario() {
        let owned = names(10);
        let input: Vec<(&str, Option<u64>)> = owned.iter().map(|s| (s.as_str(), None)).collect();
        let sizes: Vec<usize> = split(&input, 3).iter().map(Vec::len).collect();
        assert_eq!(sizes, [4, 3, 3]);
        let sizes: Vec<usize> = split(&input, 4).iter().map(Vec::len).collect();
        assert_eq!(sizes, [3, 3, 2, 2]);
    }

    #[test]
    fn recorded_durations_balance_the_time_not_the_count() {
        // One long scenario and six short ones: by count each of 2 shards would
        // get 3-4 scenarios and one of them the 60 s one; by time the long one
        // runs alone.
        let input = [
            ("long", Some(60_000)),
            ("a", Some(10_000)),
            ("b", Some(10_000)),
            ("c", Some(10_000)),
            ("d", Some(10_000)),
            ("e", Some(10_000)),
            ("f", Some(10_000)),
        ];
        let shards = split(&input, 2);
        assert_eq!(shards[0], ["long"]);
        assert_eq!(shards[1], ["a", "b", "c", "d", "e", "f"]);

        // Generally: the busiest and the idlest shard differ by at most the
        // longest scenario (each one goes to the idlest shard).
        let owned = names(40);
        let input: Vec<(&str, Option<u64>)> = owned
            .iter()
            .enumerate()
            .map(|(i, s)| (s.as_str(), Some(((i as u64 * 7919) % 5000) + 50)))
            .collect();
        let dur: std::collections::HashMap<&str, u64> =
            input.iter().map(|(s, d)| (*s, d.unwrap())).collect();
        let longest = *dur.values().max().unwrap();
        for n in 2..=8 {
            let loads: Vec<u64> = split(&input, n)
                .iter()
                .map(|s| s.iter().map(|x| dur[x]).sum())
                .collect();
            let (max, min) = (loads.iter().max().unwrap(), loads.iter().min().unwrap());
            assert!(max - min <= longest, "n = {n}: {loads:?}");
            // And far better than the worst case: within 15% of the ideal.
            let ideal = loads.iter().sum::<u64>() as f64 / n as f64;
            assert!((*max as f64) <= ideal * 1.15, "n = {n}: {loads:?}");
        }
    }

    #[test]
    fn a_scenario_without_a_duration_counts_as_the_mean() {
        // new (never run) counts as 1000 ms, the mean of the recorded two.
        let input = [("slow", Some(1500)), ("fast", Some(500)), ("new", None)];
        let shards = split(&input, 2);
        assert_eq!(shards[0], ["slow"]);
        assert_eq!(shards[1], ["fast", "new"]);
    }
}
