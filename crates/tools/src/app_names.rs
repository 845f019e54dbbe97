//! App names for `open_app(name)`: from what a person or an LLM calls an app
//! ("Settings", "设置", "微信") to the package (bundle id) installed on this device,
//! on each platform — WeChat is `com.tencent.mm` on Android, `com.tencent.wechat` on
//! HarmonyOS, `com.tencent.xin` on iOS. The names live in a data file
//! (`assets/app_aliases.toml`, embedded) that users extend from `codeact.toml`;
//! this module only matches names, it does not launch anything.

use serde::Deserialize;

use codeact_platform::device::Platform;

const BUILT_IN: &str = include_str!("../../../assets/app_aliases.toml");

/// Why a name leads to no installed app.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum AppNameError {
    #[error("give an app name, e.g. open_app(\"Settings\")")]
    Empty,
    #[error("{name:?} is not installed (looked for {}); list_packages() shows what is", .looked_for.join(", "))]
    NotInstalled { name: String, looked_for: Vec<String> },
    #[error(
        "no installed app is called {0:?}; use start_app(package) with a name from list_packages() (on iOS, the app's bundle id), or add an alias under [apps] in codeact.toml"
    )]
    Unknown(String),
    #[error("{name:?} is ambiguous or unknown; installed packages like it: {}", .similar.join(", "))]
    Ambiguous { name: String, similar: Vec<String> },
}

/// One app: its names, and its ids on each platform, most common first.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct Entry {
    names: Vec<String>,
    #[serde(default)]
    android: Vec<String>,
    #[serde(default)]
    harmony: Vec<String>,
    #[serde(default)]
    ios: Vec<String>,
}

impl Entry {
    /// The ids to look for on `platform`: its own first, then Android's, which
    /// HarmonyOS ports and the virtual phone's doors keep.
    fn candidates(&self, platform: Platform) -> Vec<&String> {
        let own = match platform {
            Platform::Android => &[][..],
            Platform::Harmony => &self.harmony[..],
            Platform::Ios => &self.ios[..],
        };
        let mut all: Vec<&String> = own.iter().collect();
        for p in &self.android {
            if !all.contains(&p) {
                all.push(p);
            }
        }
        all
    }
}

#[derive(Deserialize)]
struct File {
    app: Vec<Entry>,
}

/// A name users add under `[apps]` in `codeact.toml`: one id for every platform, or
/// one per platform (`{ android = "…", harmony = "…", ios = "…" }`).
#[derive(Debug, Clone, PartialEq, Eq, Deserialize, serde::Serialize)]
#[serde(untagged)]
pub enum AppAlias {
    Everywhere(String),
    PerPlatform {
        #[serde(default)]
        android: Option<String>,
        #[serde(default)]
        harmony: Option<String>,
        #[serde(default)]
        ios: Option<String>,
    },
}

/// Every name an app goes by, and the packages that provide it.
#[derive(Debug, Clone)]
pub struct AppDirectory {
    entries: Vec<Entry>,
}

/// Lower case without spaces, dashes, underscores or dots: "Play Store" = "playstore".
fn normalize(name: &str) -> String {
    name.chars().filter(|c| !matches!(c, ' ' | '-' | '_' | '.' | '\t')).flat_map(char::to_lowercase).collect()
}

fn looks_like_package(name: &str) -> bool {
    name.contains('.')
        && name.split('.').all(|part| !part.is_empty() && part.chars().all(|c| c.is_ascii_alphanumeric() || c == '_'))
}

impl Default for AppDirectory {
    fn default() -> Self {
        // The embedded file is checked by a unit test; an error here is a build bug.
        let entries = toml::from_str::<File>(BUILT_IN).map(|f| f.app).unwrap_or_default();
        Self { entries }
    }
}

