//! What model calls cost: a [`Price`] per million tokens, given (`--price IN,OUT`)
//! or looked up for common models in `prices.toml` (data, not code). Not how a suite
//! adds its costs up (`formats.rs`).

use std::collections::BTreeMap;
use std::sync::OnceLock;

use serde::Serialize;

/// US dollars per million prompt (input) and completion (output) tokens.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct Price {
    pub input_per_million: f64,
    pub output_per_million: f64,
}

/// A `--price` that is not two non-negative numbers.
#[derive(Debug, thiserror::Error)]
#[error("--price takes the input and output price in US dollars per million tokens, e.g. 0.15,0.60 (got {0:?})")]
pub struct BadPrice(pub String);

impl Price {
    /// `IN,OUT` (dollars per million tokens).
    pub fn parse(text: &str) -> Result<Self, BadPrice> {
        let bad = || BadPrice(text.to_string());
        let (input, output) = text.split_once(',').ok_or_else(bad)?;
        let number = |s: &str| s.trim().parse::<f64>().ok().filter(|x| x.is_finite() && *x >= 0.0 && *x < 1e6);
        Ok(Self {
            input_per_million: number(input).ok_or_else(bad)?,
            output_per_million: number(output).ok_or_else(bad)?,
        })
    }

    /// What `prompt` and `completion` tokens cost.
    pub fn cost(&self, prompt: u64, completion: u64) -> f64 {
        (prompt as f64 * self.input_per_million + completion as f64 * self.output_per_million) / 1e6
    }
}

/// The bundled table, read once.
fn table() -> &'static BTreeMap<String, Price> {
    static TABLE: OnceLock<BTreeMap<String, Price>> = OnceLock::new();
    TABLE.get_or_init(|| {
        let rows: BTreeMap<String, [f64; 2]> = toml::from_str(include_str!("prices.toml")).unwrap_or_default();
        rows.into_iter().map(|(name, [i, o])| (name, Price { input_per_million: i, output_per_million: o })).collect()
    })
}

/// The listed price of `model`: the longest listed name it starts with, after a
/// router's `provider/` prefix; `None` for a model not listed (a local one).
pub fn listed(model: &str) -> Option<Price> {
    let name = model.rsplit('/').next().unwrap_or(model).to_ascii_lowercase();
    table().iter().filter(|(listed, _)| name.starts_with(listed.as_str())).max_by_key(|(n, _)| n.len()).map(|(_, p)| *p)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn prices_are_found_by_the_longest_name_and_given_ones_are_checked() {
        assert!(table().len() > 20, "the bundled table parses");
        assert_eq!(listed("gpt-4o-mini-2024-07-18").map(|p| p.input_per_million), Some(0.15));
        assert_eq!(listed("openai/gpt-4o").map(|p| p.output_per_million), Some(10.0));
        assert_eq!(listed("gemma3"), None);
        let p = Price::parse("0.15, 0.60").unwrap();
        assert!((p.cost(1_000_000, 500_000) - 0.45).abs() < 1e-9);
        for bad in ["", "1", "a,b", "-1,2", "1,NaN", "1,inf"] {
            assert!(Price::parse(bad).is_err(), "{bad}");
        }
    }
}
