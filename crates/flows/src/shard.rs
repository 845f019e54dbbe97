//! How a suite is split over machines, one convention for `exec` and `eval`:
//! `--shard I/N` counts from 1, as Playwright, Jest and GitLab do, and the k-th item
//! of the suite (from 0, in its fixed order) belongs to shard `k mod N + 1`, so the
//! N shards together run every item once. With no `--shard`, the index and the
//! count come from where CI systems and Kubernetes put them: `CODEACT_SHARD=I/N`;
//! a Kubernetes Indexed Job's `JOB_COMPLETION_INDEX` (from 0) with the count given
//! once (`--shards N` or `CODEACT_SHARDS`, the Job's completions); GitLab's
//! `CI_NODE_INDEX`/`CI_NODE_TOTAL` (from 1); CircleCI's
//! `CIRCLE_NODE_INDEX`/`CIRCLE_NODE_TOTAL` and Buildkite's
//! `BUILDKITE_PARALLEL_JOB`/`BUILDKITE_PARALLEL_JOB_COUNT` (from 0). Not what is
//! split (`script/suite.rs`, `eval/job.rs`).

/// One part of a suite split N ways: `1/2` and `2/2` together run every item once.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Shard {
    /// From 1.
    pub index: usize,
    pub count: usize,
}

/// A shard that is not I/N with 1 <= I <= N.
#[derive(Debug, thiserror::Error)]
#[error(
    "{given:?} is not a shard: shards are I/N with 1 <= I <= N, counted from 1 (1/4 ... 4/4){}",
    if self.given.trim_start().starts_with("0/") { "; a Kubernetes or CircleCI index counts from 0: add 1, or leave --shard out and let codeact read JOB_COMPLETION_INDEX" } else { "" }
)]
pub struct BadShard {
    pub given: String,
}

/// Why the environment's shard cannot be used.
#[derive(Debug, thiserror::Error)]
pub enum ShardEnvError {
    #[error("{variable}={value:?} is not a shard index")]
    BadIndex { variable: &'static str, value: String },
    #[error("{variable}={value:?} is not a count of shards")]
    BadCount { variable: &'static str, value: String },
    #[error(
        "JOB_COMPLETION_INDEX={index} says which shard this is, but not how many there are: pass --shards N (the Job's completions) or set CODEACT_SHARDS"
    )]
    NoCount { index: usize },
    #[error("{variable}={value} is not one of the {count} shards there are ({counted}; {variable} counts from {from})")]
    OutOfRange { variable: &'static str, value: usize, from: usize, count: usize, counted: &'static str },
    #[error("CODEACT_SHARD: {0}")]
    Variable(BadShard),
    #[error(
        "--shards {count} counts a Kubernetes Indexed Job's shards, but JOB_COMPLETION_INDEX is not set: give --shard I/N instead"
    )]
    CountAlone { count: usize },
    #[error(transparent)]
    Bad(#[from] BadShard),
}

/// The shard a run is: `--shard` when given, else the environment's (see the
/// module's header), with where it came from in words. `None`: the whole suite.
pub fn resolve(
    flag: Option<Shard>,
    count: Option<usize>,
    var: &dyn Fn(&str) -> Option<String>,
) -> Result<Option<(Shard, String)>, ShardEnvError> {
    if let Some(shard) = flag {
        return Ok(Some((shard, "--shard".to_string())));
    }
    let found = Shard::from_env(var, count)?;
    match (found, count) {
        (None, Some(count)) if var("JOB_COMPLETION_INDEX").is_none() => Err(ShardEnvError::CountAlone { count }),
        (found, _) => Ok(found),
    }
}

impl std::str::FromStr for Shard {
    type Err = BadShard;

    fn from_str(text: &str) -> Result<Self, BadShard> {
        let bad = || BadShard { given: text.to_string() };
        let (i, n) = text.split_once('/').ok_or_else(bad)?;
        let (index, count): (usize, usize) =
            (i.trim().parse().map_err(|_| bad())?, n.trim().parse().map_err(|_| bad())?);
        if index == 0 || index > count {
            return Err(bad());
        }
        Ok(Shard { index, count })
    }
}

impl std::fmt::Display for Shard {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}/{}", self.index, self.count)
    }
}

/// The CI systems whose parallel jobs say which one they are: the index variable,
/// the count variable, and whether the index counts from 0.
const CI_VARIABLES: [(&str, &str, bool); 3] = [
    ("CI_NODE_INDEX", "CI_NODE_TOTAL", false),
    ("CIRCLE_NODE_INDEX", "CIRCLE_NODE_TOTAL", true),
    ("BUILDKITE_PARALLEL_JOB", "BUILDKITE_PARALLEL_JOB_COUNT", true),
];

