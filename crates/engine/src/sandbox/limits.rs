//! The limits every snippet runs under, with defaults that suit an LLM's snippets and
//! hand-written scripts alike. Configurable from the CLI, a config file or a persona
//! (all through serde); this module only holds and checks the numbers.

use std::time::Duration;

use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, PartialEq, Deserialize, Serialize)]
#[serde(default, deny_unknown_fields)]
pub struct Limits {
    /// Rhai operations per snippet (statements, expressions, calls), callbacks included.
    pub max_operations: u64,
    /// Wall-clock time per snippet, in milliseconds (device calls included).
    pub timeout_ms: u64,
    /// Function call depth (recursion).
    pub max_call_levels: usize,
    /// Expression nesting depth (and inside functions).
    pub max_expr_depth: usize,
    pub max_string_size: usize,
    pub max_array_size: usize,
    pub max_map_size: usize,
    /// Variables alive in the kept scope.
    pub max_variables: usize,
    /// `fn` definitions kept across snippets.
    pub max_functions: usize,
    /// Bytes of `print`/`debug` output kept per snippet (the rest is cut, with a note).
    pub max_output: usize,
    /// The memory snippets may take, in MiB, beyond what the engine's worker process
    /// maps when it starts (its program and the engine's thread): a snippet that
    /// needs more is stopped (and the session's engine starts afresh).
    pub max_memory_mb: u64,
}

impl Default for Limits {
    fn default() -> Self {
        Self {
            max_operations: 5_000_000,
            timeout_ms: 30_000,
            max_call_levels: 48,
            max_expr_depth: 64,
            max_string_size: 1024 * 1024,
            max_array_size: 10_000,
            max_map_size: 10_000,
            max_variables: 1_000,
            max_functions: 256,
            max_output: 64 * 1024,
            max_memory_mb: 512,
        }
    }
}

/// Each limit with the range it may take. The lower bound is above 0 everywhere
/// (Rhai reads 0 as "unlimited"); the upper bounds keep every guard meaningful: past
/// them the parser or the engine's stack, not the limit, would stop a snippet.
pub const LIMIT_RANGES: &[(&str, u64, u64)] = &[
    ("max_operations", 1, 10_000_000_000),
    ("timeout_ms", 1, 24 * 3600 * 1000),
    ("max_call_levels", 1, 256),
    ("max_expr_depth", 1, 256),
    ("max_string_size", 1, 64 * 1024 * 1024),
    ("max_array_size", 1, 10_000_000),
    ("max_map_size", 1, 10_000_000),
    ("max_variables", 1, 100_000),
    ("max_functions", 1, 10_000),
    ("max_output", 1, 16 * 1024 * 1024),
    ("max_memory_mb", 64, 65_536),
];

/// The names of the limits, for help texts and error messages.
pub const LIMIT_NAMES: &[&str] = &[
    "max_operations",
    "timeout_ms",
    "max_call_levels",
    "max_expr_depth",
    "max_string_size",
    "max_array_size",
    "max_map_size",
    "max_variables",
    "max_functions",
    "max_output",
    "max_memory_mb",
];

/// Why a set of limits cannot be used.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum LimitError {
    #[error("unknown limit {0:?}; the limits are {names}", names = LIMIT_NAMES.join(", "))]
    Unknown(String),
    #[error("bad value for limit {name}: {problem}")]
    BadValue { name: String, problem: String },
    #[error(
        "limit {name} = {value} is out of range: it must be between {min} and {max}{}",
        if *.value == 0 { " (0 would mean unlimited)" } else { "" }
    )]
    OutOfRange { name: &'static str, value: u64, min: u64, max: u64 },
}

