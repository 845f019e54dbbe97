//! The benchmark's tables: one row per exploration, then per budget and strategy
//! the totals over every app (activities reached of those declared, screens,
//! widgets, planted crashes found, the median time to a crash), as Markdown for
//! people and JSON (`bench.json`) for scripts. Pure formatting: nothing runs here.

use std::fmt::Write as _;

use serde::{Deserialize, Serialize};

use super::row::BenchRow;

/// One budget and strategy, over every app.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct Totals {
    pub budget: usize,
    pub strategy: String,
    pub apps: usize,
    pub activities: usize,
    pub declared: usize,
    pub screens: usize,
    pub widgets: usize,
    pub crashes_found: usize,
    pub crashes_planted: usize,
    /// The median seconds into a run at which a planted crash was found.
    pub median_seconds_to_crash: Option<f64>,
    /// The median actions into a run at which a planted crash was found.
    pub median_actions_to_crash: Option<f64>,
    pub seconds: f64,
    /// Explorations that ended in an error.
    pub errors: usize,
}

/// `bench.json`: the rows and their totals.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct BenchTable {
    pub schema: u32,
    pub seed: u64,
    pub rows: Vec<BenchRow>,
    pub totals: Vec<Totals>,
}

fn median(mut values: Vec<f64>) -> Option<f64> {
    if values.is_empty() {
        return None;
    }
    values.sort_by(f64::total_cmp);
    let mid = values.len() / 2;
    Some(if values.len().is_multiple_of(2) { (values[mid - 1] + values[mid]) / 2.0 } else { values[mid] })
}

impl BenchTable {
    pub fn new(rows: Vec<BenchRow>, seed: u64) -> Self {
        let mut keys: Vec<(usize, String)> = Vec::new();
        for r in &rows {
            if !keys.iter().any(|(b, s)| *b == r.budget && *s == r.strategy) {
                keys.push((r.budget, r.strategy.clone()));
            }
        }
        let totals = keys
            .into_iter()
            .map(|(budget, strategy)| {
                let mine: Vec<&BenchRow> =
                    rows.iter().filter(|r| r.budget == budget && r.strategy == strategy).collect();
                let found = || mine.iter().flat_map(|r| r.crashes.iter());
                Totals {
                    budget,
                    apps: mine.len(),
                    activities: mine.iter().map(|r| r.activities).sum(),
                    declared: mine.iter().map(|r| r.declared).sum(),
                    screens: mine.iter().map(|r| r.screens).sum(),
                    widgets: mine.iter().map(|r| r.widgets).sum(),
                    crashes_found: found().count(),
                    crashes_planted: mine.iter().map(|r| r.planted).sum(),
                    median_seconds_to_crash: median(found().map(|c| c.at_seconds).collect()),
                    median_actions_to_crash: median(found().map(|c| c.at_action as f64).collect()),
                    seconds: mine.iter().map(|r| r.seconds).sum(),
                    errors: mine.iter().filter(|r| r.error.is_some()).count(),
                    strategy,
                }
            })
            .collect();
        Self { schema: 1, seed, rows, totals }
    }

    /// The totals table, then one row per exploration. Text from a plan file goes
    /// through `clean` (one line, no terminal controls).
    pub fn markdown(&self, clean: fn(&str) -> String) -> String {
        let mut md = String::new();
        let _ = writeln!(
            md,
            "| budget | strategy | apps | activities | screens | widgets | crashes found | median to a crash | time s |"
        );
        let _ = writeln!(md, "|---:|---|---:|---:|---:|---:|---:|---:|---:|");
        for t in &self.totals {
            let ratio = if t.declared == 0 { 0.0 } else { 100.0 * t.activities as f64 / t.declared as f64 };
            let to_crash = match (t.median_seconds_to_crash, t.median_actions_to_crash) {
                (Some(s), Some(a)) => format!("{s:.2} s ({a:.0} actions)"),
                _ => "–".to_string(),
            };
            let errors = if t.errors > 0 { format!(" ⚠ {} failed", t.errors) } else { String::new() };
            let _ = writeln!(
                md,
                "| {} | {}{errors} | {} | {}/{} ({ratio:.0}%) | {} | {} | {}/{} | {to_crash} | {:.1} |",
                t.budget,
                t.strategy,
                t.apps,
                t.activities,
                t.declared,
                t.screens,
                t.widgets,
                t.crashes_found,
                t.crashes_planted,
                t.seconds
            );
        }
        let _ = writeln!(
            md,
            "\n| app | budget | strategy | activities | screens | widgets | crashes (s, actions) | time s |"
        );
        let _ = writeln!(md, "|---|---:|---|---:|---:|---:|---|---:|");
        for r in &self.rows {
            let crashes = if r.crashes.is_empty() {
                format!("0/{}", r.planted)
            } else {
                let each: Vec<String> = r
                    .crashes
                    .iter()
                    .map(|c| format!("{} {:.2} s, {}", clean(&c.widget), c.at_seconds, c.at_action))
                    .collect();
                format!("{}/{}: {}", r.crashes.len(), r.planted, each.join("; "))
            };
            let error = r.error.as_deref().map(|e| format!(" ⚠ {}", clean(e))).unwrap_or_default();
            let _ = writeln!(
                md,
                "| {} | {} | {}{error} | {}/{} | {} | {} | {crashes} | {:.1} |",
                clean(&r.app),
                r.budget,
                r.strategy,
                r.activities,
                r.declared,
                r.screens,
                r.widgets,
                r.seconds
            );
        }
        md
    }
}

#[cfg(test)]
mod tests {
    use super::super::CrashFound;
    use super::*;

    fn row(strategy: &str, activities: usize, crashes: Vec<CrashFound>) -> BenchRow {
        BenchRow {
            app: "a.b".into(),
            strategy: strategy.into(),
            budget: 100,
            actions: 100,
            seconds: 2.0,
            activities,
            declared: 4,
            screens: 5,
            widgets: 9,
            planted: 2,
            crashes,
            error: None,
            dir: None,
        }
    }

    #[test]
    fn totals_add_up_and_the_median_is_the_middle() {
        let found = |s: f64, a: usize| CrashFound { widget: "w".into(), at_seconds: s, at_action: a };
        let rows = vec![
            row("random", 1, vec![]),
            row("systematic", 4, vec![found(1.0, 10), found(3.0, 30)]),
            row("systematic", 3, vec![found(2.0, 20)]),
        ];
        let table = BenchTable::new(rows, 1);
        assert_eq!(table.totals.len(), 2);
        let s = &table.totals[1];
        assert_eq!((s.activities, s.declared, s.crashes_found, s.crashes_planted), (7, 8, 3, 4));
        assert_eq!(s.median_seconds_to_crash, Some(2.0));
        assert_eq!(table.totals[0].median_seconds_to_crash, None);
        let md = table.markdown(|t| t.to_string());
        assert!(md.contains("| 100 | systematic | 2 | 7/8 (88%) | 10 | 18 | 3/4 | 2.00 s (20 actions) |"), "{md}");
        assert!(md.contains("2/2: w 1.00 s, 10; w 3.00 s, 30"), "{md}");
    }
}
