//! Compiling a selector from a script's value (a string or a map) or from a recorded
//! Rhai literal, within limits: the work is done in the runtime on a snippet's
//! behalf, so parts, regexes, text, nesting and time are all bounded. Not matching
//! (`mod.rs`).

use std::time::Instant;

use rhai::{Dynamic, Map};

use super::Selector;
use super::error::SelectorError;
use super::keys::{Pattern, field_key, flag_key, relation_key};
use super::limits::{MAX_NESTING, MAX_PARTS, MAX_PATTERNS, MAX_TEXT_BYTES};

/// How much of a selector its messages show.
const SHOWN_BYTES: usize = 240;

/// What a selector being compiled has used of its allowance.
struct Budget {
    parts: usize,
    patterns: usize,
    text: usize,
    /// Compiling stops past it (the snippet's deadline).
    deadline: Option<Instant>,
}

impl Budget {
    fn part(&mut self) -> Result<(), SelectorError> {
        self.parts += 1;
        if self.parts > MAX_PARTS { Err(SelectorError::TooManyParts) } else { Ok(()) }
    }

    fn text(&mut self, text: &str) -> Result<(), SelectorError> {
        self.text += text.len();
        if self.text > MAX_TEXT_BYTES { Err(SelectorError::TooMuchText) } else { Ok(()) }
    }

    fn pattern(&mut self) -> Result<(), SelectorError> {
        self.patterns += 1;
        if self.patterns > MAX_PATTERNS {
            return Err(SelectorError::TooManyPatterns);
        }
        match self.deadline {
            Some(deadline) if Instant::now() >= deadline => Err(SelectorError::OutOfTime),
            _ => Ok(()),
        }
    }
}

/// The most source a selector literal may take (its text, quoted and keyed).
const MAX_SOURCE_BYTES: usize = 2 * MAX_TEXT_BYTES;

/// An engine that reads literals and nothing else: no functions (a raw engine),
/// no loops, branches, blocks or closures, and every size bounded.
fn literal_engine() -> rhai::Engine {
    let mut engine = rhai::Engine::new_raw();
    engine
        .set_allow_looping(false)
        .set_allow_loop_expressions(false)
        .set_allow_if_expression(false)
        .set_allow_switch_expression(false)
        .set_allow_statement_expression(false)
        .set_allow_anonymous_fn(false)
        .set_max_operations(10_000)
        .set_max_call_levels(4)
        .set_max_expr_depths(2 * MAX_NESTING + 8, 2 * MAX_NESTING + 8)
        .set_max_string_size(MAX_TEXT_BYTES)
        .set_max_array_size(MAX_PARTS)
        .set_max_map_size(MAX_PARTS)
        .set_max_variables(0)
        .set_max_functions(0)
        .set_max_modules(0);
    engine
}

/// `text`, cut to [`SHOWN_BYTES`] with its size said.
fn shorten(text: String) -> String {
    codeact_base::clip::clip(&text, SHOWN_BYTES).into_owned()
}

impl Selector {
    /// Compiles a selector (a string or a map) within the limits above.
    pub fn from_dynamic(v: &Dynamic) -> Result<Self, SelectorError> {
        Self::compile(v, None)
    }

    /// Compiles a selector, giving up once `deadline` has passed (a tool call's).
    pub fn from_dynamic_until(v: &Dynamic, deadline: Instant) -> Result<Self, SelectorError> {
        Self::compile(v, Some(deadline))
    }

    /// Reads a selector written as a Rhai literal (`"OK"`, `#{id: "send", below: "To"}`),
    /// as a replay's precondition keeps it. Read as data: no loop, closure, block or
    /// branch is accepted, evaluation is capped in operations and sizes, and the
    /// source in length, so a remembered or imported step cannot make the runtime
    /// work without bound.
    pub fn from_source(source: &str) -> Result<Self, SelectorError> {
        if source.len() > MAX_SOURCE_BYTES {
            return Err(SelectorError::TooMuchText);
        }
        let value = literal_engine()
            .eval_expression::<Dynamic>(source)
            .map_err(|e| SelectorError::NotALiteral(shorten(e.to_string())))?;
        Self::from_dynamic(&value)
    }

