//! Checks an app file for what serde cannot: known icon shapes, colours and emblems,
//! activities and dialogs that exist, items with what they need, and action verbs from the
//! list at the top of `spec.rs`. Not the schema itself (`super`) nor running actions.

use super::{AppSpec, ItemKind, ItemSpec, ScreenSpec, SpecError, parse_color, split_actions};

impl AppSpec {
    /// Checks what serde cannot: known shapes, colours, activities, dialogs, verbs.
    pub(crate) fn validate(&self, file: &str) -> Result<(), SpecError> {
        let invalid = |message: String| SpecError::Invalid { file: file.to_string(), message };
        if crate::screen::IconShape::parse(&self.icon.shape).is_none() {
            return Err(invalid(format!(
                "icon shape {:?} is unknown; use circle, square, squircle, triangle or hexagon",
                self.icon.shape
            )));
        }
        parse_color(&self.icon.color)
            .ok_or_else(|| invalid(format!("icon color {:?} is not #RRGGBB", self.icon.color)))?;
        check_emblem(self.icon.emblem.as_deref()).map_err(invalid)?;
        if let Some(launcher) = &self.launcher
            && self.screen(launcher).is_none()
        {
            return Err(invalid(format!("launcher activity {launcher} has no [[screens]] entry")));
        }
        let mut scripts: Vec<&str> =
            self.dialogs.iter().flat_map(|d| d.buttons.iter().map(|b| b.on_tap.as_str())).collect();
        for screen in &self.screens {
            if let Some(d) = &screen.dialog
                && self.dialog(d).is_none()
            {
                return Err(invalid(format!("screen {} names dialog {d:?}, which is not declared", screen.activity)));
            }
            scripts.extend(screen.on_open.iter().map(String::as_str));
            for item in &screen.items {
                scripts.extend(item.on_tap.iter().chain(item.on_long_press.iter()).map(String::as_str));
                if item.kind == ItemKind::List && item.source.is_none() {
                    return Err(invalid(format!("a list on {} has no `source`", screen.activity)));
                }
                if matches!(item.kind, ItemKind::Switch | ItemKind::Field | ItemKind::Slider) && item.bind.is_none() {
                    return Err(invalid(format!("a {:?} item on {} has no `bind`", item.kind, screen.activity)));
                }
                check_drawn(screen, item).map_err(invalid)?;
            }
        }
        for script in scripts {
            for action in split_actions(script) {
                self.check_action(action).map_err(|m| invalid(format!("action {action:?}: {m}")))?;
            }
        }
        Ok(())
    }

    fn check_action(&self, action: &str) -> Result<(), ActionProblem> {
        let mut words = action.split_whitespace();
        let verb = words.next().unwrap_or("");
        let arg = words.next();
        match (verb, arg) {
            ("back" | "home" | "delete" | "dismiss", _) => Ok(()),
            // Another app's screen (`PKG/ACTIVITY`) is checked when it is opened.
            ("open", Some(activity)) if activity.contains('/') => Ok(()),
            ("open", Some(activity)) => self.screen(activity).map(|_| ()).ok_or_else(|| ActionProblem::NoScreen {
                activity: activity.to_string(),
                package: self.package.clone(),
            }),
            ("dialog", Some(name)) => {
                self.dialog(name).map(|_| ()).ok_or_else(|| ActionProblem::NoDialog(name.to_string()))
            }
            (
                "launch" | "toggle" | "set" | "clear" | "require" | "require_between" | "require_format" | "sort"
                | "add" | "update" | "file_move" | "file_rename" | "set_now" | "add_elapsed" | "increase" | "empty"
                | "move" | "require_same" | "require_any",
                Some(_),
            ) => Ok(()),
            _ => Err(ActionProblem::UnknownVerb),
        }
    }
}

/// What is wrong with one action of an app's scripts.
#[derive(Debug, thiserror::Error)]
enum ActionProblem {
    #[error("no screen {activity} in {package}")]
    NoScreen { activity: String, package: String },
    #[error("no dialog {0}")]
    NoDialog(String),
    #[error("unknown verb or missing argument (see the list at the top of crates/sim/src/world/spec.rs)")]
    UnknownVerb,
}

/// An emblem name, when given, must be one the renderer draws.
fn check_emblem(name: Option<&str>) -> Result<(), String> {
    match name {
        Some(n) if crate::emblem::Emblem::parse(n).is_none() => {
            Err(format!("emblem {n:?} is unknown; use one of {}", crate::emblem::Emblem::names()))
        }
        _ => Ok(()),
    }
}

/// Canvases need a colour; sprites an emblem, a place and a canvas to be drawn on.
fn check_drawn(screen: &ScreenSpec, item: &ItemSpec) -> Result<(), String> {
    if let Some(color) = &item.color
        && parse_color(color).is_none()
    {
        return Err(format!("item color {color:?} on {} is not #RRGGBB", screen.activity));
    }
    match item.kind {
        ItemKind::Canvas if item.color.is_none() => Err(format!("a canvas on {} has no `color`", screen.activity)),
        ItemKind::Image if item.emblem.is_none() => Err(format!("an image on {} has no `emblem`", screen.activity)),
        ItemKind::Image => check_emblem(item.emblem.as_deref()),
        ItemKind::Sprite => {
            check_emblem(item.emblem.as_deref())?;
            if item.emblem.is_none() || item.x.is_none() || item.y.is_none() {
                return Err(format!("a sprite on {} needs `emblem`, `x` and `y`", screen.activity));
            }
            if !screen.items.iter().any(|i| i.kind == ItemKind::Canvas) {
                return Err(format!("a sprite on {} has no canvas item to be drawn on", screen.activity));
            }
            Ok(())
        }
        _ => Ok(()),
    }
}