impl Shard {
    /// Whether item `k` (from 0, in the suite's fixed order) is this shard's.
    pub fn takes(&self, k: usize) -> bool {
        k % self.count.max(1) + 1 == self.index
    }

    /// The shard the environment names (`var` reads a variable), and where it
    /// came from in words; `count` is `--shards N`, when given. `None`: no shard
    /// named, or a count of one (the whole suite).
    pub fn from_env(
        var: &dyn Fn(&str) -> Option<String>,
        count: Option<usize>,
    ) -> Result<Option<(Shard, String)>, ShardEnvError> {
        let read = |name: &str| var(name).map(|v| v.trim().to_string()).filter(|v| !v.is_empty());
        if let Some(given) = read("CODEACT_SHARD") {
            let shard: Shard = given.parse().map_err(ShardEnvError::Variable)?;
            return Ok(Some((shard, format!("CODEACT_SHARD={shard}"))).filter(|(s, _)| s.count > 1));
        }
        let number = |variable: &'static str, value: String, index: bool| {
            value.parse::<usize>().map_err(|_| match index {
                true => ShardEnvError::BadIndex { variable, value },
                false => ShardEnvError::BadCount { variable, value },
            })
        };
        if let Some(value) = read("JOB_COMPLETION_INDEX") {
            let index = number("JOB_COMPLETION_INDEX", value, true)?;
            let (count, counted) = match (count, read("CODEACT_SHARDS")) {
                (Some(n), _) => (n, "--shards"),
                (None, Some(value)) => (number("CODEACT_SHARDS", value, false)?, "CODEACT_SHARDS"),
                (None, None) => return Err(ShardEnvError::NoCount { index }),
            };
            return within("JOB_COMPLETION_INDEX", index, 0, count, counted).map(|s| {
                Some((s, format!("JOB_COMPLETION_INDEX={index} of {count} ({counted})"))).filter(|_| count > 1)
            });
        }
        for (index_var, count_var, from_zero) in CI_VARIABLES {
            let (Some(index), Some(total)) = (read(index_var), read(count_var)) else { continue };
            let (index, total) = (number(index_var, index, true)?, number(count_var, total, false)?);
            let shard = within(index_var, index, usize::from(!from_zero), total, count_var)?;
            return Ok(Some((shard, format!("{index_var}={index} of {count_var}={total}"))).filter(|_| total > 1));
        }
        Ok(None)
    }
}