    /// The selector written as `source` with one more condition `key: value` (a
    /// checked state, an exact text): a map gets the key (in place of its own), a
    /// bare string becomes `#{label: ...}` with it; written back through the one
    /// emitter. What an assertion on an element a person pointed at checks.
    pub fn source_with(source: &str, key: &str, value: Dynamic) -> Result<String, SelectorError> {
        if source.len() > MAX_SOURCE_BYTES {
            return Err(SelectorError::TooMuchText);
        }
        let read = literal_engine()
            .eval_expression::<Dynamic>(source)
            .map_err(|e| SelectorError::NotALiteral(shorten(e.to_string())))?;
        let mut map = match read.clone().try_cast::<rhai::Map>() {
            Some(map) => map,
            None => {
                let text = read
                    .into_immutable_string()
                    .map_err(|_| SelectorError::NotALiteral("a selector is a string or a map".into()))?;
                rhai::Map::from_iter([("label".into(), Dynamic::from(text))])
            }
        };
        map.insert(key.into(), value);
        let combined = Dynamic::from_map(map);
        Self::from_dynamic(&combined)?;
        codeact_engine::emit::rhai::value(&combined)
            .ok_or_else(|| SelectorError::NotALiteral("the selector has no literal form".into()))
    }

    fn compile(v: &Dynamic, deadline: Option<Instant>) -> Result<Self, SelectorError> {
        let mut budget = Budget { parts: 0, patterns: 0, text: 0, deadline };
        Self::parse(v, 0, &mut budget)
    }

