//! The limits every snippet runs under, with defaults that suit an LLM's snippets and
//! hand-written scripts alike. Configurable from the CLI, a config file or a persona
//! (all through serde); this module only holds and checks the numbers.

use std::time::Duration;

use serde::Deserialize;

#[derive(Debug, Clone, PartialEq, Deserialize)]
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

impl Limits {
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
