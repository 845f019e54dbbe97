//! The parsed UI tree: one parse of a hierarchy dump per observation, which every
//! later part (prompt text, `ui_state`, selectors, diffs) reads.
//!
//! `parse/` turns real-world dump bytes into a [`UiTree`] (a file per platform format); this module holds the
//! types (`tree.rs`) and what is derived from each element once (centre, actions, visibility,
//! stable signature). `screen_text.rs` writes the compact text the LLM reads;
//! selectors live with the tools.

mod parse;
#[doc(hidden)]
pub mod samples;
pub mod screen_text;
mod stable_hash;
pub(crate) mod tree;

pub use parse::{ParseError, parse, parse_uitest, parse_xcui};
pub use stable_hash::{StableHasher, stable_hash};
pub use tree::{Actions, Bounds, Element, UiTree};
