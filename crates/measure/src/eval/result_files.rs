//! What `codeact eval` does with results it already wrote: two runs' `results.json`
//! compared template by template, and the shards of one suite merged into one
//! folder. Not running a suite (`suite.rs`) nor the results' own shape
//! (`results.rs`).

use std::path::PathBuf;

use super::results::{MergeError, Results, ResultsError, compare, merge};
use super::runner::{EvalError, check_out_dir};

/// Two runs' `results.json`, compared.
#[derive(Debug, Clone)]
pub struct CompareRequest {
    pub a: PathBuf,
    pub b: PathBuf,
}

impl CompareRequest {
    /// The Markdown table of the two runs' scores per template.
    pub fn run(&self) -> Result<String, ResultsError> {
        let (ra, rb) = (Results::read(&self.a)?, Results::read(&self.b)?);
        Ok(compare(&ra, &rb, &self.a.display().to_string(), &self.b.display().to_string()))
    }
}

/// The shards' `results.json` files of one suite, merged into `out_dir`.
#[derive(Debug, Clone)]
pub struct MergeRequest {
    pub files: Vec<PathBuf>,
    pub out_dir: PathBuf,
}

/// Why a merge wrote nothing.
#[derive(Debug, thiserror::Error)]
pub enum MergeRunError {
    #[error(transparent)]
    Results(#[from] ResultsError),
    #[error(transparent)]
    Merge(#[from] MergeError),
    #[error(transparent)]
    Out(#[from] EvalError),
    #[error("cannot create {path}")]
    Create { path: PathBuf, source: std::io::Error },
}

impl MergeRequest {
    /// Reads every file, merges them and writes the whole suite's results into
    /// `out_dir` (a folder no run has used); the merged results.
    pub fn run(&self) -> Result<Results, MergeRunError> {
        let mut parts = Vec::with_capacity(self.files.len());
        for f in &self.files {
            parts.push((f.clone(), Results::read(f)?));
        }
        let merged = merge(parts)?;
        check_out_dir(&self.out_dir)?;
        std::fs::create_dir_all(&self.out_dir)
            .map_err(|source| MergeRunError::Create { path: self.out_dir.clone(), source })?;
        merged.write(&self.out_dir)?;
        Ok(merged)
    }
}