impl Limits {
    /// The defaults with each layer's keys laid over them in order (a persona, then
    /// codeact.toml, then the command line); unknown keys and values out of range
    /// are errors.
    pub fn layered<'a>(layers: impl IntoIterator<Item = &'a toml::Table>) -> Result<Self, LimitError> {
        let mut limits = Self::default();
        for layer in layers {
            for (key, value) in layer {
                limits.set(key, value)?;
            }
        }
        limits.validate()?;
        Ok(limits)
    }

    /// Sets one limit by name from a TOML value (a non-negative whole number).
    fn set(&mut self, key: &str, value: &toml::Value) -> Result<(), LimitError> {
        let bad = |problem: &str| LimitError::BadValue { name: key.to_string(), problem: problem.to_string() };
        let n = value.as_integer().ok_or_else(|| bad("it must be a whole number"))?;
        let n = u64::try_from(n).map_err(|_| bad("it must not be negative"))?;
        let size = || usize::try_from(n).map_err(|_| bad("it is too large"));
        match key {
            "max_operations" => self.max_operations = n,
            "timeout_ms" => self.timeout_ms = n,
            "max_call_levels" => self.max_call_levels = size()?,
            "max_expr_depth" => self.max_expr_depth = size()?,
            "max_string_size" => self.max_string_size = size()?,
            "max_array_size" => self.max_array_size = size()?,
            "max_map_size" => self.max_map_size = size()?,
            "max_variables" => self.max_variables = size()?,
            "max_functions" => self.max_functions = size()?,
            "max_output" => self.max_output = size()?,
            "max_memory_mb" => self.max_memory_mb = n,
            other => return Err(LimitError::Unknown(other.to_string())),
        }
        Ok(())
    }

    pub fn timeout(&self) -> Duration {
        Duration::from_millis(self.timeout_ms)
    }

    /// Each limit by name with its value.
    fn values(&self) -> [(&'static str, u64); 11] {
        [
            ("max_operations", self.max_operations),
            ("timeout_ms", self.timeout_ms),
            ("max_call_levels", self.max_call_levels as u64),
            ("max_expr_depth", self.max_expr_depth as u64),
            ("max_string_size", self.max_string_size as u64),
            ("max_array_size", self.max_array_size as u64),
            ("max_map_size", self.max_map_size as u64),
            ("max_variables", self.max_variables as u64),
            ("max_functions", self.max_functions as u64),
            ("max_output", self.max_output as u64),
            ("max_memory_mb", self.max_memory_mb),
        ]
    }

    /// Refuses a value outside its range, naming the range.
    pub fn validate(&self) -> Result<(), LimitError> {
        for (name, value) in self.values() {
            let Some(&(_, min, max)) = LIMIT_RANGES.iter().find(|(n, _, _)| *n == name) else { continue };
            if !(min..=max).contains(&value) {
                return Err(LimitError::OutOfRange { name, value, min, max });
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn layers_override_in_order_and_bad_keys_are_named() {
        let persona: toml::Table = toml::from_str("timeout_ms = 5000\nmax_operations = 10").unwrap();
        let cli: toml::Table = toml::from_str("timeout_ms = 100").unwrap();
        let l = Limits::layered([&persona, &cli]).unwrap();
        assert_eq!((l.timeout_ms, l.max_operations, l.max_output), (100, 10, Limits::default().max_output));
        let typo: toml::Table = toml::from_str("timeout = 1").unwrap();
        assert!(Limits::layered([&typo]).unwrap_err().to_string().contains("timeout_ms"));
        let zero: toml::Table = toml::from_str("max_operations = 0").unwrap();
        assert!(Limits::layered([&zero]).unwrap_err().to_string().contains("between 1 and"));
        let deep: toml::Table = toml::from_str("max_expr_depth = 50000").unwrap();
        assert_eq!(
            Limits::layered([&deep]).unwrap_err().to_string(),
            "limit max_expr_depth = 50000 is out of range: it must be between 1 and 256"
        );
        let negative: toml::Table = toml::from_str("max_output = -1").unwrap();
        assert!(matches!(Limits::layered([&negative]), Err(LimitError::BadValue { .. })));
        let text: toml::Table = toml::from_str("max_output = 'lots'").unwrap();
        assert!(Limits::layered([&text]).unwrap_err().to_string().contains("whole number"));
    }
}
