//! How long an exploration may go on: a number of actions (`300`) or a time
//! (`90s`, `20m`, `1h`), whichever the user gives.

use std::time::Duration;

/// An exploration's budget.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Budget {
    /// Device actions: taps, typing, scrolls, Back, and the app (re)starts between.
    Actions(usize),
    Time(#[serde(with = "secs")] Duration),
}

mod secs {
    pub fn serialize<S: serde::Serializer>(d: &std::time::Duration, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_f64(d.as_secs_f64())
    }
}

/// A budget that is neither a count nor a time.
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
#[error("{0:?} is not a budget: give a number of actions (300) or a time (90s, 20m, 1h)")]
pub struct BadBudget(pub String);

/// The most actions a budget may name; a day at 20 actions a second.
const MAX_ACTIONS: usize = 2_000_000;
/// The longest time a budget may name.
const MAX_TIME: Duration = Duration::from_secs(7 * 24 * 3600);

impl std::str::FromStr for Budget {
    type Err = BadBudget;

    fn from_str(text: &str) -> Result<Self, Self::Err> {
        let bad = || BadBudget(text.to_string());
        let t = text.trim();
        let (number, unit) = t.split_at(t.find(|c: char| !c.is_ascii_digit()).unwrap_or(t.len()));
        let n: u64 = number.parse().map_err(|_| bad())?;
        if n == 0 {
            return Err(bad());
        }
        let secs = match unit.trim() {
            "" => return usize::try_from(n).ok().filter(|n| *n <= MAX_ACTIONS).map(Budget::Actions).ok_or_else(bad),
            "s" | "sec" | "secs" => n,
            "m" | "min" | "mins" => n.saturating_mul(60),
            "h" => n.saturating_mul(3600),
            _ => return Err(bad()),
        };
        let d = Duration::from_secs(secs);
        if d > MAX_TIME { Err(bad()) } else { Ok(Budget::Time(d)) }
    }
}

impl std::fmt::Display for Budget {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Budget::Actions(n) => write!(f, "{n} actions"),
            Budget::Time(d) => write!(f, "{} s", d.as_secs()),
        }
    }
}

impl Budget {
    /// Whether `actions` done in `elapsed` use it up.
    pub fn spent(&self, actions: usize, elapsed: Duration) -> bool {
        match self {
            Budget::Actions(n) => actions >= *n,
            Budget::Time(d) => elapsed >= *d,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn budgets_read_as_counts_or_times() {
        assert_eq!("300".parse(), Ok(Budget::Actions(300)));
        assert_eq!("20m".parse(), Ok(Budget::Time(Duration::from_secs(1200))));
        assert_eq!(" 90s".parse(), Ok(Budget::Time(Duration::from_secs(90))));
        assert_eq!("1h".parse(), Ok(Budget::Time(Duration::from_secs(3600))));
        for bad in ["", "0", "-5", "3x", "m", "99999999999999999999", "9999h", "1.5m"] {
            assert!(bad.parse::<Budget>().is_err(), "{bad}");
        }
        assert!(Budget::Actions(3).spent(3, Duration::ZERO));
        assert!(!Budget::Time(Duration::from_secs(2)).spent(1000, Duration::from_secs(1)));
    }
}
