//! How big a selector may be. The work done for a selector (compiling it, and
//! matching it on every look of a wait) runs in the runtime, not in the capped
//! sandbox, so every part of it is bounded.

/// How deep `below`/`inside`/... may nest.
pub const MAX_NESTING: usize = 16;

/// The most selectors one selector may hold, itself and every nested one counted.
/// The work done for a selector (compiling it, and matching it on every look of a
/// wait) runs in the runtime, not in the capped sandbox, so every part of it is
/// bounded: a tree of relations built in a loop (each level holding the previous one
/// twice) would otherwise double at every level.
pub const MAX_PARTS: usize = 64;

/// The most regexes (`*_matches` keys) one selector may compile, in all.
pub const MAX_PATTERNS: usize = 16;

/// The most text (literal and regex) one selector may hold, in all.
pub const MAX_TEXT_BYTES: usize = 64 * 1024;

/// The most memory one selector pattern may compile to (and its matcher may cache):
/// a pattern like `(\w{1000}){1000}` is refused in milliseconds instead of taking
/// seconds and gigabytes.
pub(super) const PATTERN_BYTES: usize = 1 << 20;
