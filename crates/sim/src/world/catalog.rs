//! The catalog: the world's data files (`world.toml` and `apps/*.toml`, bundled in the
//! binary or read from a folder), parsed and checked once, then shared and never changed.
//! Not the spec's types (`spec`) nor the state a running world keeps (`World`).

use std::collections::BTreeMap;
use std::path::Path;

use super::names::LAUNCHER_PACKAGE;
use super::spec::{self, AppSpec, SpecError, WorldSpec};
use super::template::Value;

/// The data files compiled into the binary (`data/world.toml`, `data/apps/*.toml`).
const BUNDLED: &[(&str, &str)] = include!(concat!(env!("OUT_DIR"), "/bundled_world.rs"));

/// The parsed, checked data files; shared and never changed at run time.
#[derive(Debug)]
pub(crate) struct Catalog {
    pub(crate) world: WorldSpec,
    pub(crate) apps: Vec<AppSpec>,
    pub(crate) initial_state: BTreeMap<String, Value>,
}

impl Catalog {
    /// The world compiled into the binary.
    pub(crate) fn bundled() -> Result<Self, SpecError> {
        Self::from_files(BUNDLED.iter().map(|(name, text)| (name.to_string(), text.to_string())).collect())
    }

    /// A world from a folder holding `world.toml` and `apps/*.toml`.
    pub(crate) fn from_dir(dir: &Path) -> Result<Self, SpecError> {
        let read = |path: &Path| {
            std::fs::read_to_string(path).map_err(|source| SpecError::Read { file: path.display().to_string(), source })
        };
        let mut files = vec![("world.toml".to_string(), read(&dir.join("world.toml"))?)];
        let apps_dir = dir.join("apps");
        let entries = std::fs::read_dir(&apps_dir)
            .map_err(|source| SpecError::Read { file: apps_dir.display().to_string(), source })?;
        let mut paths: Vec<_> = entries.filter_map(|e| e.ok().map(|e| e.path())).collect();
        paths.sort();
        for path in paths.into_iter().filter(|p| p.extension().is_some_and(|e| e == "toml")) {
            let name = format!("apps/{}", path.file_name().map(|n| n.to_string_lossy()).unwrap_or_default());
            files.push((name, read(&path)?));
        }
        Self::from_files(files)
    }

    fn from_files(files: Vec<(String, String)>) -> Result<Self, SpecError> {
        let mut world = None;
        let mut apps: Vec<AppSpec> = Vec::new();
        for (name, text) in files {
            let parse_err = |e: toml::de::Error| SpecError::Parse { file: name.clone(), message: e.to_string() };
            if name == "world.toml" {
                world = Some(toml::from_str::<WorldSpec>(&text).map_err(parse_err)?);
            } else {
                let app: AppSpec = toml::from_str(&text).map_err(parse_err)?;
                app.validate(&name)?;
                if apps.iter().any(|a| a.package == app.package) {
                    return Err(SpecError::Invalid {
                        file: name,
                        message: format!("package {} declared twice", app.package),
                    });
                }
                apps.push(app);
            }
        }
        let world = world.ok_or_else(|| SpecError::Invalid {
            file: "world.toml".into(),
            message: "missing: the world folder needs world.toml beside apps/".into(),
        })?;
        if !apps.iter().any(|a| a.package == LAUNCHER_PACKAGE) {
            return Err(SpecError::Invalid {
                file: "apps/".into(),
                message: format!("no app declares package {LAUNCHER_PACKAGE} (the home screen)"),
            });
        }
        let mut initial_state = BTreeMap::new();
        spec::flatten_state(&world.state, "", &mut initial_state)
            .map_err(|e| SpecError::Invalid { file: "world.toml".into(), message: e.to_string() })?;
        Ok(Self { world, apps, initial_state })
    }

    /// The apps with a launcher icon, in the home screen's order: those `home` lists
    /// first, as listed, then the others in file order.
    pub(crate) fn home_apps(&self) -> Vec<(usize, &AppSpec)> {
        let mut apps: Vec<(usize, &AppSpec)> =
            self.apps.iter().enumerate().filter(|(_, a)| a.on_home && a.launcher.is_some()).collect();
        let listed = &self.world.home;
        apps.sort_by_key(|(index, app)| {
            (listed.iter().position(|p| *p == app.package).unwrap_or(listed.len()), *index)
        });
        apps
    }

    pub(crate) fn app_index(&self, package: &str) -> Option<usize> {
        self.apps.iter().position(|a| a.package == package)
    }

    /// The app, activity and parameter a link opens: the first declared prefix the
    /// URI starts with (`sms:张三` → Messages' conversation with 张三). The parameter
    /// is percent-decoded, as an app reads it from its `Uri` (`sms:Grace%20Lee` →
    /// Grace Lee), which is how a link with a space survives a shell that splits it.
    pub(crate) fn link_for(&self, uri: &str) -> Option<(usize, String, String)> {
        self.apps.iter().enumerate().find_map(|(app, spec)| {
            spec.links.iter().find_map(|link| {
                let rest = uri.strip_prefix(link.prefix.as_str())?;
                Some((app, link.activity.clone(), percent_decoded(rest)))
            })
        })
    }
}

/// `%XX` escapes decoded as UTF-8; text that is not (bytes that are not UTF-8)
/// stays as it came.
fn percent_decoded(text: &str) -> String {
    percent_encoding::percent_decode_str(text).decode_utf8().map_or_else(|_| text.to_string(), |t| t.into_owned())
}

#[cfg(test)]
mod link_tests {
    #[test]
    fn link_parameters_are_percent_decoded() {
        assert_eq!(super::percent_decoded("Grace%20Lee"), "Grace Lee");
        assert_eq!(super::percent_decoded("%E5%BC%A0%E4%B8%89"), "张三");
        assert_eq!(super::percent_decoded("100%"), "100%");
        assert_eq!(super::percent_decoded("%zz%2"), "%zz%2");
        assert_eq!(super::percent_decoded("%FF"), "%FF", "not UTF-8: as it came");
    }
}
