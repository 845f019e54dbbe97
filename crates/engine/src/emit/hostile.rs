//! Texts made to break out of whatever they are written into, for the emitters'
//! tests: random Unicode mixed with every character and sequence that ends a
//! string, a comment or a line somewhere (quotes, backticks, `${`, `*/`, `/*`,
//! `///`, NUL, CR, the Unicode line breaks, bidi controls, astral and tag
//! characters), seeded so a failure names the text that caused it.

/// SplitMix64, as the task suite's seeds use it (kept here: the emitters stand
/// below the suite).
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    fn below(&mut self, n: u64) -> u64 {
        self.next() % n.max(1)
    }
}

const PIECES: &[&str] = &[
    "\"",
    "\\",
    "`",
    "'",
    "$",
    "{",
    "}",
    "${",
    "\\${",
    "/",
    "*",
    "*/",
    "/*",
    "//",
    "///",
    "//!",
    "#",
    "\n",
    "\r",
    "\r\n",
    "\t",
    "\0",
    "\x1b",
    "\x7f",
    "\u{85}",
    "\u{2028}",
    "\u{2029}",
    "\u{202e}",
    "\u{200e}",
    "\u{feff}",
    "\u{ad}",
    "\u{301}",
    "\u{e0041}",
    "😀",
    "张三",
    "\"\"",
    "\\\n",
    "---",
    "- ",
    ": ",
    "#{",
    "shell(\"x\");",
    "\n}",
    " ",
    "a",
    "1",
];

/// `n` hostile texts from `seed`, each up to `max_pieces` pieces long.
pub fn texts(seed: u64, n: usize, max_pieces: u64) -> Vec<String> {
    let mut rng = Rng(seed);
    (0..n)
        .map(|_| {
            let len = rng.below(max_pieces + 1);
            let mut s = String::new();
            for _ in 0..len {
                if rng.below(4) == 0 {
                    s.extend(char::from_u32(rng.below(0x11_0000) as u32));
                } else {
                    s.push_str(PIECES[rng.below(PIECES.len() as u64) as usize]);
                }
            }
            s
        })
        .collect()
}
