//! The `hdc-rs` crate's client (async, on a runtime of its own here) against the
//! virtual phone's hdc door: every call bounded, since hdc-rs waits for a server's
//! handshake without a timeout of its own.

use std::time::Duration;

/// The phone's connect key (`codeact sim`'s default serial).
pub const KEY: &str = "codeact-sim";

fn runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_current_thread().enable_all().build().expect("a tokio runtime")
}

/// Runs `f` with an hdc-rs client connected to the server at `addr` with `key`.
pub fn with_client<T>(
    addr: &str,
    key: Option<&str>,
    f: impl AsyncFnOnce(&mut hdc_rs::HdcClient) -> Result<T, hdc_rs::HdcError>,
) -> Result<T, hdc_rs::HdcError> {
    runtime().block_on(async {
        let run = async {
            let mut client = hdc_rs::HdcClient::connect(addr).await?;
            if let Some(key) = key {
                client.connect_device(key).await?;
            }
            f(&mut client).await
        };
        tokio::time::timeout(Duration::from_secs(30), run).await.unwrap_or(Err(hdc_rs::HdcError::Timeout))
    })
}

/// `hdc shell CMD` through hdc-rs: what the phone printed.
pub fn shell(addr: &str, command: &str) -> String {
    with_client(addr, Some(KEY), async |c| c.shell(command).await)
        .unwrap_or_else(|e| panic!("hdc-rs shell {command:?}: {e}"))
}

/// The world as `simctl state` prints it, through the hdc door.
pub fn state(addr: &str) -> serde_json::Value {
    let out = shell(addr, "simctl state");
    serde_json::from_str(&out).unwrap_or_else(|e| panic!("state JSON ({e}): {out}"))
}
