//! The locators Appium's clients send, as data, without I/O: `-android uiautomator`
//! (a `UiSelector` expression read into its calls and matched against any view that
//! says its text, class, description, package, id and states: [`uiselector`]) and
//! `xpath` (XPath 1.0 over a page source, bounded in length, nesting and work, the
//! elements it selects given back by their places: [`xpath`]).
//!
//! Both ends of codeact's Appium traffic are written on it: the virtual phone's
//! UiAutomator2 server (and its uiautomator2 JSON-RPC selectors) and codeact's own
//! WebDriver server. Where the views come from and what is done with what is found
//! belong to each side.

#![cfg_attr(not(test), deny(clippy::unwrap_used, clippy::expect_used))]

pub mod uiselector;
pub mod xpath;
