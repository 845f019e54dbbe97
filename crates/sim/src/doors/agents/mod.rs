//! The on-device agents a test phone may run and what listens on its device ports:
//! uiautomator2's server on 9008 while the `app_process` that started it runs
//! (`u2.rs`), Appium's UiAutomator2 server on 6790 while its `am instrument` runs
//! (`uia2/`), and the mobilerun Portal's HTTP server on 8080 while its accessibility
//! service is enabled (`portal.rs`). A port is reached only through the ADB transport — the host opens a
//! `tcp:PORT` stream, as `adb forward` and uiautomator2's client do —, never on a
//! socket of the host. Each stream is one HTTP/1.1 connection served by the agent's
//! router (bridged by `doors/adb/forward.rs`); this file only names the agents. Not the
//! commands that start an agent (`commands/agents.rs`).

pub(crate) mod portal;
mod rpc_error;
pub(crate) mod u2;
mod u2_selector;
pub(crate) mod uia2;
