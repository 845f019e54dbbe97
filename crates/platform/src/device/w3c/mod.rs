//! The W3C WebDriver protocol as codeact's backends speak it: the blocking client
//! (`client.rs`) and its typed errors (`error.rs`), shared by the iOS backend
//! (WebDriverAgent) and the Appium backend (any Appium server, Selenium Grid or
//! cloud). Not what the commands mean for a phone.

mod client;

pub use crate::device::errors::w3c::W3cError;
pub use client::{Credentials, Scope, Server, W3cClient, valid_session_id};
