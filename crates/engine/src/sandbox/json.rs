//! `to_json` on maps, in place of rhai's: that one follows a closure's captured
//! values into the map that holds the closure, and panics on the lock it holds
//! itself (or recurses for ever through a map that reaches itself). This one writes
//! the same JSON for ordinary values, and for a value that holds itself, or is
//! nested or sized past the engine's limits, fails with a script error.
//!
//! Not here: parsing JSON (`parse_json` is the engine's, bounded by its limits).

use rhai::{Array, Blob, Dynamic, Engine, EvalAltResult, ImmutableString, Map, NativeCallContext, Position};

type Fallible<T> = Result<T, Box<EvalAltResult>>;

/// How deep `to_json` follows maps, arrays and closures' captured values.
const MAX_DEPTH: usize = 64;

/// Registers the replacement (it shadows the standard package's).
pub(crate) fn register(engine: &mut Engine) {
    // By value: the engine holds no lock on the map while it is written out, so a
    // closure's captured copy of it reads as any other value would.
    engine.register_fn("to_json", |ctx: NativeCallContext, map: Map| -> Fallible<String> {
        let max = match ctx.engine().max_string_size() {
            0 => usize::MAX,
            n => n,
        };
        let mut out = Writer { text: String::from("{"), max };
        out.map_body(&map, 0)?;
        Ok(out.text)
    });
}

/// `v` as JSON text of at most `max` bytes (`null` for `()`), or why it cannot be.
pub(crate) fn value_text(v: &Dynamic, max: usize) -> Result<String, String> {
    let mut out = Writer { text: String::new(), max };
    match out.value(v, 0) {
        Ok(()) => Ok(out.text),
        Err(e) => Err(match *e {
            EvalAltResult::ErrorRuntime(why, _) => why.to_string(),
            other => other.to_string(),
        }),
    }
}

struct Writer {
    text: String,
    max: usize,
}

fn refuse(why: String) -> Box<EvalAltResult> {
    EvalAltResult::ErrorRuntime(Dynamic::from(format!("to_json: {why}")), Position::NONE).into()
}

impl Writer {
    fn push(&mut self, s: &str) -> Fallible<()> {
        if self.text.len() + s.len() > self.max {
            return Err(refuse(format!(
                "the JSON would be longer than the limit ({} bytes); write out a smaller part of the value",
                self.max
            )));
        }
        self.text.push_str(s);
        Ok(())
    }

    fn quoted(&mut self, s: &str) -> Fallible<()> {
        let json = serde_json::to_string(s).unwrap_or_else(|_| "\"\"".to_string());
        self.push(&json)
    }

    /// The map's entries and its closing brace (the opening one is written).
    fn map_body(&mut self, map: &Map, depth: usize) -> Fallible<()> {
        for (i, (key, value)) in map.iter().enumerate() {
            if i > 0 {
                self.push(",")?;
            }
            self.quoted(key)?;
            self.push(":")?;
            self.value(value, depth + 1)?;
        }
        self.push("}")
    }

    fn value(&mut self, v: &Dynamic, depth: usize) -> Fallible<()> {
        if depth > MAX_DEPTH {
            return Err(refuse(format!(
                "the value is nested more than {MAX_DEPTH} levels deep (a map that holds a closure which captured the map itself reaches itself for ever)"
            )));
        }
        if v.is_shared() {
            // A captured variable: read it without waiting on a lock its owner
            // holds (the map being written out, when it captured itself).
            if v.is_locked() {
                return Err(refuse(
                    "the value holds itself (through a closure that captured it); write out the parts without the closure"
                        .into(),
                ));
            }
            let inner = v.flatten_clone();
            return self.value(&inner, depth);
        }
        if v.is_unit() {
            self.push("null")
        } else if let Ok(b) = v.as_bool() {
            self.push(if b { "true" } else { "false" })
        } else if let Ok(i) = v.as_int() {
            self.push(&i.to_string())
        } else if let Ok(f) = v.as_float() {
            self.push(&serde_json::Number::from_f64(f).map_or_else(|| "null".to_string(), |n| n.to_string()))
        } else if let Ok(c) = v.as_char() {
            self.quoted(c.encode_utf8(&mut [0; 4]))
        } else if let Some(s) = v.read_lock::<ImmutableString>() {
            self.quoted(&s)
        } else if let Some(a) = v.read_lock::<Array>() {
            self.push("[")?;
            for (i, item) in a.iter().enumerate() {
                if i > 0 {
                    self.push(",")?;
                }
                self.value(item, depth + 1)?;
            }
            self.push("]")
        } else if let Some(m) = v.read_lock::<Map>() {
            self.push("{")?;
            self.map_body(&m, depth)
        } else if let Some(b) = v.read_lock::<Blob>() {
            let bytes: Vec<String> = b.iter().map(u8::to_string).collect();
            self.push(&format!("[{}]", bytes.join(",")))
        } else if let Some(f) = v.read_lock::<rhai::FnPtr>() {
            // As rhai writes a function: its name, then the values it carries.
            if !f.is_curried() {
                return self.quoted(f.fn_name());
            }
            self.push("[")?;
            self.quoted(f.fn_name())?;
            for carried in f.iter_curry() {
                self.push(",")?;
                self.value(carried, depth + 1)?;
            }
            self.push("]")
        } else {
            self.quoted(&v.to_string())
        }
    }
}
