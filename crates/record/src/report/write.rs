//! Writing one report file whole (through a temporary file, so a reader never sees
//! half of it), and the error when that fails. Not here: what a page holds
//! (`html.rs`, `suite_index.rs`).

use std::path::{Path, PathBuf};

/// Why a report could not be written.
#[derive(Debug, thiserror::Error)]
#[error("cannot write the report {path}")]
pub struct ReportError {
    pub path: PathBuf,
    #[source]
    pub source: std::io::Error,
}

/// Writes `name` in `dir` whole, through a temporary file of a random name (a
/// reader never sees half; a link at the name is replaced, not followed).
pub(super) fn write_whole(dir: &Path, name: &str, bytes: &[u8]) -> Result<PathBuf, ReportError> {
    let path = dir.join(name);
    codeact_base::files::write_replacing(&path, bytes).map_err(|source| ReportError { path: path.clone(), source })?;
    Ok(path)
}
