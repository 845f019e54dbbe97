//! The platform a device runs ([`Platform`]): its name in messages and in scripts.
//! Not what each platform can do (the backends).

/// The platform a device runs: what its packages are called and which tools it has.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Platform {
    #[default]
    Android,
    Ios,
    Harmony,
}

impl Platform {
    /// `Android`, `iOS`, `HarmonyOS`: the name in messages.
    pub const fn name(self) -> &'static str {
        match self {
            Self::Android => "Android",
            Self::Ios => "iOS",
            Self::Harmony => "HarmonyOS",
        }
    }

    /// `android`, `ios`, `harmony`: the name scripts read (`phone_state.platform`).
    pub fn id(self) -> &'static str {
        match self {
            Self::Android => "android",
            Self::Ios => "ios",
            Self::Harmony => "harmony",
        }
    }
}
