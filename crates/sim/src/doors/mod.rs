//! The virtual phone's front doors, each a real wire protocol a client we did not
//! write speaks: `adb/` (an adbd: the stock `adb`, adb_client), `hdc/` (HarmonyOS's
//! hdc server), `wda/` (WebDriverAgent's HTTP API for iOS), and `agents/` (the
//! on-device agents real phones run: uiautomator2's JSON-RPC server and the mobilerun
//! Portal, reached through adb's forwards). Each door only translates its protocol
//! into the world's commands and reads; none holds state of the phone. They take
//! connections alike (`accept.rs`).

pub(crate) mod accept;
pub(crate) mod adb;
pub(crate) mod agents;
pub(crate) mod hdc;
pub(crate) mod wda;
