//! The `-android uiautomator` locator on the virtual phone: the expression read by
//! appium-locators' `uiselector` into its calls, and those made into uiautomator2's
//! selector (the same conditions its JSON-RPC server matches, `u2_selector.rs`).
//! Not the search (`find.rs`).

use appium_locators::uiselector::{self as language, Fields};
use serde_json::Value;

use crate::doors::agents::u2_selector::{self, Selector};

/// What a locator asks for.
pub(super) enum Query {
    Plain(Selector),
    Scroll(Scroll),
}

/// A `UiScrollable` search: scroll `within` until `target` shows.
pub(super) struct Scroll {
    pub(super) within: Selector,
    pub(super) target: Selector,
    pub(super) max_swipes: usize,
    pub(super) horizontal: bool,
}

/// A selector dict (fields, and the mask of those set) as uiautomator2's selector.
fn selector(fields: Fields) -> Result<Selector, String> {
    let mask = u2_selector::FIELDS.iter().filter(|(f, _)| fields.contains_key(*f)).fold(0u64, |m, (_, bit)| m | bit);
    let mut dict = fields;
    dict.insert("mask".into(), Value::from(mask));
    u2_selector::parse("UiSelector", Some(&Value::Object(dict))).map_err(|e| e.2.unwrap_or(e.1))
}

/// Reads a locator.
pub(super) fn parse(text: &str) -> Result<Query, String> {
    Ok(match language::parse(text).map_err(|e| super::reply::whole(&e))? {
        language::Query::Plain(fields) => Query::Plain(selector(fields)?),
        language::Query::Scroll(s) => Query::Scroll(Scroll {
            within: selector(s.within)?,
            target: selector(s.target)?,
            max_swipes: s.max_swipes,
            horizontal: s.horizontal,
        }),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_what_appium_users_write() {
        assert!(
            matches!(parse("new UiSelector().resourceId(\"a:id/b\").instance(1);"), Ok(Query::Plain(s)) if s.instance() == Some(1))
        );
        let scroll = "new UiScrollable(new UiSelector().scrollable(true)).setMaxSearchSwipes(5).scrollIntoView(new UiSelector().text(\"About\"))";
        assert!(matches!(parse(scroll), Ok(Query::Scroll(s)) if s.max_swipes == 5 && !s.horizontal));
        assert!(parse("new UiSelector().textMatches(\"(\")").is_err());
    }
}
