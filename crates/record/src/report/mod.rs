//! Reports people look at: `report.html` in a run directory, one self-contained
//! page (screenshots scaled down and embedded as JPEG, or kept beside it with
//! external assets), rewritten as the run goes so a killed run still has one; and
//! index pages that link several (`codeact exec` with several scripts, `codeact
//! eval`). Built from the run's typed events (`model.rs`): followed as they are
//! written (a [`SharedReport`] observes the run) or read back from a finished run
//! directory; rendered by `html.rs`, images by `images.rs`; the steps as plain
//! text for JUnit by `step_log.rs`. Not the run directory itself (`trajectory/`).

mod code;
mod escape;
pub mod html;
mod images;
mod model;
mod script_view;
mod step_log;
mod suite_index;
mod tree_view;
mod write;

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::SystemTime;

pub use model::RunView;
pub use step_log::step_log;
pub use suite_index::{SuiteRow, write_suite_index};
pub use write::ReportError;
use write::write_whole;

/// Where a report's screenshots go.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, serde::Serialize)]
#[cfg_attr(feature = "cli", derive(clap::ValueEnum))]
#[serde(rename_all = "kebab-case")]
pub enum Assets {
    /// Inside the page (one file to send; about 25 KB a screenshot).
    #[default]
    Embedded,
    /// In `report-assets/` beside the page (a small page; keep the folder with it).
    External,
    /// The run folder's own screenshots, linked where they are: nothing is decoded
    /// or re-encoded, so the page is written at once whatever the run's length
    /// (keep the run folder whole).
    Linked,
}

/// The report of one run directory, kept up to date by the run's events and
/// written again by calling [`write`]: each screenshot is scaled and encoded once.
///
/// [`write`]: RunReport::write
#[derive(Debug)]
pub struct RunReport {
    dir: PathBuf,
    assets: Assets,
    /// The run as far as its events have told.
    view: RunView,
    /// Screenshots done so far: their `src` and original size (`None`: unreadable).
    done: HashMap<String, Option<images::Shown>>,
    /// What the run's mode adds between the header and the steps (HTML it escaped).
    sections: String,
}

/// A report the run's trajectory feeds (as an observer) while the run writes it.
pub type SharedReport = Arc<Mutex<RunReport>>;

impl crate::trajectory::EventObserver for SharedReport {
    fn event(&mut self, event: &crate::trajectory::Event, _at: SystemTime) {
        crate::trajectory::lock(self).view.take(event);
    }
}

impl RunReport {
    /// The report of a run about to begin in `dir`: its events come as it writes them.
    pub fn new(dir: &Path, assets: Assets) -> Self {
        Self { dir: dir.to_path_buf(), assets, view: RunView::default(), done: HashMap::new(), sections: String::new() }
    }

    /// The report of the run `dir` holds (what is there so far).
    pub fn of_dir(dir: &Path, assets: Assets) -> Self {
        Self { view: RunView::read(dir), ..Self::new(dir, assets) }
    }

    /// Sections of the run's mode shown between the header and the steps: HTML the
    /// mode escaped itself (an exploration's findings, coverage and graph).
    pub fn set_sections(&mut self, html: String) {
        self.sections = html;
    }

    /// Writes `report.html` from the run as far as it has gone.
    pub fn write(&mut self) -> Result<PathBuf, ReportError> {
        let view = &self.view;
        let (dir, assets) = (self.dir.clone(), self.assets);
        let done = &mut self.done;
        let mut image = |rel: &str| -> Option<images::Shown> {
            if let Some(known) = done.get(rel) {
                return known.clone();
            }
            // A run folder's events may come from anywhere: a picture is read only
            // where a plain relative path inside the folder puts it (no `..`, no root).
            let Some(href) = html::relative_href(Path::new(rel)) else {
                done.insert(rel.to_string(), None);
                return None;
            };
            if assets == Assets::Linked {
                // The header alone says the size; the browser scales the picture.
                let size = image::ImageReader::open(dir.join(rel)).ok().and_then(|r| r.into_dimensions().ok());
                let made = size.map(|size| (href, size));
                done.insert(rel.to_string(), made.clone());
                return made;
            }
            let made = images::shrink(&dir.join(rel)).and_then(|s| match assets {
                Assets::Linked => None,
                Assets::Embedded => Some((s.data_uri(), (s.width, s.height))),
                Assets::External => {
                    let stem = rel.trim_end_matches(".png").replace(['/', '\\'], "-");
                    let name = format!("{}.jpg", codeact_base::files::safe_component(&stem, "screenshot"));
                    let folder = dir.join("report-assets");
                    codeact_base::files::create_run_folder(&folder).ok()?;
                    codeact_base::files::write_replacing(&folder.join(&name), &s.jpeg).ok()?;
                    let src = html::relative_href(&Path::new("report-assets").join(&name))?;
                    Some((src, (s.width, s.height)))
                }
            });
            done.insert(rel.to_string(), made.clone());
            made
        };
        let page = html::render(view, &self.sections, &mut image);
        write_whole(&self.dir, "report.html", page.as_bytes())
    }
}

/// Writes `report.html` in `dir` once (for a run that is over).
pub fn write_run_report(dir: &Path, assets: Assets) -> Result<PathBuf, ReportError> {
    RunReport::of_dir(dir, assets).write()
}

/// Writes an index page `report.html` in `dir`: a row per entry, its first cell
/// linking to the entry's own report (a path relative to `dir`).
pub fn write_index(
    dir: &Path,
    title: &str,
    head: &[&str],
    rows: &[(Option<PathBuf>, Vec<String>)],
) -> Result<PathBuf, ReportError> {
    write_whole(dir, "report.html", html::index(title, head, rows).as_bytes())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A picture a run folder's events place outside it (`..`, a root) is never
    /// read into its report, whatever the way screenshots are kept.
    #[test]
    fn a_picture_outside_the_run_folder_is_not_read() {
        let Ok(root) = tempfile::tempdir() else { return };
        let run = root.path().join("run");
        std::fs::create_dir_all(&run).expect("run folder");
        let mut png = Vec::new();
        {
            let mut encoder = png::Encoder::new(&mut png, 4, 4);
            encoder.set_color(png::ColorType::Rgb);
            let mut writer = encoder.write_header().expect("header");
            writer.write_image_data(&[200u8; 48]).expect("pixels");
        }
        std::fs::write(root.path().join("outside.png"), &png).expect("outside");
        let outside = root.path().join("outside.png").display().to_string();
        let events = format!(
            "{{\"event\":\"step_start\",\"step\":1}}\n{{\"event\":\"observation\",\"step\":1,\"ms\":1.0,\"screenshot\":\"../outside.png\"}}\n{{\"event\":\"step_start\",\"step\":2}}\n{{\"event\":\"observation\",\"step\":2,\"ms\":1.0,\"screenshot\":{outside:?}}}\n"
        );
        std::fs::write(run.join("events.jsonl"), events).expect("events");
        for assets in [Assets::Embedded, Assets::External, Assets::Linked] {
            let page = write_run_report(&run, assets).expect("the report");
            let page = std::fs::read_to_string(page).expect("report.html");
            assert!(!page.contains("data:image/jpeg") && !page.contains("outside.png\")"), "{assets:?}");
            assert!(!run.join("report-assets").exists(), "{assets:?}: nothing was read to write");
        }
    }
}
