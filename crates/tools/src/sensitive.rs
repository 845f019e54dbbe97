//! Sensitive actions, decided by the runtime and not by the model: the rules (pay,
//! buy, purchase, transfer, delete, uninstall, factory reset, send money, in English
//! and Chinese, plus a config's own) and the policy for a match (ask a person,
//! refuse, or allow). Before an acting tool runs, what it is about to touch — the
//! element's text, description and id, the text it types, the app or command — is
//! matched here; `context.rs` asks the person and records the answer.
//!
//! English rules match at the start of a word (`delete` matches "Delete all" and
//! "delete_button", not "undelete"); rules with Chinese characters match anywhere.

use regex::{Regex, RegexBuilder, RegexSet, RegexSetBuilder};

/// The built-in rules: (label, pattern).
const DEFAULT_RULES: &[(&str, &str)] = &[
    ("pay", r"\bpay(s|ing|ment|ments)?\b|\bcheckout\b|\bcheck out\b"),
    ("buy", r"\bbuy(s|ing)?\b"),
    ("purchase", r"\bpurchas"),
    ("transfer", r"\btransfer"),
    ("delete", r"\bdelet"),
    ("uninstall", r"\buninstall"),
    ("factory reset", r"\bfactory reset|\berase all data\b|\bmaster clear\b"),
    ("send money", r"\bsend money\b|\bwire money\b"),
    ("支付", "支付|付款|结账"),
    ("购买", "购买|下单"),
    ("转账", "转账|汇款|转钱"),
    ("删除", "删除"),
    ("卸载", "卸载"),
    ("恢复出厂设置", "恢复出厂|出厂设置"),
];

/// What happens to an action a rule matches.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, serde::Deserialize)]
#[cfg_attr(feature = "cli", derive(clap::ValueEnum))]
#[serde(rename_all = "lowercase")]
pub enum SensitivePolicy {
    /// Ask a person (the terminal, an answers file, a library callback); refused when
    /// nobody can answer.
    #[default]
    Ask,
    /// Refuse every one.
    Refuse,
    /// Let every one through (scripts a person wrote, an unattended task suite).
    Allow,
}

#[derive(Debug, thiserror::Error)]
pub enum SensitiveRuleError {
    #[error("sensitive rule {0:?} is empty")]
    Empty(String),
    #[error("sensitive pattern {pattern:?} is not a valid regular expression")]
    BadPattern {
        pattern: String,
        #[source]
        source: regex::Error,
    },
}

/// One rule: the label a person reads, and what it matches.
#[derive(Debug, Clone)]
struct Rule {
    label: String,
    regex: Regex,
}

/// The rules and the policy of a session.
#[derive(Debug, Clone)]
pub struct Sensitive {
    pub policy: SensitivePolicy,
    rules: Vec<Rule>,
    /// Every rule's pattern in one set, in rule order: the gate matches each subject
    /// against all rules in one pass (it runs on every act, for every element under
    /// the point). `None` when the set cannot be built; the rules are then tried one
    /// by one.
    all: Option<RegexSet>,
}

/// The rules' patterns as one set (any case), in rule order.
fn rule_set(rules: &[Rule]) -> Option<RegexSet> {
    RegexSetBuilder::new(rules.iter().map(|r| r.regex.as_str())).case_insensitive(true).build().ok()
}

impl Default for Sensitive {
    fn default() -> Self {
        let rules = DEFAULT_RULES
            .iter()
            .filter_map(|(label, p)| {
                let regex = RegexBuilder::new(p).case_insensitive(true).build().ok()?;
                Some(Rule { label: label.to_string(), regex })
            })
            .collect::<Vec<Rule>>();
        let all = rule_set(&rules);
        Self { policy: SensitivePolicy::Ask, rules, all }
    }
}

impl Sensitive {
    /// No rules at all (with `defaults = false` in `[sensitive]`).
    pub fn without_defaults(mut self) -> Self {
        self.rules.clear();
        self.all = rule_set(&self.rules);
        self
    }

