//! A new session's capabilities: W3C's `{"capabilities": {"alwaysMatch",
//! "firstMatch"}}` (the first `firstMatch` that the server can meet, under
//! `alwaysMatch`), or a legacy `desiredCapabilities`; what codeact reads from them
//! (`platformName`, `appium:udid`, `appium:appPackage`/`appActivity`,
//! `appium:bundleId`, `appium:noReset`, `appium:fullReset`,
//! `appium:newCommandTimeout`); and the
//! capabilities the reply echoes, which clients read back (WebdriverIO attaches
//! Appium's commands by `platformName` and `appium:automationName`). Not opening
//! the session (`sessions.rs`).

use std::time::Duration;

use codeact_platform::device::{DeviceSpec, Platform};
use serde_json::{Map, Value};

use super::wire::{Failure, clipped};

/// What a client asked for.
#[derive(Debug, Clone, Default)]
pub struct Asked {
    /// Every capability, merged.
    pub all: Map<String, Value>,
    pub platform: Option<String>,
    pub udid: Option<String>,
    pub app: Option<String>,
    pub activity: Option<String>,
    pub no_reset: bool,
    pub full_reset: bool,
    pub idle: Option<Duration>,
}

/// The most a session's capabilities may take, as JSON.
const MOST_CAPABILITY_BYTES: usize = 64 * 1024;

fn not_created(message: impl Into<String>) -> Failure {
    Failure::new("session not created", message)
}

/// A capability by its Appium name, with or without the `appium:` prefix.
fn appium<'a>(caps: &'a Map<String, Value>, name: &str) -> Option<&'a Value> {
    caps.get(&format!("appium:{name}")).or_else(|| caps.get(name))
}

fn text(caps: &Map<String, Value>, name: &str) -> Result<Option<String>, Failure> {
    match appium(caps, name) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::String(s)) if s.len() <= 512 => Ok(Some(s.trim().to_string()).filter(|s| !s.is_empty())),
        Some(_) => Err(not_created(format!("the capability {name} must be a string of at most 512 bytes"))),
    }
}

/// Reads a new-session body.
pub fn read(body: &Value) -> Result<Asked, Failure> {
    let all = match (body.get("capabilities"), body.get("desiredCapabilities")) {
        (Some(w3c), _) if w3c.is_object() => {
            let always = w3c.get("alwaysMatch").and_then(Value::as_object).cloned().unwrap_or_default();
            let first = match w3c.get("firstMatch") {
                None | Some(Value::Null) => Map::new(),
                Some(Value::Array(list)) => list.first().and_then(Value::as_object).cloned().unwrap_or_default(),
                Some(_) => return Err(Failure::new("invalid argument", "firstMatch must be a list of objects")),
            };
            let mut merged = first;
            merged.extend(always);
            merged
        }
        (_, Some(Value::Object(legacy))) => legacy.clone(),
        _ => {
            return Err(not_created(
                "give the capabilities: {\"capabilities\": {\"alwaysMatch\": {\"platformName\": \"Android\", \"appium:automationName\": \"codeact\"}}}",
            ));
        }
    };
    if all.len() > 200 {
        return Err(not_created("more than 200 capabilities"));
    }
    // The reply echoes them (and every `GET /sessions`): bounded at intake.
    if Value::Object(all.clone()).to_string().len() > MOST_CAPABILITY_BYTES {
        return Err(not_created(format!(
            "the capabilities take more than {} KiB: send only what the session needs",
            MOST_CAPABILITY_BYTES / 1024
        )));
    }
    if appium(&all, "app").is_some_and(|a| !a.is_null()) {
        return Err(not_created(
            "codeact installs no app from the capabilities (appium:app): install it on the phone first (adb install, or the virtual phone's built-in apps), then name it with appium:appPackage (iOS: appium:bundleId)",
        ));
    }
    if all.get("browserName").and_then(Value::as_str).is_some_and(|b| !b.is_empty()) {
        return Err(not_created(
            "codeact drives native apps, not browsers: leave browserName out and name the app with appium:appPackage",
        ));
    }
    let platform = match all.get("platformName") {
        None | Some(Value::Null) => None,
        Some(Value::String(p)) => Some(p.to_ascii_lowercase()),
        Some(_) => return Err(not_created("platformName must be a string: Android, iOS or HarmonyOS")),
    };
    let idle = match appium(&all, "newCommandTimeout") {
        None | Some(Value::Null) => None,
        Some(v) => {
            let secs = v
                .as_f64()
                .filter(|s| s.is_finite() && *s >= 0.0)
                .ok_or_else(|| not_created("appium:newCommandTimeout is a number of seconds"))?;
            let most = super::options::MOST_IDLE.as_secs_f64();
            Some(Duration::from_secs_f64(if secs == 0.0 { most } else { secs.clamp(1.0, most) }))
        }
    };
    let no_reset = matches!(appium(&all, "noReset"), Some(Value::Bool(true)));
    let full_reset = matches!(appium(&all, "fullReset"), Some(Value::Bool(true)));
    Ok(Asked {
        platform,
        udid: text(&all, "udid")?,
        app: text(&all, "appPackage")?.or(text(&all, "bundleId")?),
        activity: text(&all, "appActivity")?,
        no_reset,
        full_reset,
        idle,
        all,
    })
}