impl AppDirectory {
    /// Adds user aliases, which win over the built-in names.
    pub fn with_aliases<'a>(mut self, aliases: impl IntoIterator<Item = (&'a str, &'a AppAlias)>) -> Self {
        let mut user: Vec<Entry> = aliases
            .into_iter()
            .map(|(name, alias)| {
                let names = vec![name.to_string()];
                match alias {
                    AppAlias::Everywhere(p) => Entry { names, android: vec![p.clone()], ..Entry::default() },
                    AppAlias::PerPlatform { android, harmony, ios } => Entry {
                        names,
                        android: android.iter().cloned().collect(),
                        harmony: harmony.iter().cloned().collect(),
                        ios: ios.iter().cloned().collect(),
                    },
                }
            })
            .collect();
        user.append(&mut self.entries);
        self.entries = user;
        self
    }

    /// True when some name in the directory leads to `package` (on any platform).
    pub fn knows(&self, package: &str) -> bool {
        self.entries.iter().any(|e| e.android.iter().chain(&e.harmony).chain(&e.ios).any(|p| p == package))
    }

    /// The package `name` means on a `platform` device. `listed` is what the device
    /// lists as installed; a device that lists nothing (iOS) is asked of each
    /// candidate with `installed` instead.
    pub fn resolve<E: From<AppNameError>>(
        &self,
        name: &str,
        platform: Platform,
        listed: Option<&[String]>,
        mut installed: impl FnMut(&str) -> Result<bool, E>,
    ) -> Result<String, E> {
        let name = name.trim();
        if name.is_empty() {
            return Err(AppNameError::Empty.into());
        }
        if looks_like_package(name) {
            return Ok(name.to_string());
        }
        let wanted = normalize(name);
        let mut known_but_missing = None;
        for entry in &self.entries {
            if !entry.names.iter().any(|n| normalize(n) == wanted) {
                continue;
            }
            let candidates = entry.candidates(platform);
            for p in &candidates {
                let there = match listed {
                    Some(list) => list.contains(p),
                    None => installed(p)?,
                };
                if there {
                    return Ok(p.to_string());
                }
            }
            known_but_missing.get_or_insert(candidates);
        }
        let listed = listed.unwrap_or_default();
        // Packages named after the app: "notes" → com.example.notes.
        let by_segment: Vec<&String> =
            listed.iter().filter(|p| p.rsplit('.').next().is_some_and(|last| normalize(last) == wanted)).collect();
        if let [one] = by_segment[..] {
            return Ok(one.clone());
        }
        if let Some(candidates) = known_but_missing {
            let looked_for = candidates.into_iter().cloned().collect();
            return Err(AppNameError::NotInstalled { name: name.to_string(), looked_for }.into());
        }
        let similar: Vec<String> = listed.iter().filter(|p| normalize(p).contains(&wanted)).take(8).cloned().collect();
        if similar.is_empty() {
            Err(AppNameError::Unknown(name.to_string()).into())
        } else {
            Err(AppNameError::Ambiguous { name: name.to_string(), similar }.into())
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn installed(list: &[&str]) -> Vec<String> {
        list.iter().map(|s| s.to_string()).collect()
    }

    fn on_android(dir: &AppDirectory, name: &str, phone: &[String]) -> Result<String, AppNameError> {
        dir.resolve(name, Platform::Android, Some(phone), |_| Ok::<bool, AppNameError>(false))
    }

    #[test]
    fn names_in_any_language_find_the_installed_package() {
        assert!(toml::from_str::<File>(BUILT_IN).is_ok(), "the embedded alias file parses");
        let dir = AppDirectory::default();
        let phone = installed(&["com.android.settings", "com.android.messaging", "com.example.notes"]);
        assert_eq!(on_android(&dir, "Settings", &phone).unwrap(), "com.android.settings");
        assert_eq!(on_android(&dir, "设置", &phone).unwrap(), "com.android.settings");
        assert_eq!(on_android(&dir, "messages", &phone).unwrap(), "com.android.messaging");
        let store = installed(&["com.android.vending"]);
        assert_eq!(on_android(&dir, "Play-Store", &store).unwrap(), "com.android.vending");
        assert_eq!(on_android(&dir, "notes", &phone).unwrap(), "com.example.notes");
        assert_eq!(on_android(&dir, "com.foo.bar", &phone).unwrap(), "com.foo.bar");
        let err = on_android(&dir, "WeChat", &phone).unwrap_err().to_string();
        assert!(err.contains("not installed") && err.contains("com.tencent.mm"), "{err}");
        assert!(on_android(&dir, "Zzz", &phone).unwrap_err().to_string().contains("list_packages"));
        let mine = AppAlias::Everywhere("com.example.notes".into());
        let mine = AppDirectory::default().with_aliases([("Settings", &mine)]);
        assert_eq!(on_android(&mine, "settings", &phone).unwrap(), "com.example.notes");
    }

    #[test]
    fn one_name_is_another_id_on_each_platform() {
        let dir = AppDirectory::default();
        let harmony = installed(&["com.tencent.wechat", "com.huawei.hmos.settings"]);
        let never = |_: &str| Ok::<bool, AppNameError>(false);
        assert_eq!(dir.resolve("微信", Platform::Harmony, Some(&harmony), never).unwrap(), "com.tencent.wechat");
        assert_eq!(
            dir.resolve("Settings", Platform::Harmony, Some(&harmony), never).unwrap(),
            "com.huawei.hmos.settings"
        );
        // iOS lists nothing: each candidate is asked for.
        let mut asked = Vec::new();
        let found = dir.resolve("WeChat", Platform::Ios, None, |p| {
            asked.push(p.to_string());
            Ok::<bool, AppNameError>(p == "com.tencent.xin")
        });
        assert_eq!(found.unwrap(), "com.tencent.xin");
        assert_eq!(asked, ["com.tencent.xin"], "the iOS id first");
        // Android's ids come after the platform's own (the virtual phone keeps them).
        let sim = installed(&["com.android.settings"]);
        assert_eq!(dir.resolve("设置", Platform::Harmony, Some(&sim), never).unwrap(), "com.android.settings");
        let err = dir.resolve("WeChat", Platform::Ios, None, never).unwrap_err().to_string();
        assert!(err.contains("com.tencent.xin") && err.contains("com.tencent.mm"), "{err}");
        let bank =
            AppAlias::PerPlatform { android: Some("com.bank".into()), harmony: Some("com.bank.hm".into()), ios: None };
        let mine = AppDirectory::default().with_aliases([("Bank", &bank)]);
        let hm = installed(&["com.bank.hm", "com.bank"]);
        assert_eq!(mine.resolve("bank", Platform::Harmony, Some(&hm), never).unwrap(), "com.bank.hm");
        assert_eq!(mine.resolve("bank", Platform::Android, Some(&hm), never).unwrap(), "com.bank");
    }
}