    /// Adds words or phrases, matched like the built-in ones (at the start of a
    /// word, any case; anywhere when they hold CJK characters).
    pub fn with_words(mut self, words: &[String]) -> Result<Self, SensitiveRuleError> {
        for w in words {
            let w = w.trim();
            if w.is_empty() {
                return Err(SensitiveRuleError::Empty(w.to_string()));
            }
            let escaped = regex::escape(w);
            let pattern = if w.starts_with(|c: char| c.is_alphanumeric() && c.is_ascii()) {
                format!(r"\b{escaped}")
            } else {
                escaped
            };
            self.push(w, &pattern)?;
        }
        Ok(self)
    }

    /// Adds regular expressions (any case).
    pub fn with_patterns(mut self, patterns: &[String]) -> Result<Self, SensitiveRuleError> {
        for p in patterns {
            self.push(p, p)?;
        }
        Ok(self)
    }

    fn push(&mut self, label: &str, pattern: &str) -> Result<(), SensitiveRuleError> {
        let regex = RegexBuilder::new(pattern)
            .case_insensitive(true)
            .build()
            .map_err(|source| SensitiveRuleError::BadPattern { pattern: pattern.to_string(), source })?;
        self.rules.push(Rule { label: label.to_string(), regex });
        self.all = rule_set(&self.rules);
        Ok(())
    }

    /// The label of the first rule any of `subjects` matches. Ids are read as words
    /// (`btn_delete_all` as "btn delete all").
    pub fn matching<'a>(&'a self, subjects: &[String]) -> Option<&'a str> {
        if self.policy == SensitivePolicy::Allow {
            return None;
        }
        let words: Vec<String> = subjects.iter().map(|s| s.replace(['_', '.', '/', ':'], " ")).collect();
        let first = match &self.all {
            // The lowest rule any word matches: the set yields each word's matches in
            // rule order.
            Some(all) => words.iter().filter_map(|w| all.matches(w).iter().next()).min(),
            None => self.rules.iter().position(|r| words.iter().any(|w| r.regex.is_match(w))),
        };
        first.and_then(|i| self.rules.get(i)).map(|r| r.label.as_str())
    }

    /// The labels of every rule, for `--help`-like listings.
    pub fn labels(&self) -> Vec<&str> {
        self.rules.iter().map(|r| r.label.as_str()).collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn m(s: &Sensitive, subject: &str) -> Option<String> {
        s.matching(&[subject.to_string()]).map(str::to_string)
    }

    #[test]
    fn defaults_match_words_not_parts_of_them() {
        let s = Sensitive::default();
        assert_eq!(m(&s, "Delete all notes").as_deref(), Some("delete"));
        assert_eq!(m(&s, "com.example:id/btn_delete").as_deref(), Some("delete"));
        assert_eq!(m(&s, "Pay now").as_deref(), Some("pay"));
        assert_eq!(m(&s, "Payment").as_deref(), Some("pay"));
        assert_eq!(m(&s, "Factory reset phone").as_deref(), Some("factory reset"));
        assert_eq!(m(&s, "确认删除").as_deref(), Some("删除"));
        assert_eq!(m(&s, "立即支付").as_deref(), Some("支付"));
        for fine in ["Undelete", "Display", "Paypal", "Notes", "Wi-Fi", "Payload"] {
            assert_eq!(m(&s, fine), None, "{fine}");
        }
        let extra = Sensitive::default().with_words(&["unsubscribe".into(), "注销".into()]).unwrap();
        assert_eq!(m(&extra, "Unsubscribe from all").as_deref(), Some("unsubscribe"));
        assert_eq!(m(&extra, "注销账号").as_deref(), Some("注销"));
        let only = Sensitive::default().without_defaults().with_patterns(&[r"wire \$\d+".into()]).unwrap();
        assert_eq!((m(&only, "Delete"), m(&only, "Wire $500").is_some()), (None, true));
        let allow = Sensitive { policy: SensitivePolicy::Allow, ..Sensitive::default() };
        assert_eq!(m(&allow, "Delete"), None);
        assert!(Sensitive::default().with_patterns(&["(".into()]).is_err());
    }
}