/// Shard `value` of `count` as `variable` counts (from `from`: 0 or 1), or why it
/// is out of range.
fn within(
    variable: &'static str,
    value: usize,
    from: usize,
    count: usize,
    counted: &'static str,
) -> Result<Shard, ShardEnvError> {
    // Checked before any arithmetic: an index at the edge of the integer range must
    // not wrap around to a shard that runs nothing and passes.
    let out_of_range = || ShardEnvError::OutOfRange { variable, value, from, count, counted };
    let from = from.min(1);
    if value < from {
        return Err(out_of_range());
    }
    let index = (value - from).checked_add(1).ok_or_else(out_of_range)?;
    if index > count {
        return Err(out_of_range());
    }
    Ok(Shard { index, count })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn env<'a>(pairs: &'a [(&'a str, &'a str)]) -> impl Fn(&str) -> Option<String> + 'a {
        move |name| pairs.iter().find(|(k, _)| *k == name).map(|(_, v)| v.to_string())
    }

    #[test]
    fn shards_count_from_one_and_together_take_everything_once() {
        assert_eq!("2/3".parse::<Shard>().ok(), Some(Shard { index: 2, count: 3 }));
        assert_eq!(" 3 / 3 ".parse::<Shard>().ok(), Some(Shard { index: 3, count: 3 }));
        for bad in ["0/3", "4/3", "1", "a/b", "1/0", "-1/2", ""] {
            assert!(bad.parse::<Shard>().is_err(), "{bad}");
        }
        let zero = "0/3".parse::<Shard>().err().map(|e| e.to_string()).unwrap_or_default();
        assert!(zero.contains("counts from 0") && zero.contains("JOB_COMPLETION_INDEX"), "{zero}");
        let shards: Vec<Shard> = (1..=3).map(|index| Shard { index, count: 3 }).collect();
        for k in 0..10 {
            assert_eq!(shards.iter().filter(|s| s.takes(k)).count(), 1, "item {k}");
        }
    }

    #[test]
    fn the_environment_names_the_shard_the_way_each_system_counts() {
        let shard = |pairs: &[(&str, &str)], count| {
            Shard::from_env(&env(pairs), count).map(|s| s.map(|(s, _)| s.to_string())).map_err(|e| e.to_string())
        };
        assert_eq!(shard(&[], None), Ok(None));
        assert_eq!(shard(&[("CODEACT_SHARD", "2/4")], None), Ok(Some("2/4".into())));
        assert_eq!(shard(&[("JOB_COMPLETION_INDEX", "0")], Some(3)), Ok(Some("1/3".into())));
        assert_eq!(shard(&[("JOB_COMPLETION_INDEX", "2"), ("CODEACT_SHARDS", "3")], None), Ok(Some("3/3".into())));
        assert!(shard(&[("JOB_COMPLETION_INDEX", "1")], None).is_err_and(|e| e.contains("--shards N")));
        let past = shard(&[("JOB_COMPLETION_INDEX", "3")], Some(3));
        assert!(
            past.as_ref().is_err_and(|e| e.contains("=3 is not one of the 3 shards") && e.contains("from 0")),
            "{past:?}"
        );
        assert!(shard(&[("CI_NODE_INDEX", "0"), ("CI_NODE_TOTAL", "2")], None).is_err_and(|e| e.contains("from 1")));
        assert!(shard(&[("CODEACT_SHARD", "3/2")], None).is_err_and(|e| e.starts_with("CODEACT_SHARD: ")));
        assert_eq!(shard(&[("CI_NODE_INDEX", "1"), ("CI_NODE_TOTAL", "2")], None), Ok(Some("1/2".into())));
        assert_eq!(shard(&[("CIRCLE_NODE_INDEX", "1"), ("CIRCLE_NODE_TOTAL", "2")], None), Ok(Some("2/2".into())));
        let buildkite = [("BUILDKITE_PARALLEL_JOB", "0"), ("BUILDKITE_PARALLEL_JOB_COUNT", "4")];
        assert_eq!(shard(&buildkite, None), Ok(Some("1/4".into())));
        assert_eq!(
            shard(&[("CI_NODE_INDEX", "1"), ("CI_NODE_TOTAL", "1")], None),
            Ok(None),
            "one shard: the whole suite"
        );
        assert!(shard(&[("CI_NODE_INDEX", "x"), ("CI_NODE_TOTAL", "2")], None).is_err());
        let flag = Some(Shard { index: 1, count: 2 });
        let circle = [("CIRCLE_NODE_INDEX", "1"), ("CIRCLE_NODE_TOTAL", "2")];
        assert_eq!(resolve(flag, None, &env(&circle)).ok().flatten().map(|(s, _)| s), flag, "the flag wins");
        assert!(resolve(None, Some(3), &env(&[])).is_err_and(|e| e.to_string().contains("--shard I/N")));
    }

    #[test]
    fn an_index_at_the_edge_of_the_integer_range_is_refused_not_wrapped() {
        let max = usize::MAX.to_string();
        let near = (usize::MAX - 1).to_string();
        let shard = |pairs: &[(&str, &str)], count| Shard::from_env(&env(pairs), count).map(|s| s.map(|(s, _)| s));
        for (index, total) in [("CIRCLE_NODE_INDEX", "CIRCLE_NODE_TOTAL"), ("CI_NODE_INDEX", "CI_NODE_TOTAL")] {
            for value in [max.as_str(), near.as_str()] {
                let got = shard(&[(index, value), (total, "3")], None);
                assert!(matches!(got, Err(ShardEnvError::OutOfRange { .. })), "{index}={value}: {got:?}");
            }
        }
        for value in [max.as_str(), near.as_str()] {
            let got = shard(&[("JOB_COMPLETION_INDEX", value)], Some(3));
            assert!(matches!(got, Err(ShardEnvError::OutOfRange { .. })), "JOB_COMPLETION_INDEX={value}: {got:?}");
            let total = shard(&[("CIRCLE_NODE_INDEX", "0"), ("CIRCLE_NODE_TOTAL", value)], None);
            assert!(total.is_ok(), "a huge count is a count: {total:?}");
        }
        let too_big = format!("{max}0");
        assert!(matches!(
            shard(&[("CIRCLE_NODE_INDEX", &too_big), ("CIRCLE_NODE_TOTAL", "3")], None),
            Err(ShardEnvError::BadIndex { .. })
        ));
        assert!(format!("1/{max}").parse::<Shard>().is_ok());
        assert!(format!("{max}/{max}").parse::<Shard>().is_ok_and(|s| !s.takes(0) && s.takes(usize::MAX - 1)));
    }
}
