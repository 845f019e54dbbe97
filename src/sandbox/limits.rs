//! The limits every snippet runs under, with defaults that suit an LLM's snippets and
//! hand-written scripts alike. Configurable from the CLI, a config file or a persona
//! (all through serde); this module only holds and checks the numbers.

use std::time::Duration;

use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, PartialEq, Deserialize, Serialize)]
#[serde(default, deny_unknown_fields)]
pub struct Limits {
    /// Rhai operations per snippet (statements, expressions, calls).
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
        }
    }
}

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
];

impl Limits {
    /// The defaults with each layer's keys laid over them in order (a persona, then
    /// codeact.toml, then the command line); unknown keys and zeros are errors.
    pub fn layered<'a>(layers: impl IntoIterator<Item = &'a toml::Table>) -> Result<Self, String> {
        let mut table = toml::Table::try_from(Self::default()).map_err(|e| e.to_string())?;
        for layer in layers {
            for (key, value) in layer {
                if !LIMIT_NAMES.contains(&key.as_str()) {
                    return Err(format!("unknown limit {key:?}; the limits are {}", LIMIT_NAMES.join(", ")));
                }
                table.insert(key.clone(), value.clone());
            }
        }
        let limits = Self::deserialize(table).map_err(|e| format!("bad limit value: {}", e.message()))?;
        limits.validate()?;
        Ok(limits)
    }

    pub fn timeout(&self) -> Duration {
        Duration::from_millis(self.timeout_ms)
    }

    /// Rejects limits that would disable a guard (Rhai reads 0 as "unlimited").
    pub fn validate(&self) -> Result<(), String> {
        let checks: [(&str, u64); 10] = [
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
        ];
        for (name, value) in checks {
            if value == 0 {
                return Err(format!("limit {name} must be above 0 (0 would mean unlimited)"));
            }
        }
        if self.max_call_levels > 256 {
            return Err("limit max_call_levels must be at most 256 (deeper recursion needs a bigger stack)".into());
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
        assert!(Limits::layered([&typo]).unwrap_err().contains("timeout_ms"));
        let zero: toml::Table = toml::from_str("max_operations = 0").unwrap();
        assert!(Limits::layered([&zero]).unwrap_err().contains("unlimited"));
        let negative: toml::Table = toml::from_str("max_output = -1").unwrap();
        assert!(Limits::layered([&negative]).is_err());
    }
}
