//! What `--device appium:URL` names: a W3C WebDriver / Appium server (a local Appium,
//! a Selenium Grid, a cloud's hub) at `http(s)://[USER:KEY@]host:port[/base-path]`,
//! and, after `#session=ID`, a session someone else created to drive without
//! creating or deleting it. Credentials come from the URL or from
//! `CODEACT_APPIUM_USER`/`CODEACT_APPIUM_KEY`; the key is registered as a secret at
//! once, and the name shown everywhere is the URL without them. Capabilities come
//! from `CODEACT_APPIUM_CAPS` (a JSON object, or the path of a file holding one),
//! else Android's UiAutomator2. Not the device itself (`mod.rs`).

use serde_json::{Value, json};

pub use crate::device::errors::appium::AppiumTargetError;
use crate::device::w3c::Credentials;

/// The most a capabilities file may hold.
const CAPS_BYTES: usize = 1024 * 1024;

/// An Appium server and how to reach it.
#[derive(Debug, Clone)]
pub struct AppiumTarget {
    /// The base URL requests go to, without credentials.
    pub base: String,
    pub credentials: Option<Credentials>,
    /// A session to attach to, not to create.
    pub session: Option<String>,
}

impl AppiumTarget {
    /// Reads `rest` (what follows `appium:`); `var` reads the environment.
    pub fn parse(rest: &str, var: &dyn Fn(&str) -> Option<String>) -> Result<Self, AppiumTargetError> {
        let rest = rest.trim();
        let (url, fragment) = match rest.split_once('#') {
            Some((url, fragment)) => (url, Some(fragment)),
            None => (rest, None),
        };
        let parsed =
            reqwest::Url::parse(url).ok().filter(|u| matches!(u.scheme(), "http" | "https") && u.host().is_some());
        let Some(mut parsed) = parsed else {
            return Err(AppiumTargetError::NotUrl { shown: shown_url(url) });
        };
        let mut credentials = None;
        if !parsed.username().is_empty() {
            let user = percent_decoded(parsed.username());
            let key = parsed.password().map(percent_decoded).unwrap_or_default();
            credentials = Some(Credentials::new(&user, &key));
        }
        let _ = parsed.set_username("");
        let _ = parsed.set_password(None);
        if credentials.is_none()
            && let (Some(user), Some(key)) = (var("CODEACT_APPIUM_USER"), var("CODEACT_APPIUM_KEY"))
        {
            credentials = Some(Credentials::new(&user, &key));
        }
        let session = match fragment.map(str::trim) {
            None | Some("") => None,
            Some(f) => match f.strip_prefix("session=").map(str::trim) {
                Some(id) if crate::device::w3c::valid_session_id(id) => Some(id.to_string()),
                _ => return Err(AppiumTargetError::Fragment { shown: parsed.to_string(), fragment: f.to_string() }),
            },
        };
        let base = parsed.as_str().trim_end_matches('/').to_string();
        Ok(Self { base, credentials, session })
    }
}

/// The capabilities a new session asks for: `CODEACT_APPIUM_CAPS` (inline JSON or
/// a file), else an Android phone through UiAutomator2.
pub fn capabilities(var: &dyn Fn(&str) -> Option<String>) -> Result<Value, AppiumTargetError> {
    let Some(given) = var("CODEACT_APPIUM_CAPS").filter(|v| !v.trim().is_empty()) else {
        return Ok(json!({"platformName": "Android", "appium:automationName": "UiAutomator2"}));
    };
    let text = match given.trim_start().starts_with('{') {
        true => given,
        false => codeact_base::files::read_text(std::path::Path::new(given.trim()), CAPS_BYTES)
            .map_err(|e| AppiumTargetError::Caps { why: format!("{}: {e}", given.trim()) })?,
    };
    match serde_json::from_str::<Value>(&text) {
        Ok(v @ Value::Object(_)) => Ok(v),
        Ok(_) => Err(AppiumTargetError::Caps { why: "not an object".into() }),
        Err(e) => Err(AppiumTargetError::Caps { why: e.to_string() }),
    }
}

/// A URL as it may be shown: whatever stands before an `@` is left out.
fn shown_url(url: &str) -> String {
    match url.split_once("://") {
        Some((scheme, rest)) => match rest.split('/').next().and_then(|host| host.rsplit_once('@')) {
            Some((_, host)) => format!("{scheme}://{host}{}", &rest[rest.find('/').unwrap_or(rest.len())..]),
            None => url.to_string(),
        },
        None => url.rsplit_once('@').map_or_else(|| url.to_string(), |(_, host)| host.to_string()),
    }
}

fn percent_decoded(text: &str) -> String {
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        let hex = |b: u8| (b as char).to_digit(16);
        match (bytes[i], bytes.get(i + 1).copied().and_then(hex), bytes.get(i + 2).copied().and_then(hex)) {
            (b'%', Some(h), Some(l)) => {
                out.push((h * 16 + l) as u8);
                i += 3;
            }
            (b, ..) => {
                out.push(b);
                i += 1;
            }
        }
    }
    String::from_utf8_lossy(&out).into_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn none(_: &str) -> Option<String> {
        None
    }

    #[test]
    fn a_url_its_credentials_and_a_session_to_attach_to() {
        let t = AppiumTarget::parse("https://me:s3cr%40tkey@hub.example.com/wd/hub/#session=ab-12", &none).unwrap();
        assert_eq!(t.base, "https://hub.example.com/wd/hub");
        assert_eq!(t.session.as_deref(), Some("ab-12"));
        let shown = format!("{t:?}");
        assert!(!shown.contains("s3cr"), "the key is shown nowhere: {shown}");
        assert_eq!(
            codeact_base::secrets::redact("key s3cr@tkey"),
            format!("key {}", codeact_base::secrets::REDACTED),
            "and blotted wherever it goes"
        );
        let t = AppiumTarget::parse("http://127.0.0.1:4723", &none).unwrap();
        assert_eq!(
            (t.base.as_str(), t.session.is_none(), t.credentials.is_none()),
            ("http://127.0.0.1:4723", true, true)
        );
        for bad in [
            "127.0.0.1:4723",
            "ftp://x",
            "http://",
            "http://h#s=1",
            "http://h#session=a b",
            "http://h#session=..",
            "http://h#session=a%2Fb",
        ] {
            let e = AppiumTarget::parse(bad, &none).err().map(|e| e.to_string()).unwrap_or_default();
            assert!(!e.is_empty(), "{bad}");
        }
        let e = AppiumTarget::parse("h://u:hunter22pw@x", &none).err().map(|e| e.to_string()).unwrap_or_default();
        assert!(!e.contains("hunter22pw"), "{e}");
        let env = |name: &str| match name {
            "CODEACT_APPIUM_USER" => Some("ci".to_string()),
            "CODEACT_APPIUM_KEY" => Some("k-from-env-1234".to_string()),
            _ => None,
        };
        assert!(AppiumTarget::parse("http://h:1", &env).unwrap().credentials.is_some());
    }

    #[test]
    fn capabilities_default_to_uiautomator2_and_are_read_from_json() {
        assert_eq!(capabilities(&none).unwrap()["appium:automationName"], "UiAutomator2");
        let inline = |_: &str| Some("{\"platformName\": \"iOS\"}".to_string());
        assert_eq!(capabilities(&inline).unwrap()["platformName"], "iOS");
        let list = |_: &str| Some("[1]".to_string());
        assert!(capabilities(&list).is_err());
        let missing = |_: &str| Some("/nonexistent/caps.json".to_string());
        assert!(capabilities(&missing).is_err_and(|e| e.to_string().contains("/nonexistent/caps.json")));
    }
}
