//! What one conversion may produce, counted as it goes (flow files inlined,
//! commands, bytes of script: bounding the files alone lets a few files inlined
//! many times over grow without end), and what it leaves for the run (the files
//! `takeScreenshot` writes). Not the commands (`commands.rs`).

use super::error::FlowError;

fn unsupported(line: usize, what: &str, why: &'static str) -> FlowError {
    FlowError::Unsupported { line, what: what.to_string(), why }
}

/// The most flow files one conversion inlines (each `runFlow: file` counts): flows
/// that run each other several times over would otherwise grow without end.
const MAX_INLINED: usize = 256;
/// The most commands one conversion writes, inlined ones included (each is at
/// least two lines, and a script runs at most 65,535).
const MAX_COMMANDS: usize = 20_000;
/// The most Rhai one conversion writes (a command inside a block counts with the
/// block too: a bound, not a measure). Small flows inlining a big one many times
/// over would otherwise make gigabytes of script from kilobytes of YAML.
pub const MAX_SCRIPT_BYTES: usize = 16 * 1024 * 1024;

/// What one conversion may produce in all, counted as it goes: bounding the files
/// alone lets a few files inlined many times over grow without end.
#[derive(Default)]
pub struct Budget {
    files: std::cell::Cell<usize>,
    commands: std::cell::Cell<usize>,
    bytes: std::cell::Cell<usize>,
    /// The screenshots `takeScreenshot` names: the name the call takes, the file
    /// Maestro writes (`PATH.png`, from the working folder).
    pub screenshots: std::cell::RefCell<Vec<(String, String)>>,
}

impl Budget {
    pub(super) fn inline_file(&self, line: usize) -> Result<(), FlowError> {
        self.files.set(self.files.get() + 1);
        match self.files.get() > MAX_INLINED {
            true => Err(unsupported(line, "runFlow", "the flow runs more than 256 flow files in all")),
            false => Ok(()),
        }
    }

    pub(super) fn command(&self, line: usize) -> Result<(), FlowError> {
        self.commands.set(self.commands.get() + 1);
        match self.commands.get() > MAX_COMMANDS {
            true => Err(FlowError::TooBig { line, what: "commands", limit: MAX_COMMANDS }),
            false => Ok(()),
        }
    }

    pub(super) fn written(&self, line: usize, bytes: usize) -> Result<(), FlowError> {
        self.bytes.set(self.bytes.get().saturating_add(bytes));
        match self.bytes.get() > MAX_SCRIPT_BYTES {
            true => Err(FlowError::TooBig { line, what: "bytes of script", limit: MAX_SCRIPT_BYTES }),
            false => Ok(()),
        }
    }
}

/// The name `takeScreenshot: PATH`'s call takes (the tool's: letters, digits, `_`,
/// `-`), kept with the file Maestro writes, `PATH.png` below the working folder.
pub(super) fn screenshot_name(path: &str, line: usize, budget: &Budget) -> Result<String, FlowError> {
    if path.contains("${") {
        return Err(unsupported(line, "takeScreenshot", "write its path out: variables in it are not read"));
    }
    let relative = std::path::Path::new(path);
    let plain = !path.is_empty()
        && !path.contains('\\')
        && relative.components().all(|c| matches!(c, std::path::Component::Normal(_)));
    if !plain {
        return Err(unsupported(
            line,
            "takeScreenshot",
            "its path is a file below the working folder (relative, without ..)",
        ));
    }
    let file = if path.ends_with(".png") { path.to_string() } else { format!("{path}.png") };
    let stem: String = file
        .trim_end_matches(".png")
        .chars()
        .map(|c| if c.is_ascii_alphanumeric() || c == '-' { c } else { '_' })
        .collect();
    let mut shots = budget.screenshots.borrow_mut();
    // The path's own name, made unique in the flow (`shot`, `shot_2`...): a flow
    // exported from the run names the same path again, so exports are fixed points.
    let stem: String = stem.chars().take(56).collect();
    let taken = |n: &str| shots.iter().any(|(name, _)| name == n);
    let mut name = stem.clone();
    let mut k = 1;
    while taken(&name) {
        k += 1;
        name = format!("{stem}_{k}");
    }
    shots.push((name.clone(), file));
    Ok(name)
}
