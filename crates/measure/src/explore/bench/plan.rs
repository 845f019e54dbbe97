//! What the exploration benchmark explores: the built-in apps and the crashes
//! planted in each (`eval/explore.toml`, compiled in), or a plan file of one's own
//! in the same shape. Read and checked here; run by `bench/mod.rs`.

use std::path::Path;

use serde::Deserialize;

const BUILT_IN: &str = include_str!("../../../../../eval/explore.toml");

/// At most this many apps and crashes per app: a plan, not a program.
const MAX_APPS: usize = 64;
const MAX_CRASHES: usize = 8;

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct BenchPlan {
    #[serde(rename = "app")]
    pub apps: Vec<BenchApp>,
}

/// One app and the widgets (resource ids) that crash it when tapped.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct BenchApp {
    pub package: String,
    #[serde(default)]
    pub crashes: Vec<String>,
}

/// Why a plan cannot be used.
#[derive(Debug, thiserror::Error)]
pub enum PlanError {
    #[error("cannot read the exploration plan {path}")]
    Read { path: String, source: std::io::Error },
    #[error("{path}: {message}")]
    Invalid { path: String, message: String },
    #[error("no app of the plan matches {0:?}; the plan's apps are: {1}")]
    NoMatch(String, String),
}

impl BenchPlan {
    /// The built-in plan, or the TOML file at `path`; checked.
    pub fn load(path: Option<&Path>) -> Result<Self, PlanError> {
        let (name, text) = match path {
            None => ("eval/explore.toml".to_string(), BUILT_IN.to_string()),
            Some(p) => {
                let name = p.display().to_string();
                let text = codeact_base::files::read_text(p, codeact_base::files::TEXT_BYTES)
                    .map_err(|source| PlanError::Read { path: name.clone(), source })?;
                (name, text)
            }
        };
        let invalid = |message: String| PlanError::Invalid { path: name.clone(), message };
        let plan: BenchPlan = toml::from_str(&text)
            .map_err(|e| invalid(codeact_base::toml_error::TomlError::new(&e, &text).to_string()))?;
        if plan.apps.is_empty() || plan.apps.len() > MAX_APPS {
            return Err(invalid(format!("a plan names 1 to {MAX_APPS} apps ([[app]] package = ...)")));
        }
        let word = |w: &str, dots: bool| {
            !w.is_empty()
                && w.len() <= 128
                && w.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_' || (dots && b == b'.'))
        };
        for app in &plan.apps {
            if !word(&app.package, true) {
                return Err(invalid(format!("{:?} is not a package name", app.package)));
            }
            if app.crashes.len() > MAX_CRASHES {
                return Err(invalid(format!("{}: at most {MAX_CRASHES} planted crashes", app.package)));
            }
            if let Some(bad) = app.crashes.iter().find(|c| !word(c, false)) {
                return Err(invalid(format!("{}: {bad:?} is not a resource id (letters, digits, _)", app.package)));
            }
        }
        Ok(plan)
    }

    /// Only the apps whose package contains one of the comma-separated `patterns`.
    pub fn only(mut self, patterns: Option<&str>) -> Result<Self, PlanError> {
        let Some(patterns) = patterns else { return Ok(self) };
        let wanted: Vec<&str> = patterns.split(',').map(str::trim).filter(|p| !p.is_empty()).collect();
        let all = self.apps.iter().map(|a| a.package.as_str()).collect::<Vec<_>>().join(", ");
        self.apps.retain(|a| wanted.iter().any(|w| a.package.contains(w)));
        if self.apps.is_empty() {
            return Err(PlanError::NoMatch(patterns.to_string(), all));
        }
        Ok(self)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_built_in_plan_names_every_app_with_its_crashes() {
        let plan = BenchPlan::load(None).unwrap();
        assert!(plan.apps.len() >= 14);
        assert!(plan.apps.iter().all(|a| !a.crashes.is_empty()), "{plan:?}");
        assert_eq!(plan.clone().only(Some("shop,maps")).unwrap().apps.len(), 2);
        assert!(matches!(plan.only(Some("nothing")), Err(PlanError::NoMatch(..))));
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("plan.toml");
        std::fs::write(&file, "[[app]]\npackage = \"a.b\"\ncrashes = [\"x; rm -rf /\"]\n").unwrap();
        assert!(matches!(BenchPlan::load(Some(&file)), Err(PlanError::Invalid { .. })));
    }
}
