//! One call of a catalog tool as data — the tool and its typed arguments — and the
//! line of Rhai that makes it, every literal written by the emitter. The doors that
//! act for a client or a person (the WebDriver door, the studio) and the explorers
//! build their acts here instead of writing call text by hand: no literal reaches
//! code unescaped, and every call's shape is held against the catalog's forms (a
//! renamed tool or parameter fails this module's test and, in a debug build, the
//! first call of that shape — never first in a user's run). A model's or an MCP
//! client's JSON function call becomes one of these too (`json_calls.rs` reads the
//! arguments; a tool written in Rhai is called by its name). Not running a call
//! (`Session::call`).

use std::borrow::Cow;

use codeact_engine::emit::rhai::{json as rhai_json, string as rhai_string};

use super::catalog::CATALOG;
use super::catalog::spec::ToolSpec;
use super::declaration::ParamKind;

/// An argument as a script writes it.
#[derive(Debug, Clone, PartialEq)]
pub enum Arg {
    /// A whole number: pixels, milliseconds.
    Int(i64),
    /// A fraction of the screen (0..1), written to three decimals.
    Fraction(f64),
    /// Text, written as an escaped string literal.
    Text(String),
    /// `true` or `false`.
    Bool(bool),
    /// A selector's source as the selectors' own emitter wrote it (`#{id: "ok"}`,
    /// `unique_selector::selector_for`, `Selector::source_with`).
    Selector(String),
    /// An options map of flags (`#{clear: true}`).
    Flags(Vec<(&'static str, bool)>),
    /// A JSON value a model or a client sent (a number, a selector map), written
    /// as the Rhai literal that evaluates to it; checked to have one when made.
    Json(serde_json::Value),
}

impl Arg {
    fn written(&self) -> String {
        match self {
            Arg::Int(n) => n.to_string(),
            Arg::Fraction(f) => format!("{f:.3}"),
            Arg::Text(text) => rhai_string(text),
            Arg::Bool(b) => b.to_string(),
            Arg::Selector(source) => source.clone(),
            Arg::Flags(flags) => {
                let inside: Vec<String> = flags.iter().map(|(name, on)| format!("{name}: {on}")).collect();
                format!("#{{{}}}", inside.join(", "))
            }
            // Made only where `rhai_json` writes it (`json_calls.rs`).
            Arg::Json(value) => rhai_json(value).unwrap_or_else(|| "()".into()),
        }
    }

    /// Whether a parameter of `kind` takes this argument.
    fn fits(&self, kind: ParamKind) -> bool {
        match self {
            Arg::Int(_) => matches!(kind, ParamKind::Integer | ParamKind::Coordinate),
            Arg::Fraction(_) => kind == ParamKind::Coordinate,
            Arg::Text(_) => matches!(kind, ParamKind::Text | ParamKind::Selector | ParamKind::TextOrMap),
            Arg::Bool(_) => kind == ParamKind::Boolean,
            Arg::Selector(_) => kind == ParamKind::Selector,
            Arg::Flags(_) => kind == ParamKind::TextOrMap,
            Arg::Json(value) => match value {
                serde_json::Value::Number(n) if n.is_i64() => {
                    matches!(kind, ParamKind::Integer | ParamKind::Coordinate)
                }
                serde_json::Value::Number(_) => kind == ParamKind::Coordinate,
                serde_json::Value::Bool(_) => kind == ParamKind::Boolean,
                serde_json::Value::String(_) => {
                    matches!(kind, ParamKind::Text | ParamKind::Selector | ParamKind::TextOrMap)
                }
                serde_json::Value::Object(_) => matches!(kind, ParamKind::Selector | ParamKind::TextOrMap),
                serde_json::Value::Null | serde_json::Value::Array(_) => false,
            },
        }
    }
}

/// A call of one of the catalog's tools, or of a tool the session's scripts wrote
/// in Rhai (by its checked name).
#[derive(Debug, Clone, PartialEq)]
pub struct ToolCall {
    tool: Cow<'static, str>,
    args: Vec<Arg>,
}

impl ToolCall {
    fn of(tool: &'static str, args: Vec<Arg>) -> Self {
        let call = Self { tool: Cow::Borrowed(tool), args };
        debug_assert!(call.form().is_some(), "{} is not a form of the catalog", call.expr());
        call
    }

    /// A call of `form` with `args` the caller has checked against its parameters.
    pub(crate) fn of_form(form: &'static ToolSpec, args: Vec<Arg>) -> Self {
        Self::of(form.name, args)
    }

    /// A call of the tool written in Rhai called `name` (a name its loader checked).
    pub(crate) fn of_script_tool(name: &str, args: Vec<Arg>) -> Self {
        Self { tool: Cow::Owned(name.to_string()), args }
    }

    /// `tap(x, y)` in pixels.
    pub fn tap_point(x: i64, y: i64) -> Self {
        Self::of("tap", vec![Arg::Int(x), Arg::Int(y)])
    }

    /// `tap(x, y)` in fractions of the screen.
    pub fn tap_fraction(x: f64, y: f64) -> Self {
        Self::of("tap", vec![Arg::Fraction(x), Arg::Fraction(y)])
    }

    /// `tap(sel)`.
    pub fn tap(selector: &str) -> Self {
        Self::of("tap", vec![Arg::Selector(selector.to_string())])
    }

    /// `long_press(sel)`.
    pub fn long_press(selector: &str) -> Self {
        Self::of("long_press", vec![Arg::Selector(selector.to_string())])
    }

    /// `tap_by_index(i)` or, `long`, `long_press_by_index(i)`: an element of the
    /// `ui_state` the last look showed.
    pub fn by_index(long: bool, index: i64) -> Self {
        Self::of(if long { "long_press_by_index" } else { "tap_by_index" }, vec![Arg::Int(index)])
    }

    /// `refresh()`: look again.
    pub fn refresh() -> Self {
        Self::of("refresh", Vec::new())
    }

    /// `long_press(x, y)` in pixels, held for `ms` when given (else the tool's default).
    pub fn long_press_point(x: i64, y: i64, ms: Option<i64>) -> Self {
        let mut args = vec![Arg::Int(x), Arg::Int(y)];
        args.extend(ms.map(Arg::Int));
        Self::of("long_press", args)
    }

    /// `long_press(x, y, ms)` in fractions of the screen.
    pub fn long_press_fraction(x: f64, y: f64, ms: i64) -> Self {
        Self::of("long_press", vec![Arg::Fraction(x), Arg::Fraction(y), Arg::Int(ms)])
    }

    /// `swipe(x1, y1, x2, y2[, ms])` in pixels.
    pub fn swipe_points(from: (i64, i64), to: (i64, i64), ms: Option<i64>) -> Self {
        let mut args = vec![Arg::Int(from.0), Arg::Int(from.1), Arg::Int(to.0), Arg::Int(to.1)];
        args.extend(ms.map(Arg::Int));
        Self::of("swipe", args)
    }

    /// `swipe(x1, y1, x2, y2, ms)` in fractions of the screen.
    pub fn swipe_fractions(from: (f64, f64), to: (f64, f64), ms: i64) -> Self {
        let (x1, y1, x2, y2) = (Arg::Fraction(from.0), Arg::Fraction(from.1), Arg::Fraction(to.0), Arg::Fraction(to.1));
        Self::of("swipe", vec![x1, y1, x2, y2, Arg::Int(ms)])
    }

    /// `drag(x1, y1, x2, y2, ms)` in pixels: a press held, then moved.
    pub fn drag_points(from: (i64, i64), to: (i64, i64), ms: i64) -> Self {
        Self::of("drag", vec![Arg::Int(from.0), Arg::Int(from.1), Arg::Int(to.0), Arg::Int(to.1), Arg::Int(ms)])
    }

    /// `scroll(sel, direction)`.
    pub fn scroll(selector: &str, direction: &str) -> Self {
        Self::of("scroll", vec![Arg::Selector(selector.to_string()), Arg::Text(direction.to_string())])
    }

    /// `input_text(text)`: into the focused field.
    pub fn input_text(text: &str) -> Self {
        Self::of("input_text", vec![Arg::Text(text.to_string())])
    }

    /// `set_text(sel, text)`.
    pub fn set_text(selector: &str, text: &str) -> Self {
        Self::of("set_text", vec![Arg::Selector(selector.to_string()), Arg::Text(text.to_string())])
    }

    /// `clear_text()`: the focused field.
    pub fn clear_text() -> Self {
        Self::of("clear_text", Vec::new())
    }

    /// `type_secret(name)`.
    pub fn type_secret(name: &str) -> Self {
        Self::of("type_secret", vec![Arg::Text(name.to_string())])
    }

    /// `press_key(key)`: a name, a `KEYCODE_` name or a number's digits.
    pub fn press_key(key: &str) -> Self {
        Self::of("press_key", vec![Arg::Text(key.to_string())])
    }

    /// `back()`.
    pub fn back() -> Self {
        Self::of("back", Vec::new())
    }

    /// `hide_keyboard()`.
    pub fn hide_keyboard() -> Self {
        Self::of("hide_keyboard", vec![])
    }

    /// `get_clipboard()`.
    pub fn get_clipboard() -> Self {
        Self::of("get_clipboard", vec![])
    }

    /// `home()`.
    pub fn home() -> Self {
        Self::of("home", Vec::new())
    }

    /// `start_app(package)`.
    pub fn start_app(package: &str) -> Self {
        Self::of("start_app", vec![Arg::Text(package.to_string())])
    }

    /// `start_app(package, activity)`.
    pub fn start_app_at(package: &str, activity: &str) -> Self {
        Self::of("start_app", vec![Arg::Text(package.to_string()), Arg::Text(activity.to_string())])
    }

    /// `start_app(package, #{clear: true})`: its data forgotten first.
    pub fn start_app_clean(package: &str) -> Self {
        Self::of("start_app", vec![Arg::Text(package.to_string()), Arg::Flags(vec![("clear", true)])])
    }

    /// `clear_app_data(package)`.
    pub fn clear_app_data(package: &str) -> Self {
        Self::of("clear_app_data", vec![Arg::Text(package.to_string())])
    }

    /// `stop_app(package)`.
    pub fn stop_app(package: &str) -> Self {
        Self::of("stop_app", vec![Arg::Text(package.to_string())])
    }

    /// `find(sel)`: the element, or `()`.
    pub fn find(selector: &str) -> Self {
        Self::of("find", vec![Arg::Selector(selector.to_string())])
    }

    /// `locate(description)`: where the vision model sees it.
    pub fn locate(description: &str) -> Self {
        Self::of("locate", vec![Arg::Text(description.to_string())])
    }

    /// `wait_for(sel[, timeout_ms])`.
    pub fn wait_for(selector: &str, timeout_ms: Option<i64>) -> Self {
        let mut args = vec![Arg::Selector(selector.to_string())];
        args.extend(timeout_ms.map(Arg::Int));
        Self::of("wait_for", args)
    }

    /// `assert_visible(sel)`.
    pub fn assert_visible(selector: &str) -> Self {
        Self::of("assert_visible", vec![Arg::Selector(selector.to_string())])
    }

    /// `assert_not_visible(sel)`.
    pub fn assert_not_visible(selector: &str) -> Self {
        Self::of("assert_not_visible", vec![Arg::Selector(selector.to_string())])
    }

    /// `set_clipboard(text)`.
    pub fn set_clipboard(text: &str) -> Self {
        Self::of("set_clipboard", vec![Arg::Text(text.to_string())])
    }

    /// `shell(command)`.
    pub fn shell(command: &str) -> Self {
        Self::of("shell", vec![Arg::Text(command.to_string())])
    }

    /// `open_url(uri)`.
    pub fn open_url(uri: &str) -> Self {
        Self::of("open_url", vec![Arg::Text(uri.to_string())])
    }

    /// `complete(success, reason)`.
    pub fn complete(success: bool, reason: &str) -> Self {
        Self::of("complete", vec![Arg::Bool(success), Arg::Text(reason.to_string())])
    }

    /// The tool it calls.
    pub fn tool(&self) -> &str {
        &self.tool
    }

    /// The call as an expression: `tap(540, 1200)`.
    pub fn expr(&self) -> String {
        let args: Vec<String> = self.args.iter().map(Arg::written).collect();
        format!("{}({})", self.tool, args.join(", "))
    }

    /// The call as a statement: `tap(540, 1200);`.
    pub fn line(&self) -> String {
        format!("{};", self.expr())
    }

    /// `calls` as a script, one statement a line.
    pub fn script(calls: &[ToolCall]) -> String {
        calls.iter().map(ToolCall::line).collect::<Vec<_>>().join("\n")
    }

    /// The catalog's form this call is made in: the tool's name, as many arguments
    /// as the form takes (its optional ones may be left out), each of a kind its
    /// parameter takes.
    pub fn form(&self) -> Option<&'static ToolSpec> {
        CATALOG.iter().find(|spec| {
            spec.name == self.tool
                && self.args.len() <= spec.params.len()
                && spec.params.iter().skip(self.args.len()).all(|p| p.optional)
                && self.args.iter().zip(spec.params).all(|(arg, param)| arg.fits(param.kind))
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every shape a door or an explorer writes is a form of the catalog: a tool or
    /// a parameter renamed there fails here.
    #[test]
    fn every_call_is_a_catalog_form() {
        let sel = "#{id: \"ok\"}";
        let calls = [
            ToolCall::tap_point(1, 2),
            ToolCall::tap_fraction(0.5, 0.25),
            ToolCall::tap(sel),
            ToolCall::long_press(sel),
            ToolCall::long_press_point(1, 2, None),
            ToolCall::by_index(false, 3),
            ToolCall::by_index(true, 3),
            ToolCall::refresh(),
            ToolCall::long_press_point(1, 2, Some(900)),
            ToolCall::long_press_fraction(0.5, 0.5, 600),
            ToolCall::swipe_points((1, 2), (3, 4), None),
            ToolCall::swipe_points((1, 2), (3, 4), Some(300)),
            ToolCall::swipe_fractions((0.1, 0.2), (0.3, 0.4), 200),
            ToolCall::drag_points((1, 2), (3, 4), 500),
            ToolCall::scroll(sel, "down"),
            ToolCall::input_text("hi"),
            ToolCall::set_text(sel, "hi"),
            ToolCall::clear_text(),
            ToolCall::type_secret("PIN"),
            ToolCall::press_key("enter"),
            ToolCall::back(),
            ToolCall::home(),
            ToolCall::hide_keyboard(),
            ToolCall::get_clipboard(),
            ToolCall::start_app("com.android.settings"),
            ToolCall::start_app_at("com.android.settings", ".WifiSettings"),
            ToolCall::start_app_clean("com.android.settings"),
            ToolCall::stop_app("com.android.settings"),
            ToolCall::clear_app_data("com.android.settings"),
            ToolCall::find(sel),
            ToolCall::locate("the blue button"),
            ToolCall::wait_for(sel, None),
            ToolCall::wait_for(sel, Some(5000)),
            ToolCall::assert_visible(sel),
            ToolCall::assert_not_visible(sel),
            ToolCall::set_clipboard("x"),
            ToolCall::shell("ls"),
            ToolCall::open_url("https://example.org"),
            ToolCall::complete(true, "done"),
        ];
        for call in calls {
            assert!(call.form().is_some(), "{} is no form of the catalog", call.expr());
        }
    }

    #[test]
    fn literals_go_through_the_emitter_and_numbers_keep_their_form() {
        assert_eq!(ToolCall::input_text("a\"b\n").line(), "input_text(\"a\\\"b\\n\");");
        assert_eq!(ToolCall::tap_fraction(0.5, 1.0 / 3.0).expr(), "tap(0.500, 0.333)");
        assert_eq!(ToolCall::start_app_clean("x.y").expr(), "start_app(\"x.y\", #{clear: true})");
        assert_eq!(ToolCall::swipe_points((1, 2), (3, 4), None).line(), "swipe(1, 2, 3, 4);");
        assert_eq!(ToolCall::press_key("66").expr(), "press_key(\"66\")");
    }
}
