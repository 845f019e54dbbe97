//! What a tool declares besides its behaviour, as data: what it does to the world
//! ([`Access`]), which checks of the sensitive-action gate its acts pass ([`Gate`]),
//! how a replay repeats it ([`Replay`]), and its typed parameters ([`ParamSpec`]).
//! A [`ToolSpec`](crate::ToolSpec) holds them; the registry, the exports and the
//! docs read them.

/// What a tool does to the world, as exports and reports need to know.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Access {
    /// Only reads (the screen, memory, packages) or waits: a replay may skip it.
    Reads,
    /// Changes the device or the session's memory: a replay must do it again.
    Acts,
    /// Checks the screen and fails the script when it is not as expected.
    Asserts,
    /// Ends the snippet (`complete`): always present, whatever the persona.
    Finishes,
}

/// A check of the sensitive-action gate. The gate judges every act at the
/// device's door (`gate.rs`); a tool declares which checks its acts pass, and the
/// registry refuses an act its tool did not declare (a tool that acts outside
/// its declaration is a bug, never a way around the gate).
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Gate {
    /// What is under a point (a tap, a long press, a swipe's or a drag's ends).
    Point,
    /// The element a selector or an index names, and what is under its centre
    /// (a scroll to find it included).
    Element,
    /// The focused field typed into: text, a key that submits, a paste.
    Text,
    /// An app or a link opened, or an app's data cleared, by name.
    App,
    /// The input a shell command would inject.
    Command,
}

/// How a replay of a recorded run repeats a call of the tool.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "snake_case", tag = "as", content = "tool")]
pub enum Replay {
    /// As it was called.
    AsIs,
    /// It acted on a `ui_state` index, which a changed layout moves: replayed as
    /// this tool called with the selector of the element it hit (`tap_by_index(3)`
    /// becomes `tap(#{id: "send"})`).
    IndexAsSelector(&'static str),
    /// Its first argument is a selector: as it was called, and that selector is the
    /// element a replay checks for before it (the step's precondition).
    BySelector,
}

/// What a recorded call of the tool is to a replay of the run: the one table the
/// eval's replays and memory's widget knowledge read.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Role {
    /// Replayed as recorded.
    Kept,
    /// A read whose value the actions that used it already hold as literals: a
    /// replay leaves it out.
    Skipped,
    /// A check on the screen: a script by selectors keeps it, a macro has none.
    Check,
    /// It presses one element: a macro presses that element's point (or index)
    /// instead, and memory learns what pressing it did.
    Press(Press),
}

/// How an element is pressed, as a macro redoes it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Press {
    Tap,
    LongPress,
    /// Tapped, emptied and typed into (`set_text`).
    TapThenType,
}

/// What a parameter takes (the doc says the rest: units, allowed values).
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum ParamKind {
    /// A string (text, desc or hint) or a map of selector keys.
    Selector,
    Integer,
    /// A point's coordinate: an integer in pixels, or a float in 0..1 (a fraction
    /// of the screen).
    Coordinate,
    Text,
    Boolean,
    /// A string, or a map of options.
    TextOrMap,
    /// A function or a closure (`|el| ...`).
    Function,
}

/// One parameter of a tool's form.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
pub struct ParamSpec {
    /// As the signature shows it.
    pub name: &'static str,
    pub kind: ParamKind,
    /// May be left out (only the last parameters of a form).
    pub optional: bool,
    pub doc: &'static str,
}

impl ParamSpec {
    pub const fn new(name: &'static str, kind: ParamKind, doc: &'static str) -> Self {
        Self { name, kind, optional: false, doc }
    }

    pub const fn optional(name: &'static str, kind: ParamKind, doc: &'static str) -> Self {
        Self { name, kind, optional: true, doc }
    }
}

/// Parameters many tools share.
pub mod common {
    use super::{ParamKind, ParamSpec};

    pub const SEL: ParamSpec =
        ParamSpec::new("sel", ParamKind::Selector, "a text (exact, else contained) or a map of selector keys");
    pub const X: ParamSpec = ParamSpec::new("x", ParamKind::Coordinate, "pixels from the left, or a fraction in 0..1");
    pub const Y: ParamSpec = ParamSpec::new("y", ParamKind::Coordinate, "pixels from the top, or a fraction in 0..1");
    pub const X1: ParamSpec = ParamSpec::new("x1", ParamKind::Coordinate, "where it starts, across");
    pub const Y1: ParamSpec = ParamSpec::new("y1", ParamKind::Coordinate, "where it starts, down");
    pub const X2: ParamSpec = ParamSpec::new("x2", ParamKind::Coordinate, "where it ends, across");
    pub const Y2: ParamSpec = ParamSpec::new("y2", ParamKind::Coordinate, "where it ends, down");
    pub const PACKAGE: ParamSpec =
        ParamSpec::new("package", ParamKind::Text, "the app's package name (com.android.settings)");
    pub const TEXT: ParamSpec = ParamSpec::new("text", ParamKind::Text, "the text");
    pub const TIMEOUT_MS: ParamSpec =
        ParamSpec::optional("timeout_ms", ParamKind::Integer, "how long to wait, in milliseconds (default 5000)");
    pub const WATCHER_FN: ParamSpec =
        ParamSpec::new("fn", ParamKind::Function, "called with the matching element before the next action");
}
