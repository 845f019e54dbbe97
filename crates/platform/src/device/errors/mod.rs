//! Why a device operation failed ([`DeviceError`], each backend's own errors
//! wrapped, always naming the device and saying what to try), with every backend's
//! errors beside it (`adb.rs`, `agent.rs`, `http.rs`, `transport.rs`, `hdc.rs`,
//! `w3c.rs`, `appium.rs`): at the bottom of `device/`, so the backends above can
//! return them and the device's error can wrap theirs. Not the trait
//! (`contract.rs`) nor the backends.

pub(crate) mod adb;
pub(crate) mod agent;
pub(crate) mod appium;
pub(crate) mod hdc;
pub(crate) mod http;
pub(crate) mod transport;
pub(crate) mod w3c;

pub use super::platform::Platform;
use super::said::shown;

/// Why a device operation failed: always names the device (and the operation), and
/// says what to try.
#[derive(Debug, thiserror::Error)]
pub enum DeviceError {
    /// A screenshot was not taken: a secret typed with `type_secret` is on screen.
    #[error("withheld: a secret typed with type_secret is on screen (pixels cannot be redacted)")]
    SecretOnScreen,
    /// `simctl` asked of a device that is not the built-in virtual phone.
    #[error("this is not the built-in virtual phone (it said: {})", shown(.said))]
    NotVirtual { said: String },
    /// `check` is the platform's way to see whether the phone is still there.
    #[error("{device}: {op} timed out after {secs:.1} s; the device may be busy or gone ({check})")]
    Timeout { device: String, op: String, secs: f64, check: &'static str },
    #[error("{device}: {op} failed: the connection was lost; {check}, then retry")]
    Disconnected { device: String, op: String, check: &'static str },
    /// The device ran the command and reported a failure (its own words).
    #[error("{device}: {op} failed: {}", shown(.output))]
    Command { device: String, op: String, output: String },
    /// `check` is how that platform lists what is installed.
    #[error("{device}: package {package} is not installed (see `{check}`)")]
    NotInstalled { device: String, package: String, check: &'static str },
    #[error("{device}: {package} has no launcher activity; give one: start_app(package, activity)")]
    NoLauncherActivity { device: String, package: String },
    #[error("{device}: {:?} is not a valid Android {what} name", shown(.name))]
    InvalidName { device: String, name: String, what: &'static str },
    #[error("unknown key {:?}; use back, home, enter, delete, tab, space, a KEYCODE_* name or a number", shown(.0))]
    UnknownKey(String),
    /// The hdc server or the exchange with it failed (the source says how to fix it).
    #[error("{device}: {op} failed")]
    Hdc {
        device: String,
        op: String,
        #[source]
        source: hdc::HdcError,
    },
    /// What the platform cannot do (iOS has no shell, no Back key...).
    #[error("{device}: {what} is not possible on {platform}; {instead}")]
    NotOnPlatform { device: String, what: String, platform: &'static str, instead: String },
    #[error("{device}: the hierarchy dump could not be read")]
    Ui {
        device: String,
        #[source]
        source: crate::ui::ParseError,
    },
    #[error("{device}: {op} printed something unexpected: {:?}", shown(.output))]
    Unexpected { device: String, op: String, output: String },
    #[error("{device}: the screenshot is not a PNG ({bytes} bytes)")]
    NotAPng {
        device: String,
        bytes: usize,
        #[source]
        source: png::DecodingError,
    },
    #[error("{device}: the screenshot PNG is cut off after {bytes} bytes")]
    CutPng { device: String, bytes: usize },
    #[error("{device}: a {}x{} screenshot for a {}x{} screen", .image.0, .image.1, .screen.0, .screen.1)]
    WrongSize { device: String, image: (u32, u32), screen: (u32, u32) },
    #[error("no device {serial}; {}", shown(.seen))]
    NoSuchDevice { serial: String, seen: String },
    #[error("no device is attached ({}); connect a phone, or use the virtual device with `--device sim`", shown(.seen))]
    NoDevice { seen: String },
    #[error("several devices are attached; pick one with --device: {seen}")]
    SeveralDevices { seen: String },
    /// Android over ADB failed in a way only ADB has (the error says how to fix it).
    #[error(transparent)]
    Adb(#[from] adb::AdbError),
    /// A WebDriver server (WebDriverAgent, Appium) answered with an error, did not
    /// answer, or lost the session (the error says which, and what to do).
    #[error(transparent)]
    W3c(Box<w3c::W3cError>),
    #[error(
        "this codeact was built without the virtual device; rebuild with the default `sim` feature, or name a phone with --device"
    )]
    NoSim,
    #[error(transparent)]
    AppiumTarget(#[from] appium::AppiumTargetError),
    #[cfg(feature = "sim")]
    #[error("cannot start the virtual device")]
    SimStart(#[source] codeact_sim::SimError),
}

impl From<w3c::W3cError> for DeviceError {
    fn from(e: w3c::W3cError) -> Self {
        // Boxed: a W3C error carries the server's words, and every device call
        // returns a `DeviceError`.
        DeviceError::W3c(Box::new(e))
    }
}
