//! What a script that did not pass leaves for whoever reads the CI run: the screen
//! it failed on, the device's log up to the failure (Android's `logcat`, its last
//! lines, bounded), and on a real Android phone a screen recording of the attempt
//! (`screenrecord`, started with the script and kept only when it did not pass).
//! The virtual phone records no video: every screen a recorded run saw is in its
//! trajectory, and its report plays them back. Text kept loses its secrets. Not
//! here: the verdict, or the trajectory's own files.

use std::path::{Path, PathBuf};

use codeact_platform::device::Platform;
use codeact_record::recorder::StepRecorder;
use codeact_runtime::session::Session;

/// The device log's last lines before the failure.
const DEVICE_LOG: &str = "logcat -d -v threadtime -t 1000";
/// The most of the device log kept (its end: the lines nearest the failure).
const DEVICE_LOG_BYTES: usize = 512 * 1024;
/// Where a recording is made on the phone.
const RECORDING: &str = "/data/local/tmp/codeact-screenrecord.mp4";
/// The longest recording `screenrecord` makes (its own limit).
const RECORDING_SECONDS: u32 = 180;
/// The most of a recording kept.
const RECORDING_BYTES: u64 = 256 * 1024 * 1024;

/// Where a failed script's files go: its trajectory, or a folder beside JUnit.
pub(super) enum Keep<'a> {
    Trajectory { t: &'a StepRecorder, dir: &'a Path },
    Beside { dir: &'a Path, stem: &'a str },
    Nowhere,
}

impl Keep<'_> {
    /// Writes `bytes` as `name` (`failure.png`, or `STEM-failure.png` beside JUnit).
    fn write(&self, name: &str, bytes: &[u8]) -> Option<PathBuf> {
        match self {
            Keep::Trajectory { t, dir } => {
                t.write_file(name, bytes);
                Some(dir.join(name)).filter(|p| p.is_file())
            }
            Keep::Beside { dir, stem } => {
                let path = dir.join(format!("{stem}-{name}"));
                codeact_base::files::write_replacing(&path, bytes).ok().map(|()| path)
            }
            Keep::Nowhere => None,
        }
    }
}

/// What was kept of a failure.
#[derive(Debug, Default)]
pub(super) struct Kept {
    pub screenshot: Option<PathBuf>,
    pub device_log: Option<PathBuf>,
    pub recording: Option<PathBuf>,
}

/// A screen recording running on the phone.
pub(super) struct Recording {
    pid: u32,
}

/// Starts recording the screen of a real Android phone, when it can.
pub(super) fn start_recording(session: &mut Session) -> Option<Recording> {
    if session.platform() != Platform::Android {
        return None;
    }
    // In the background, past the shell that starts it; its pid to stop it by.
    let line = format!(
        "rm -f {RECORDING}; nohup screenrecord --time-limit {RECORDING_SECONDS} {RECORDING} >/dev/null 2>&1 & echo $!"
    );
    let out = session.device_shell(&line).ok()?;
    let pid = String::from_utf8_lossy(&out.stdout).trim().parse::<u32>().ok()?;
    Some(Recording { pid })
}

/// Stops the recording; a failed script's is pulled and kept, any is removed.
fn finish_recording(session: &mut Session, recording: Recording, keep: Option<&Keep>) -> Option<PathBuf> {
    // SIGINT lets screenrecord finish the file; it takes a moment to close it.
    let pid = recording.pid;
    let stop = format!(
        "kill -2 {pid} 2>/dev/null; for i in 1 2 3 4 5 6 7 8 9 10; do kill -0 {pid} 2>/dev/null || break; sleep 0.3; done"
    );
    let _ = session.device_shell(&stop);
    let kept = keep.and_then(|keep| {
        let mut video = Vec::new();
        let pulled = session.pull_file(RECORDING, &mut video, RECORDING_BYTES).ok()?;
        (pulled > 0).then_some(())?;
        keep.write("screenrecord.mp4", &video)
    });
    let _ = session.device_shell(&format!("rm -f {RECORDING}"));
    kept
}

/// The device log's last lines, secrets removed, at most [`DEVICE_LOG_BYTES`].
fn device_log(session: &mut Session) -> Option<String> {
    if session.platform() != Platform::Android {
        return None;
    }
    let out = session.device_shell(DEVICE_LOG).ok()?;
    if out.code.is_some_and(|c| c != 0) || out.stdout.is_empty() {
        return None;
    }
    let text = String::from_utf8_lossy(&out.stdout);
    let from = text.len().saturating_sub(DEVICE_LOG_BYTES);
    let from = text.ceil_char_boundary(from);
    Some(codeact_base::secrets::redact(&text[from..]).into_owned())
}

/// After an attempt: a failure keeps its screen, the device log and the
/// recording; a pass keeps nothing (its recording is removed from the phone).
pub(super) fn after_attempt(session: &mut Session, passed: bool, recording: Option<Recording>, keep: Keep) -> Kept {
    if passed {
        if let Some(recording) = recording {
            finish_recording(session, recording, None);
        }
        return Kept::default();
    }
    let screenshot = session.screenshot().ok().and_then(|png| keep.write("failure.png", &png));
    let device_log = device_log(session).and_then(|log| keep.write("logcat.txt", log.as_bytes()));
    let recording = recording.and_then(|r| finish_recording(session, r, Some(&keep)));
    Kept { screenshot, device_log, recording }
}
