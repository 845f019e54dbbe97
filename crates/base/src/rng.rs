//! A seeded pseudo-random generator every part that must repeat itself shares (a
//! task instance's parameters, a random explorer's walk): a seed means the same
//! sequence everywhere and forever. Not for anything secret (tokens come from the
//! OS, `token.rs`).

/// SplitMix64: tiny, fast and fully specified, so a seed means the same instance
/// everywhere and forever (a crate's generator may change its stream between versions).
#[derive(Debug, Clone)]
pub struct Rng(u64);

impl Rng {
    pub fn new(seed: u64) -> Self {
        Self(seed)
    }

    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// A whole number in `min..=max`.
    pub fn between(&mut self, min: i64, max: i64) -> i64 {
        if max <= min {
            return min;
        }
        let span = (max - min) as u64 + 1;
        min + (self.next_u64() % span) as i64
    }

    pub fn pick<'a, T>(&mut self, items: &'a [T]) -> Option<&'a T> {
        if items.is_empty() {
            return None;
        }
        items.get(self.between(0, items.len() as i64 - 1) as usize)
    }
}
