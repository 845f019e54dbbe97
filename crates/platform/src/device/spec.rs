//! What `--device` asks for, read from its text ([`DeviceSpec::parse`]): the words
//! and address shapes `connect.rs` documents. Not opening anything (`connect.rs`).

use std::net::SocketAddr;

/// What `--device` asked for.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum DeviceSpec {
    Sim,
    /// The virtual phone through its iOS (WebDriverAgent) door.
    SimIos,
    /// The virtual phone through its HarmonyOS (hdc) door.
    SimHarmony,
    /// An iPhone's WebDriverAgent at this URL.
    Ios(String),
    /// A W3C WebDriver / Appium server (Appium, a Selenium Grid, a cloud's hub):
    /// what follows `appium:` (its URL, and `#session=ID` to attach to one).
    Appium(String),
    /// A HarmonyOS phone through the hdc server: the one with this connect key, or
    /// the only one.
    Hdc(Option<String>),
    Direct(String),
    Serial(String),
    /// `ANDROID_SERIAL`, else the only attached device.
    Auto,
}

impl DeviceSpec {
    pub fn parse(arg: Option<&str>) -> Self {
        match arg.map(str::trim) {
            None | Some("") => Self::Auto,
            Some("sim") | Some("sim:android") => Self::Sim,
            Some("sim:ios") => Self::SimIos,
            Some("sim:harmony") => Self::SimHarmony,
            Some("hdc") | Some("hdc:") => Self::Hdc(None),
            Some(a) if a.starts_with("hdc:") => Self::Hdc(Some(a["hdc:".len()..].trim().to_string())),
            Some(a) if a.starts_with("ios:") => Self::Ios(ios_url(&a["ios:".len()..])),
            Some(a) if a.starts_with("appium:") => Self::Appium(a["appium:".len()..].trim().to_string()),
            Some(a) if a.parse::<SocketAddr>().is_ok() || looks_like_host_port(a) => Self::Direct(a.to_string()),
            Some(a) => Self::Serial(a.to_string()),
        }
    }
}

/// `http://HOST:PORT` for `ios:URL`: a bare `HOST:PORT` gets `http://`, nothing
/// after `ios:` is WDA's usual local port.
fn ios_url(rest: &str) -> String {
    match rest.trim() {
        "" => "http://127.0.0.1:8100".to_string(),
        r if r.starts_with("http://") || r.starts_with("https://") => r.to_string(),
        r => format!("http://{r}"),
    }
}

fn looks_like_host_port(a: &str) -> bool {
    a.rsplit_once(':')
        .is_some_and(|(host, port)| !host.is_empty() && port.parse::<u16>().is_ok() && !host.contains(':'))
}
