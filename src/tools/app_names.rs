//! App names for `open_app(name)`: from what a person or an LLM calls an app
//! ("Settings", "设置", "Messages") to the package installed on this device. The names live in a data file
//! (`assets/app_aliases.toml`, embedded) that users extend from `codeact.toml`;
//! this module only matches names, it does not launch anything.

use serde::Deserialize;

const BUILT_IN: &str = include_str!("../../assets/app_aliases.toml");

/// Why a name leads to no installed app.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum AppNameError {
    #[error("give an app name, e.g. open_app(\"Settings\")")]
    Empty,
    #[error("{name:?} is not installed (looked for {}); list_packages() shows what is", .looked_for.join(", "))]
    NotInstalled { name: String, looked_for: Vec<String> },
    #[error(
        "no installed app is called {0:?}; use start_app(package) with a name from list_packages(), or add an alias under [apps] in codeact.toml"
    )]
    Unknown(String),
    #[error("{name:?} is ambiguous or unknown; installed packages like it: {}", .similar.join(", "))]
    Ambiguous { name: String, similar: Vec<String> },
}

#[derive(Debug, Clone, Deserialize)]
struct Entry {
    names: Vec<String>,
    packages: Vec<String>,
}

#[derive(Deserialize)]
struct File {
    app: Vec<Entry>,
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
    /// Adds user aliases (name → package), which win over the built-in ones.
    pub fn with_aliases<'a>(mut self, aliases: impl IntoIterator<Item = (&'a str, &'a str)>) -> Self {
        let mut user: Vec<Entry> = aliases
            .into_iter()
            .map(|(name, package)| Entry { names: vec![name.to_string()], packages: vec![package.to_string()] })
            .collect();
        user.append(&mut self.entries);
        self.entries = user;
        self
    }

    /// True when some name in the directory leads to `package`.
    pub fn knows(&self, package: &str) -> bool {
        self.entries.iter().any(|e| e.packages.iter().any(|p| p == package))
    }

    /// The package `name` means on a device with these packages installed.
    pub fn resolve(&self, name: &str, installed: &[String]) -> Result<String, AppNameError> {
        let name = name.trim();
        if name.is_empty() {
            return Err(AppNameError::Empty);
        }
        if looks_like_package(name) {
            return Ok(name.to_string());
        }
        let wanted = normalize(name);
        let mut known_but_missing = None;
        for entry in &self.entries {
            if entry.names.iter().any(|n| normalize(n) == wanted) {
                if let Some(p) = entry.packages.iter().find(|p| installed.contains(p)) {
                    return Ok(p.clone());
                }
                known_but_missing.get_or_insert(entry);
            }
        }
        // Packages named after the app: "notes" → com.example.notes.
        let by_segment: Vec<&String> =
            installed.iter().filter(|p| p.rsplit('.').next().is_some_and(|last| normalize(last) == wanted)).collect();
        if let [one] = by_segment[..] {
            return Ok(one.clone());
        }
        if let Some(entry) = known_but_missing {
            return Err(AppNameError::NotInstalled { name: name.to_string(), looked_for: entry.packages.clone() });
        }
        let similar: Vec<String> =
            installed.iter().filter(|p| normalize(p).contains(&wanted)).take(8).cloned().collect();
        if similar.is_empty() {
            Err(AppNameError::Unknown(name.to_string()))
        } else {
            Err(AppNameError::Ambiguous { name: name.to_string(), similar })
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn installed(list: &[&str]) -> Vec<String> {
        list.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn names_in_any_language_find_the_installed_package() {
        assert!(toml::from_str::<File>(BUILT_IN).is_ok(), "the embedded alias file parses");
        let dir = AppDirectory::default();
        let phone = installed(&["com.android.settings", "com.android.messaging", "com.example.notes"]);
        assert_eq!(dir.resolve("Settings", &phone).unwrap(), "com.android.settings");
        assert_eq!(dir.resolve("设置", &phone).unwrap(), "com.android.settings");
        assert_eq!(dir.resolve("messages", &phone).unwrap(), "com.android.messaging");
        assert_eq!(dir.resolve("Play-Store", &installed(&["com.android.vending"])).unwrap(), "com.android.vending");
        assert_eq!(dir.resolve("notes", &phone).unwrap(), "com.example.notes");
        assert_eq!(dir.resolve("com.foo.bar", &phone).unwrap(), "com.foo.bar");
        let err = dir.resolve("WeChat", &phone).unwrap_err().to_string();
        assert!(err.contains("not installed") && err.contains("com.tencent.mm"), "{err}");
        assert!(dir.resolve("Zzz", &phone).unwrap_err().to_string().contains("list_packages"));
        let mine = AppDirectory::default().with_aliases([("Settings", "com.example.notes")]);
        assert_eq!(mine.resolve("settings", &phone).unwrap(), "com.example.notes");
    }
}
