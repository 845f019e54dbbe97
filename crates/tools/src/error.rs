//! How a tool call fails: one typed error per way it can go wrong, each saying what
//! to do about it, and each classified as a [`FailureKind`] so reports and the agent
//! tell an assertion from a stale index or a lost device without reading messages.

use codeact_engine::sandbox::FailureKind;
use codeact_platform::device::DeviceError;

use super::app_names::AppNameError;
use super::select::SelectorError;

/// Whether a wait was for something to appear or to go away.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Awaited {
    Appear,
    GoAway,
}

#[derive(Debug, thiserror::Error)]
pub enum ToolError {
    #[error(transparent)]
    Device(#[from] DeviceError),
    #[error(transparent)]
    Selector(#[from] SelectorError),
    #[error(transparent)]
    AppName(#[from] AppNameError),
    #[error("{axis} {value} is off the screen (0..{last}); use pixels inside it")]
    OffScreen { axis: &'static str, value: i64, last: i64 },
    #[error("{axis} {value} is outside 0..{scale} (this session reads coordinates as 0..{scale})")]
    OffScale { axis: &'static str, value: i64, scale: u32 },
    #[error("{axis} {value}: floats are fractions of the screen (0..1); use an integer for pixels")]
    NotAFraction { axis: &'static str, value: f64 },
    #[error("{axis} must be a number, not {found}")]
    NotANumber { axis: &'static str, found: String },
    #[error("ms {0}: use 0..60000")]
    BadDuration(i64),
    #[error("{0} must be ≥ 0")]
    Negative(&'static str),
    #[error("direction {0:?}: use \"down\" or \"up\"")]
    BadDirection(String),
    #[error("no element {index}: ui_state has indices 0..{last}")]
    NoSuchIndex { index: i64, last: usize },
    #[error(
        "ui_state[{index}] ({label}) is no longer at that index: the index was read on {read_on}, and the screen changed after the last action (now {now_on}); call refresh() and read ui_state again{}",
        selector.as_ref().map(|s| format!(", or name the element: {s}")).unwrap_or_default()
    )]
    Stale {
        index: i64,
        label: String,
        /// The screen (`app/activity`) the index belongs to.
        read_on: String,
        /// The screen in front now.
        now_on: String,
        /// The element's selector (Rhai source), which survives a change of screen.
        selector: Option<String>,
    },
    #[error(
        "index {index}: the screen changed since anyone last looked at it (an action ran, and ui_state was not read after it); read ui_state or call refresh() first, or use a selector such as tap(\"OK\")"
    )]
    Unseen { index: i64 },
    #[error("no text field has focus, so nothing was typed; tap one first, or use set_text(sel, text)")]
    NoFocusedField,
    #[error(
        "{selector} is {element}, not a text field; nothing was tapped or typed (find one with #{{editable: true}})"
    )]
    NotAField { selector: String, element: String },
    #[error("typed {typed:?}, but the field shows {shown:?}")]
    TypedDiffers { typed: String, shown: String },
    #[error("direction {0:?}: use \"up\", \"down\", \"left\" or \"right\"")]
    BadSwipeDirection(String),
    #[error(
        "this device does not let scripts reach the clipboard (Android lets only the app in front read it); the virtual phone does"
    )]
    NoClipboard,
    /// The gallery could not be read (its error says what to fix).
    #[error("the reference pictures")]
    Gallery(#[from] codeact_platform::locate::GalleryError),
    #[error(
        "no reference picture {name:?} in {dir} (it has: {known}); add one with `codeact assets add {name} --from-screen x1,y1,x2,y2`"
    )]
    NoReference { name: String, dir: String, known: String },
    #[error("#{{image: {name:?}}} shows in {} places ({}); cut a reference with more around it, or find by the tree", .places.len(), .places.join("; "))]
    ImageAmbiguous { name: String, places: Vec<String> },
    #[error(
        "{relation}: {anchor} matches {} places, so where {selector} is cannot be told: {}; say which, with a selector that finds one ({}) or nth: {relation}: #{{label: ..., nth: 1}}",
        .places.len(),
        .places.join(", "),
        .fixes.join(" or ")
    )]
    AmbiguousAnchor {
        selector: String,
        relation: &'static str,
        anchor: String,
        places: Vec<String>,
        fixes: Vec<String>,
    },
    #[error(
        "no model to locate by description: give a vision model with --base-url URL --model NAME (exec, repl, run), or [llm.locator] base_url and model in codeact.toml; or find it by the tree or by picture (#{{image: \"NAME\"}})"
    )]
    NoLocator,
    #[error(
        "this persona does not let the model locate by description (its tools do not include locate); find by the tree or by picture (#{{image: \"NAME\"}}), or use a persona that lists locate"
    )]
    LocatorNotAllowed,
    #[error("the locator model failed: {why}")]
    LocatorFailed { why: codeact_platform::locate::ai::VisionError },
    #[error(
        "the locator model {model}'s answer for {description:?} cannot be used: {why}; it must answer {{\"x\": X, \"y\": Y}} on a 0-1000 grid, or {{\"found\": false}}"
    )]
    LocatorAnswer { description: String, model: String, why: codeact_platform::locate::ai::AnswerError },
    #[error("the screenshot to find {name:?} on is not a picture")]
    NotAScreenshot { name: String },
    #[error("no app opened {:?} (the device said {:?})", codeact_base::clip::clip(.uri, 2048), codeact_base::clip::clip(.said, 2048))]
    NoAppForUrl { uri: String, said: String },
    #[error("start_app options: {0}; use an activity (\".Settings\") or #{{clear: true, activity: \".X\"}}")]
    BadStartOption(String),
    #[error("screenshot name {0:?}: use 1 to 64 letters, digits, - or _")]
    BadName(String),
    #[error("erase({0}): use 0..=1000 characters")]
    BadCount(i64),
    #[error("{selector} is too small to swipe inside ({width}x{height} px)")]
    TooSmall { selector: String, width: i32, height: i32 },
    #[error("nothing on screen matches {selector}{searched}{}; {visible}", closest.as_ref().map(|c| format!(" (closest: {c})")).unwrap_or_default())]
    NothingMatches { selector: String, searched: String, visible: String, closest: Option<String> },
    #[error("{selector} did not {} within {ms} ms{}{near}", awaited_verb(*.awaited), if *.cut_by_limit { " (the snippet's time limit came first)" } else { "" })]
    WaitTimedOut { selector: String, awaited: Awaited, ms: u64, cut_by_limit: bool, near: String },
    #[error("reached the end of the list without finding {0}")]
    EndOfList(String),
    #[error("{selector} did not show after {swipes} swipes")]
    NotAfterSwipes { selector: String, swipes: usize },
    #[error("assertion failed: {0}")]
    Assertion(String),
    #[error("a {ms} ms gesture would pass the snippet's time limit ({left_ms} ms left)")]
    GestureTooLong { ms: u32, left_ms: u128 },
    #[error("waiting {0} ms would pass the snippet's time limit")]
    WaitTooLong(u64),
    /// The snippet was cancelled (Ctrl-C) while the tool waited.
    #[error("cancelled while waiting")]
    Stopped,
    /// A script's watcher matched before the call could act: nothing ran, and the
    /// worker runs the watcher's function, then the call again.
    #[error("the script's watcher {0:?} fires first")]
    WatcherDue(String),
    #[error("at most {0} watchers at a time; unwatch(name) one first")]
    TooManyWatchers(usize),
    #[error("keep facts short: {bytes} bytes is over {max}")]
    FactTooLong { bytes: usize, max: usize },
    #[error("keep the answer short: {bytes} bytes is over {max}")]
    AnswerTooLong { bytes: usize, max: usize },
    #[error(
        "got () instead of an answer (methods like trim() and pad() change a string in place and return nothing: call them first, then answer(s))"
    )]
    NoAnswer,
    #[error("complete(false) needs a reason: complete(false, \"why it failed\")")]
    NoReason,
    #[error(
        "refused {what}: it matched the sensitive rule {rule:?} and {why}. Nothing was done. A person can allow it at the terminal or with a [confirm] entry in an --answers file; --sensitive allow turns the gate off"
    )]
    Refused { what: String, rule: String, why: String },
    /// A tool acted in a way its `ToolSpec` did not declare to the gate: a bug in
    /// the tool, refused before the device sees it.
    #[error(
        "{tool} tried to {act}, which its declaration does not allow (it declares {declared}); this is a bug in codeact, please report it"
    )]
    Undeclared { tool: String, act: &'static str, declared: String },
    #[error(
        "nobody can answer {kind}: no terminal and no matching [{table}] entry in an --answers file (give one with --answers FILE), and no callback"
    )]
    NobodyToAsk { kind: &'static str, table: &'static str },
    #[error("no secret called {name:?} (of at least 4 characters): set ${env}{}", .file.as_ref().map(|f| format!(" or add `{name} = \"...\"` to {f}")).unwrap_or_else(|| " or give a secrets file with --secrets FILE".to_string()))]
    NoSecret { name: String, env: String, file: Option<String> },
    #[error("secret names are 1 to 64 letters, digits or _ (got {0:?})")]
    BadSecretName(String),
    #[error("the field does not show the secret {0:?} after typing it (its value is not shown here)")]
    SecretNotTyped(String),
    #[error("{0}: a secret cannot be passed to a tool as text; type it with type_secret(name)")]
    SecretInArguments(String),
}

