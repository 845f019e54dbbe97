//! The runtime's one stable hash: FNV-1a (the `fnv` crate), the same on every run and
//! platform, unlike std's randomly seeded hasher. Element signatures, screen
//! fingerprints and the agent's loop guard are built with it.

use std::hash::Hasher as _;

use fnv::FnvHasher;

/// Hashes a sequence of fields; each field ends with a separator, so ("ab", "c") and
/// ("a", "bc") differ.
#[derive(Default)]
pub struct StableHasher(FnvHasher);

impl StableHasher {
    pub fn field(&mut self, bytes: &[u8]) -> &mut Self {
        self.0.write(bytes);
        self.0.write_u8(0xff);
        self
    }

    pub fn finish(&self) -> u64 {
        self.0.finish()
    }
}

/// The stable hash of one field.
pub fn stable_hash(bytes: &[u8]) -> u64 {
    StableHasher::default().field(bytes).finish()
}
