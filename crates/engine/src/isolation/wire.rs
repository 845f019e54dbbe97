//! The bytes the runtime and its sandbox worker exchange: a small bounds-checked
//! binary codec for numbers, strings and Rhai values (the arguments a script hands a
//! tool, the values a tool returns, `ui_state`). Hand-written rather than serde
//! because the hot path (a tool call) must cost microseconds and Rhai's values need
//! their exact types back (an `i64` stays an `i64`, a `char` a `char`).
//!
//! Decoding trusts nothing: lengths are checked against what is left, nesting is
//! bounded, and a value that cannot cross (a function pointer) is refused by name.
//! Framing and messages are elsewhere (`frames.rs`).

use rhai::{Array, Blob, Dynamic, ImmutableString, Map};

/// How deeply arrays and maps may nest in a value that crosses: deeper values are
/// refused (decoding recurses, and a script can build a chain thousands deep).
pub const MAX_NESTING: usize = 64;

/// Why bytes could not be read or a value could not be written.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum WireError {
    #[error("the message ends early")]
    Truncated,
    #[error("unknown value tag {0}")]
    BadTag(u8),
    #[error("a string that is not UTF-8")]
    BadText,
    #[error("values nested deeper than {MAX_NESTING} levels cannot be passed to or from a tool")]
    TooDeep,
    #[error("a {0} cannot be passed to or from a tool (only numbers, strings, booleans, arrays, maps and blobs)")]
    Unsupported(String),
}

const UNIT: u8 = 0;
const FALSE: u8 = 1;
const TRUE: u8 = 2;
const INT: u8 = 3;
const FLOAT: u8 = 4;
const CHAR: u8 = 5;
const STRING: u8 = 6;
const ARRAY: u8 = 7;
const MAP: u8 = 8;
const BLOB: u8 = 9;

/// Appends values to a byte buffer.
#[derive(Debug, Default)]
pub struct Writer {
    pub bytes: Vec<u8>,
}

impl Writer {
    pub fn u8(&mut self, v: u8) {
        self.bytes.push(v);
    }

    pub fn u64(&mut self, v: u64) {
        self.bytes.extend_from_slice(&v.to_le_bytes());
    }

    pub fn len(&mut self, n: usize) {
        self.u64(n as u64);
    }

    pub fn str(&mut self, s: &str) {
        self.len(s.len());
        self.bytes.extend_from_slice(s.as_bytes());
    }

    pub fn bytes(&mut self, b: &[u8]) {
        self.len(b.len());
        self.bytes.extend_from_slice(b);
    }

    /// Writes a Rhai value; `Err` for one that cannot cross (nothing is half-written
    /// that matters: the caller drops the buffer).
    pub fn value(&mut self, v: &Dynamic) -> Result<(), WireError> {
        self.value_at(v, 0)
    }

    fn value_at(&mut self, v: &Dynamic, depth: usize) -> Result<(), WireError> {
        if depth > MAX_NESTING {
            return Err(WireError::TooDeep);
        }
        if v.is_unit() {
            self.u8(UNIT);
        } else if let Ok(b) = v.as_bool() {
            self.u8(if b { TRUE } else { FALSE });
        } else if let Ok(i) = v.as_int() {
            self.u8(INT);
            self.u64(i as u64);
        } else if let Ok(f) = v.as_float() {
            self.u8(FLOAT);
            self.u64(f.to_bits());
        } else if let Ok(c) = v.as_char() {
            self.u8(CHAR);
            self.u64(u64::from(u32::from(c)));
        } else if v.is_string() {
            self.u8(STRING);
            let s = v.read_lock::<ImmutableString>().ok_or(WireError::Unsupported("locked string".into()))?;
            self.str(&s);
        } else if v.is_array() {
            let a = v.read_lock::<Array>().ok_or(WireError::Unsupported("locked array".into()))?;
            self.u8(ARRAY);
            self.len(a.len());
            for item in a.iter() {
                self.value_at(item, depth + 1)?;
            }
        } else if v.is_map() {
            let m = v.read_lock::<Map>().ok_or(WireError::Unsupported("locked map".into()))?;
            self.u8(MAP);
            self.len(m.len());
            for (k, item) in m.iter() {
                self.str(k);
                self.value_at(item, depth + 1)?;
            }
        } else if v.is_blob() {
            let b = v.read_lock::<Blob>().ok_or(WireError::Unsupported("locked blob".into()))?;
            self.u8(BLOB);
            self.bytes(&b);
        } else {
            return Err(WireError::Unsupported(v.type_name().rsplit("::").next().unwrap_or("value").to_string()));
        }
        Ok(())
    }
}

