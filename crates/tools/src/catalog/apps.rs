//! Apps: starting one by package or by what people call it, listing packages.

use rhai::{Array, Dynamic, ImmutableString, Map};

use crate::acting::DeviceAct;
use crate::catalog::registry::tool;
use crate::catalog::spec::{Access, Gate, ParamKind, ParamSpec, Replay, Role, ToolSpec, common};
use crate::context::ToolContext;
use crate::error::ToolError;
use codeact_platform::device::DeviceError;

fn start(c: &mut ToolContext, package: &str, activity: Option<&str>) -> Result<(), ToolError> {
    c.act(DeviceAct::StartApp { package, activity })
}

/// Forgets an app's data (the gate judges it: it deletes all of it).
fn clear_data(c: &mut ToolContext, package: &str) -> Result<(), ToolError> {
    c.act(DeviceAct::ClearData(package))
}

fn packages(c: &mut ToolContext, include_system: bool) -> Result<Array, ToolError> {
    let list = c.reads().list_packages(include_system)?;
    Ok(list.into_iter().map(Dynamic::from).collect())
}

/// `start_app(package, second)`: the second argument is an activity, or options
/// (`#{clear: true}`: forget the app's data first, `activity: ".X"`).
fn start_with(c: &mut ToolContext, package: &str, second: &Dynamic) -> Result<(), ToolError> {
    if let Ok(activity) = second.clone().into_immutable_string() {
        return start(c, package, Some(&activity));
    }
    let Some(options) = second.clone().try_cast::<Map>() else {
        return Err(ToolError::BadStartOption(format!("not {}", second.type_name())));
    };
    let mut activity = None;
    for (key, value) in &options {
        match key.as_str() {
            "clear" if value.as_bool() == Ok(true) => c.act(DeviceAct::ClearData(package))?,
            "clear" if value.is_bool() => {}
            "activity" => {
                activity = Some(
                    value
                        .clone()
                        .into_immutable_string()
                        .map_err(|t| ToolError::BadStartOption(format!("activity must be a string, not {t}")))?,
                )
            }
            other => return Err(ToolError::BadStartOption(format!("unknown option {other:?}"))),
        }
    }
    start(c, package, activity.as_deref())
}

pub(crate) const START_APP: ToolSpec = ToolSpec {
    name: "start_app",
    params: &[
        common::PACKAGE,
        ParamSpec::optional(
            "activity or options",
            ParamKind::TextOrMap,
            "an activity to start at, or #{clear: true} to forget the app's data first",
        ),
    ],
    doc: "Start an app by package name, optionally at an activity; start_app(pkg, #{clear: true}) forgets its data first (a clean launch).",
    access: Access::Acts,
    gates: &[Gate::App],
    replay: Replay::AsIs,
    role: Role::Kept,
    register: |r| {
        tool!(r, |c, package: ImmutableString| start(c, &package, None));
        tool!(r, |c, package: ImmutableString, second: Dynamic| start_with(c, &package, &second));
    },
};

/// The app that handles the link opens it; a link nothing handles is named.
fn open_link(c: &mut ToolContext, uri: &str) -> Result<(), ToolError> {
    match c.act(DeviceAct::OpenUrl(uri)) {
        Err(ToolError::Device(DeviceError::Command { output, .. } | DeviceError::InvalidName { name: output, .. })) => {
            Err(ToolError::NoAppForUrl { uri: uri.to_string(), said: output })
        }
        other => other,
    }
}

pub(crate) const OPEN_URL: ToolSpec = ToolSpec {
    name: "open_url",
    params: &[ParamSpec::new("uri", ParamKind::Text, "a link or deep link: https://…, sms:…, myapp://…")],
    doc: "Open a link or deep link in the app that handles it (\"https://…\", \"sms:张三\", \"myapp://screen\").",
    access: Access::Acts,
    gates: &[Gate::App],
    replay: Replay::AsIs,
    role: Role::Kept,
    register: |r| tool!(r, |c, uri: ImmutableString| open_link(c, &uri)),
};

pub(crate) const CLEAR_APP_DATA: ToolSpec = ToolSpec {
    name: "clear_app_data",
    params: &[common::PACKAGE],
    doc: "Stop an app and forget its data (pm clear): the next start is a first start.",
    access: Access::Acts,
    gates: &[Gate::App],
    replay: Replay::AsIs,
    role: Role::Kept,
    register: |r| tool!(r, |c, package: ImmutableString| clear_data(c, &package)),
};

pub(crate) const OPEN_APP: ToolSpec = ToolSpec {
    name: "open_app",
    params: &[ParamSpec::new("name", ParamKind::Text, "the app's name in any language, or its package")],
    doc: "Open an app by its name in any language (\"Settings\", \"设置\", \"Messages\") or package; returns the package.",
    access: Access::Acts,
    gates: &[Gate::App],
    replay: Replay::AsIs,
    role: Role::Kept,
    register: |r| {
        tool!(r, |c, name: ImmutableString| {
            let apps = c.options().apps.clone();
            let platform = c.reads().platform();
            // iOS lists no apps: each candidate is asked for instead.
            let listed = match c.installed() {
                Ok(list) => Some(list.to_vec()),
                Err(DeviceError::NotOnPlatform { .. }) => None,
                Err(e) => return Err(e.into()),
            };
            let package = apps
                .resolve(&name, platform, listed.as_deref(), |p| c.reads().is_installed(p).map_err(ToolError::from))?;
            start(c, &package, None)?;
            Ok(package)
        })
    },
};

pub(crate) const LIST_PACKAGES: ToolSpec = ToolSpec {
    name: "list_packages",
    params: &[ParamSpec::optional("include_system", ParamKind::Boolean, "list system packages too (default false)")],
    doc: "Installed package names (third-party only unless include_system is true).",
    access: Access::Reads,
    gates: &[],
    replay: Replay::AsIs,
    role: Role::Skipped,
    register: |r| {
        tool!(r, |c| packages(c, false));
        tool!(r, |c, include_system: bool| packages(c, include_system));
    },
};