    fn parse(v: &Dynamic, depth: usize, budget: &mut Budget) -> Result<Self, SelectorError> {
        if depth > MAX_NESTING {
            return Err(SelectorError::TooDeep);
        }
        budget.part()?;
        // Read in place: cloning a value to look at it would copy a whole tree.
        if let Some(s) = v.read_lock::<rhai::ImmutableString>() {
            budget.text(&s)?;
            let s = s.to_string();
            return Ok(Selector { shown: shorten(format!("{s:?}")), any_text: Some(s), ..Self::empty() });
        }
        let Some(map) = v.read_lock::<Map>() else {
            return Err(SelectorError::NotASelector(v.type_name().to_string()));
        };
        if let Some(element) = Self::element(&map) {
            return element;
        }
        let mut sel = Selector::empty();
        for (key, value) in map.iter() {
            let wrong = |expected: &'static str, found: &str| SelectorError::WrongType {
                key: key.to_string(),
                expected,
                found: found.to_string(),
            };
            if let Some((field, how)) = field_key(key) {
                let text = value
                    .read_lock::<rhai::ImmutableString>()
                    .map(|s| s.to_string())
                    .ok_or_else(|| wrong("a string", value.type_name()))?;
                budget.text(&text)?;
                let pattern = match how {
                    "contains" => Pattern::Contains(text),
                    "starts_with" => Pattern::StartsWith(text),
                    "matches" => {
                        budget.pattern()?;
                        Pattern::regex(key, &text)?
                    }
                    _ => Pattern::Exact(text),
                };
                sel.fields.push((field, pattern));
            } else if let Some(flag) = flag_key(key) {
                sel.flags.push((flag, value.as_bool().map_err(|t| wrong("true or false", t))?));
            } else if let Some(relation) = relation_key(key) {
                sel.relations.push((relation, Box::new(Selector::parse(value, depth + 1, budget)?)));
            } else if key.as_str() == "nth" {
                let n = value.as_int().map_err(|t| wrong("an integer", t))?;
                sel.nth = Some(usize::try_from(n).map_err(|_| SelectorError::NegativeNth)?);
            } else if key.as_str() == "no_scroll" {
                sel.no_scroll = value.as_bool().map_err(|t| wrong("true or false", t))?;
            } else if key.as_str() == "image" {
                let name = value
                    .read_lock::<rhai::ImmutableString>()
                    .map(|s| s.to_string())
                    .ok_or_else(|| wrong("a string", value.type_name()))?;
                if !codeact_platform::locate::gallery::valid_name(&name) {
                    return Err(SelectorError::BadImageName(shorten(name)));
                }
                let threshold = sel.image.take().and_then(|w| w.threshold);
                sel.image = Some(super::ImageWant { name, threshold });
            } else if key.as_str() == "threshold" {
                let t = value.as_float().ok().or_else(|| value.as_int().ok().map(|i| i as f64));
                let t = t.filter(|t| *t > 0.0 && *t <= 1.0).ok_or(SelectorError::BadThreshold)? as f32;
                let name = sel.image.take().map(|w| w.name).unwrap_or_default();
                sel.image = Some(super::ImageWant { name, threshold: Some(t) });
            } else if key.as_str() == "ai" {
                let description = value
                    .read_lock::<rhai::ImmutableString>()
                    .map(|s| s.trim().to_string())
                    .ok_or_else(|| wrong("a string", value.type_name()))?;
                budget.text(&description)?;
                if description.is_empty() || description.len() > super::MAX_DESCRIPTION_BYTES {
                    return Err(SelectorError::BadDescription(shorten(description)));
                }
                sel.ai = Some(description);
            } else if key.as_str() == "index" {
                return Err(SelectorError::IndexKey(shorten(value.to_string())));
            } else {
                return Err(SelectorError::UnknownKey(shorten(key.to_string())));
            }
        }
        drop(map);
        if sel.image.as_ref().is_some_and(|want| want.name.is_empty()) {
            return Err(SelectorError::BadThreshold);
        }
        if depth > 0 && (sel.image.is_some() || sel.ai.is_some()) {
            return Err(SelectorError::LocatedNested);
        }
        // Formatted only once the whole selector is known to be within its limits.
        sel.shown = shorten(format!("{v}"));
        Ok(sel)
    }

    fn empty() -> Self {
        Selector {
            any_text: None,
            fields: Vec::new(),
            flags: Vec::new(),
            relations: Vec::new(),
            nth: None,
            no_scroll: false,
            image: None,
            ai: None,
            shown: String::new(),
            identity: None,
        }
    }

    /// An element map as `find()` and `ui_state` give them (it has a `signature`
    /// and `bounds`, which no selector key is): that very element, whatever else
    /// the map holds (its `checked` then is what it was, not a condition).
    fn element(map: &Map) -> Option<Result<Self, SelectorError>> {
        let signature = map.get("signature")?.read_lock::<rhai::ImmutableString>()?.to_string();
        let bounds = map.get("bounds")?.read_lock::<rhai::Array>()?.clone();
        let bad = || Err(SelectorError::NotAnElement);
        let Ok(signature) = u64::from_str_radix(&signature, 16) else { return Some(bad()) };
        let sides: Vec<i32> =
            bounds.iter().filter_map(|v| v.as_int().ok()).filter_map(|v| i32::try_from(v).ok()).collect();
        let [left, top, right, bottom] = sides[..] else { return Some(bad()) };
        let word = |k: &str| map.get(k).and_then(|v| v.read_lock::<rhai::ImmutableString>().map(|s| s.to_string()));
        let label = [word("text"), word("desc")].into_iter().flatten().find(|t| !t.is_empty());
        let class = word("class").unwrap_or_else(|| "element".into());
        let shown = match label {
            Some(l) => format!("the {class} {l:?} at [{left},{top}][{right},{bottom}]"),
            None => format!("the {class} at [{left},{top}][{right},{bottom}]"),
        };
        let bounds = codeact_platform::ui::Bounds { left, top, right, bottom };
        Some(Ok(Selector { shown: shorten(shown), identity: Some((signature, bounds)), ..Self::empty() }))
    }
}