/// Reads values back from a byte slice.
#[derive(Debug)]
pub struct Reader<'a> {
    rest: &'a [u8],
}

impl<'a> Reader<'a> {
    pub fn new(bytes: &'a [u8]) -> Self {
        Self { rest: bytes }
    }

    #[cfg(test)]
    pub fn is_empty(&self) -> bool {
        self.rest.is_empty()
    }

    fn take(&mut self, n: usize) -> Result<&'a [u8], WireError> {
        if n > self.rest.len() {
            return Err(WireError::Truncated);
        }
        let (head, tail) = self.rest.split_at(n);
        self.rest = tail;
        Ok(head)
    }

    pub fn u8(&mut self) -> Result<u8, WireError> {
        Ok(self.take(1)?[0])
    }

    pub fn u64(&mut self) -> Result<u64, WireError> {
        let b = self.take(8)?;
        let mut a = [0u8; 8];
        a.copy_from_slice(b);
        Ok(u64::from_le_bytes(a))
    }

    /// A length, checked against what is left (each item takes at least a byte).
    pub fn len(&mut self) -> Result<usize, WireError> {
        let n = usize::try_from(self.u64()?).map_err(|_| WireError::Truncated)?;
        if n > self.rest.len() { Err(WireError::Truncated) } else { Ok(n) }
    }

    pub fn bytes(&mut self) -> Result<&'a [u8], WireError> {
        let n = self.len()?;
        self.take(n)
    }

    pub fn str(&mut self) -> Result<&'a str, WireError> {
        std::str::from_utf8(self.bytes()?).map_err(|_| WireError::BadText)
    }

    pub fn value(&mut self) -> Result<Dynamic, WireError> {
        self.value_at(0)
    }

    fn value_at(&mut self, depth: usize) -> Result<Dynamic, WireError> {
        if depth > MAX_NESTING {
            return Err(WireError::TooDeep);
        }
        Ok(match self.u8()? {
            UNIT => Dynamic::UNIT,
            FALSE => Dynamic::FALSE,
            TRUE => Dynamic::TRUE,
            INT => Dynamic::from_int(self.u64()? as i64),
            FLOAT => Dynamic::from_float(f64::from_bits(self.u64()?)),
            CHAR => {
                let c = u32::try_from(self.u64()?).ok().and_then(char::from_u32).ok_or(WireError::BadText)?;
                Dynamic::from_char(c)
            }
            STRING => Dynamic::from(self.str()?.to_string()),
            ARRAY => {
                let n = self.len()?;
                let mut a = Array::with_capacity(n);
                for _ in 0..n {
                    a.push(self.value_at(depth + 1)?);
                }
                Dynamic::from_array(a)
            }
            MAP => {
                let n = self.len()?;
                let mut m = Map::new();
                for _ in 0..n {
                    let k = self.str()?;
                    m.insert(k.into(), self.value_at(depth + 1)?);
                }
                Dynamic::from_map(m)
            }
            BLOB => Dynamic::from_blob(self.bytes()?.to_vec()),
            other => return Err(WireError::BadTag(other)),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn round_trip(v: &Dynamic) -> Dynamic {
        let mut w = Writer::default();
        w.value(v).unwrap();
        let mut r = Reader::new(&w.bytes);
        let back = r.value().unwrap();
        assert!(r.is_empty());
        back
    }

    #[test]
    fn values_keep_their_types() {
        let engine = rhai::Engine::new();
        let v: Dynamic = engine.eval(r#"#{ a: [1, 2.5, "x", 'c', true, ()], b: #{ c: -7 }, d: blob(3, 9) }"#).unwrap();
        assert_eq!(format!("{:?}", round_trip(&v)), format!("{v:?}"));
        assert!(round_trip(&Dynamic::from(-5_i64)).is_int());
    }

    #[test]
    fn what_cannot_cross_is_refused_and_bad_bytes_are_errors() {
        let engine = rhai::Engine::new();
        let f: Dynamic = engine.eval("|x| x + 1").unwrap();
        assert!(matches!(Writer::default().value(&f), Err(WireError::Unsupported(_))));
        let mut deep = Dynamic::from_array(vec![]);
        for _ in 0..100 {
            deep = Dynamic::from_array(vec![deep]);
        }
        assert_eq!(Writer::default().value(&deep), Err(WireError::TooDeep));
        for bytes in
            [&[ARRAY, 255, 255, 255, 255, 0, 0, 0, 0][..], &[42], &[STRING, 2, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xfe]]
        {
            assert!(Reader::new(bytes).value().is_err(), "{bytes:?}");
        }
    }
}
