//! Appium's settings helper (`io.appium.settings`) as it answers once installed:
//! its input methods (listed and selectable — Appium switches to `.AppiumIME` to
//! read the clipboard, since Android 10 lets only the focused input method read
//! it), and its broadcast receivers: the clipboard (`data="BASE64"`, empty unless
//! its input method is the current one), Wi-Fi and Bluetooth switches, and the
//! animation setting (accepted). Not installing or starting it (`install.rs`).

use base64::Engine as _;

use crate::device::SimDevice;
use crate::shell::Output;
use crate::shell::ok;
use crate::world::input::CLIPBOARD;
use crate::world::template::Value;

const HELPER: &str = "io.appium.settings";
/// The helper's input method that may read the clipboard.
const APPIUM_IME: &str = "io.appium.settings/.AppiumIME";

/// The helper's input methods, while it is installed.
pub(crate) fn input_methods(device: &SimDevice) -> Vec<&'static str> {
    if device.world().installed.contains_key(HELPER) {
        vec![APPIUM_IME, "io.appium.settings/.UnicodeIME", "io.appium.settings/.EmptyIME"]
    } else {
        Vec::new()
    }
}

/// `am broadcast -n io.appium.settings/.receivers.NAME -a ACTION [--es KEY VALUE]`:
/// `None` when the component is not the helper's.
pub(crate) fn broadcast(
    device: &SimDevice,
    component: &str,
    action: Option<&str>,
    extra: &dyn Fn(&str) -> Option<String>,
) -> Option<Output> {
    let receiver = component.strip_prefix("io.appium.settings/")?;
    let intent = format!(
        "Broadcasting: Intent {{ {}flg=0x400000 cmp={component} }}\n",
        action.map(|a| format!("act={a} ")).unwrap_or_default()
    );
    let mut world = device.world();
    if !world.installed.contains_key(HELPER) {
        return Some(ok(format!("{intent}Broadcast completed: result=0\n")));
    }
    let switch = |world: &mut crate::world::World, key: &str| match extra("setstatus").as_deref() {
        Some("enable") => world.write(key, Value::Bool(true), &None),
        Some("disable") => world.write(key, Value::Bool(false), &None),
        _ => {}
    };
    let data = match receiver {
        ".receivers.ClipboardReceiver" => {
            let text = if world.ime == APPIUM_IME {
                world.read(CLIPBOARD, &None).map(|v| v.to_string()).unwrap_or_default()
            } else {
                String::new()
            };
            format!(", data=\"{}\"", base64::engine::general_purpose::STANDARD.encode(text))
        }
        ".receivers.WiFiConnectionSettingReceiver" => {
            switch(&mut world, "settings.wifi");
            String::new()
        }
        ".receivers.BluetoothConnectionSettingReceiver" => {
            switch(&mut world, "settings.bluetooth");
            String::new()
        }
        ".receivers.AnimationSettingReceiver" => String::new(),
        _ => return Some(ok(format!("{intent}Broadcast completed: result=0\n"))),
    };
    Some(ok(format!("{intent}Broadcast completed: result=-1{data}\n")))
}