/// Whether the device spec a client's `appium:udid` names may be opened by it: a
/// phone the local adb or hdc server sees, or a virtual phone — never a URL (the
/// server would reach out wherever a client says), unless it is the server's own.
pub fn udid_allowed(udid: &str, server_device: Option<&str>) -> Result<(), Failure> {
    if server_device.is_some_and(|d| d.trim() == udid) {
        return Ok(());
    }
    match DeviceSpec::parse(Some(udid)) {
        DeviceSpec::Sim | DeviceSpec::SimIos | DeviceSpec::SimHarmony | DeviceSpec::Serial(_) | DeviceSpec::Hdc(_) => {
            Ok(())
        }
        _ => Err(not_created(format!(
            "appium:udid {} names a device by address; a session may name a serial, hdc:KEY or sim (sim:ios, sim:harmony), or start the server with -d for that device",
            clipped(udid, 120)
        ))),
    }
}

/// Whether the opened phone runs the platform asked for.
pub fn platform_matches(asked: Option<&str>, actual: Platform) -> Result<(), Failure> {
    let Some(asked) = asked else { return Ok(()) };
    let fits = match actual {
        Platform::Android => asked == "android",
        Platform::Ios => asked == "ios",
        Platform::Harmony => matches!(asked, "harmonyos" | "harmony" | "openharmony"),
    };
    if fits {
        return Ok(());
    }
    Err(not_created(format!(
        "platformName {} asked, but the device runs {}: ask for platformName {} or name another device (appium:udid, or the server's -d)",
        clipped(asked, 40),
        actual.name(),
        actual.name()
    )))
}

/// The capabilities the reply echoes: what was asked, with the platform, the
/// automation and the device filled in.
pub fn answered(asked: &Asked, platform: Platform, device: &str) -> Value {
    let mut caps = asked.all.clone();
    caps.insert("platformName".into(), Value::String(platform.name().to_string()));
    caps.entry("appium:automationName").or_insert_with(|| Value::String("codeact".into()));
    caps.insert("appium:udid".into(), Value::String(device.to_string()));
    caps.insert("appium:deviceName".into(), Value::String(device.to_string()));
    Value::Object(caps)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn w3c_and_legacy_capabilities_are_read() {
        let body = json!({"capabilities": {"firstMatch": [{"appium:udid": "sim"}], "alwaysMatch": {"platformName": "Android", "appium:appPackage": "com.android.settings", "appium:newCommandTimeout": 0}}});
        let asked = read(&body).unwrap();
        assert_eq!(asked.platform.as_deref(), Some("android"));
        assert_eq!(asked.udid.as_deref(), Some("sim"));
        assert_eq!(asked.app.as_deref(), Some("com.android.settings"));
        assert_eq!(asked.idle, Some(crate::webdriver::MOST_IDLE));
        let legacy =
            read(&json!({"desiredCapabilities": {"platformName": "iOS", "bundleId": "com.apple.Preferences"}}))
                .unwrap();
        assert_eq!(legacy.app.as_deref(), Some("com.apple.Preferences"));
        assert!(read(&json!({})).is_err());
        assert!(read(&json!({"capabilities": {"alwaysMatch": {"appium:app": "/tmp/x.apk"}}})).is_err());
        assert!(read(&json!({"capabilities": {"alwaysMatch": {"browserName": "Chrome"}}})).is_err());
        assert!(read(&json!({"capabilities": {"alwaysMatch": {"platformName": 3}}})).is_err());
        assert!(udid_allowed("appium:http://evil", None).is_err());
        assert!(udid_allowed("10.0.0.1:5555", None).is_err());
        assert!(udid_allowed("10.0.0.1:5555", Some("10.0.0.1:5555")).is_ok());
        assert!(udid_allowed("emulator-5554", None).is_ok());
        assert!(platform_matches(Some("ios"), Platform::Android).is_err());
    }
}