fn awaited_verb(a: Awaited) -> &'static str {
    match a {
        Awaited::Appear => "appear",
        Awaited::GoAway => "go away",
    }
}

impl ToolError {
    /// How this failure is classified in reports and by the agent.
    pub fn kind(&self) -> FailureKind {
        match self {
            ToolError::Device(_) => FailureKind::Device,
            ToolError::Assertion(_) => FailureKind::Assertion,
            ToolError::Stale { .. } | ToolError::Unseen { .. } => FailureKind::Stale,
            ToolError::NoFocusedField | ToolError::NotAField { .. } | ToolError::TypedDiffers { .. } => {
                FailureKind::BadArgument
            }
            ToolError::NothingMatches { .. }
            | ToolError::WaitTimedOut { .. }
            | ToolError::EndOfList(_)
            | ToolError::NotAfterSwipes { .. } => FailureKind::NotFound,
            ToolError::GestureTooLong { .. } | ToolError::WaitTooLong(_) => FailureKind::TimeLimit,
            ToolError::Stopped
            | ToolError::LocatorFailed { why: codeact_platform::locate::ai::VisionError::Stopped } => {
                FailureKind::Cancelled
            }
            ToolError::LocatorFailed { why: codeact_platform::locate::ai::VisionError::TimedOut { .. } } => {
                FailureKind::TimeLimit
            }
            ToolError::LocatorFailed { .. } => FailureKind::Device,
            ToolError::WatcherDue(_) => FailureKind::Cancelled,
            ToolError::Refused { .. }
            | ToolError::Undeclared { .. }
            | ToolError::NobodyToAsk { .. }
            | ToolError::SecretInArguments(_) => FailureKind::Refused,
            ToolError::NoSecret { .. } | ToolError::BadSecretName(_) | ToolError::SecretNotTyped(_) => {
                FailureKind::BadArgument
            }
            ToolError::TooManyWatchers(_) => FailureKind::BadArgument,
            ToolError::Selector(_)
            | ToolError::AppName(_)
            | ToolError::OffScreen { .. }
            | ToolError::OffScale { .. }
            | ToolError::NotAFraction { .. }
            | ToolError::NotANumber { .. }
            | ToolError::BadDuration(_)
            | ToolError::Negative(_)
            | ToolError::BadDirection(_)
            | ToolError::NoSuchIndex { .. }
            | ToolError::BadName(_)
            | ToolError::BadStartOption(_)
            | ToolError::NoAppForUrl { .. }
            | ToolError::NoClipboard
            | ToolError::Gallery(_)
            | ToolError::NoReference { .. }
            | ToolError::ImageAmbiguous { .. }
            | ToolError::AmbiguousAnchor { .. }
            | ToolError::NotAScreenshot { .. }
            | ToolError::NoLocator
            | ToolError::LocatorNotAllowed
            | ToolError::LocatorAnswer { .. }
            | ToolError::BadSwipeDirection(_)
            | ToolError::BadCount(_)
            | ToolError::TooSmall { .. }
            | ToolError::FactTooLong { .. }
            | ToolError::AnswerTooLong { .. }
            | ToolError::NoAnswer
            | ToolError::NoReason => FailureKind::BadArgument,
        }
    }
}

impl From<codeact_engine::sandbox::Stopped> for ToolError {
    fn from(_: codeact_engine::sandbox::Stopped) -> Self {
        ToolError::Stopped
    }
}
