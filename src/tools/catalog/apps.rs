//! Apps: starting one by package or by what people call it, listing packages.

use rhai::{Array, Dynamic, ImmutableString};

use crate::tools::context::ToolContext;
use crate::tools::error::ToolError;
use crate::tools::registry::tool;
use crate::tools::{Effect, ToolSpec};

fn start(c: &mut ToolContext, package: &str, activity: Option<&str>) -> Result<(), ToolError> {
    c.act(|d| d.start_app(package, activity))
}

fn packages(c: &mut ToolContext, include_system: bool) -> Result<Array, ToolError> {
    let list = c.device().list_packages(include_system)?;
    Ok(list.into_iter().map(Dynamic::from).collect())
}

pub(crate) const START_APP: ToolSpec = ToolSpec {
    name: "start_app",
    signature: "start_app(package[, activity])",
    doc: "Start an app by package name, optionally at an activity.",
    effect: Effect::Acts,
    register: |r| {
        tool!(r, |c, package: ImmutableString| start(c, &package, None));
        tool!(r, |c, package: ImmutableString, activity: ImmutableString| start(c, &package, Some(&activity)));
    },
};

pub(crate) const OPEN_APP: ToolSpec = ToolSpec {
    name: "open_app",
    signature: "open_app(name)",
    doc: "Open an app by its name in any language (\"Settings\", \"设置\", \"Messages\") or package; returns the package.",
    effect: Effect::Acts,
    register: |r| {
        tool!(r, |c, name: ImmutableString| {
            let apps = c.options.apps.clone();
            let package = apps.resolve(&name, c.installed()?)?;
            start(c, &package, None)?;
            Ok(package)
        })
    },
};

pub(crate) const LIST_PACKAGES: ToolSpec = ToolSpec {
    name: "list_packages",
    signature: "list_packages([include_system])",
    doc: "Installed package names (third-party only unless include_system is true).",
    effect: Effect::Reads,
    register: |r| {
        tool!(r, |c| packages(c, false));
        tool!(r, |c, include_system: bool| packages(c, include_system));
    },
};
