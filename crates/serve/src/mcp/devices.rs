//! `list_devices`: the phones the adb and hdc servers see, each a name `device`
//! takes, and the built-in virtual phone, which is always there. Not opening them
//! (`client.rs`).

use std::time::Duration;

use super::client::Answer;

/// How long each server has to answer.
const SERVER_TIMEOUT: Duration = Duration::from_secs(3);

/// The device list as a model reads it: one line each, name first.
pub fn list_devices() -> Answer {
    let mut text = String::from(
        "sim\tvirtual\tthe built-in virtual phone: a fresh one for each client (also sim:ios, sim:harmony)\n",
    );
    match codeact_platform::device::adb::list_devices(SERVER_TIMEOUT) {
        Ok(devices) => {
            for d in devices {
                let model = if d.model.is_empty() { "-".to_string() } else { d.model };
                text.push_str(&format!("{}\t{}\t{}\n", d.serial, d.state, model));
            }
        }
        Err(e) => text.push_str(&format!("(no adb server: {})\n", codeact_base::error_text::full_message(&e))),
    }
    // A HarmonyOS server is listed when one answers; none is not worth a line.
    for key in codeact_platform::device::hdc::list_targets(SERVER_TIMEOUT).unwrap_or_default() {
        text.push_str(&format!("hdc:{key}\tdevice\tHarmonyOS\n"));
    }
    Answer { text: codeact_base::terminal::clean(&text).into_owned(), picture: None, failed: false }
}
