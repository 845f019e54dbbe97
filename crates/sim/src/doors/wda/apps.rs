//! The app routes: `/wda/apps/launch|activate|terminate|state` by bundle id,
//! `/wda/activeAppInfo` and `/url` (the app a link opens). Not the session's own app
//! (`session`, which launches through here).

use axum::http::StatusCode;
use serde_json::{Value, json};

use super::door::{Door, Reply, WdaError, error, invalid};

impl Door {
    fn bundle(body: &Value) -> Result<&str, WdaError> {
        body.get("bundleId").and_then(Value::as_str).ok_or_else(|| invalid("'bundleId' is required"))
    }

    pub(super) fn launch(&self, body: &Value) -> Reply {
        let bundle = Self::bundle(body)?;
        let mut world = self.device.world();
        let app = world.catalog.app_index(bundle).ok_or_else(|| {
            error(
                StatusCode::INTERNAL_SERVER_ERROR,
                "unknown error",
                format!("Application '{bundle}' is not installed on the device"),
            )
        })?;
        if !world.launch(app) {
            return Err(error(StatusCode::INTERNAL_SERVER_ERROR, "unknown error", format!("Cannot launch '{bundle}'")));
        }
        Ok(Value::Null)
    }

    pub(super) fn terminate(&self, body: &Value) -> Reply {
        let bundle = Self::bundle(body)?;
        let mut world = self.device.world();
        let Some(app) = world.catalog.app_index(bundle) else { return Ok(Value::Bool(false)) };
        let running = world.tasks.iter().any(|t| t.app == app);
        world.force_stop(app);
        Ok(Value::Bool(running))
    }

    pub(super) fn app_state(&self, body: &Value) -> Reply {
        let bundle = Self::bundle(body)?;
        let world = self.device.world();
        // XCUIApplicationStateUnknown: what WDA says of an app that is not installed.
        let Some(app) = world.catalog.app_index(bundle) else { return Ok(json!(0)) };
        let state = match (world.top_app() == Some(app), world.tasks.iter().any(|t| t.app == app)) {
            (true, _) => 4,
            (false, true) => 2,
            (false, false) => 1,
        };
        Ok(json!(state))
    }

    pub(super) fn active_app(&self) -> Value {
        let world = self.device.world();
        let package = world.foreground_package();
        let name = world.top().map(|(app, _, _)| app.label.clone()).unwrap_or_default();
        json!({"pid": 400 + package.len(), "bundleId": package, "name": name, "processArguments": {"args": [], "env": {}}})
    }

    pub(super) fn open_url(&self, body: &Value) -> Reply {
        let url = body.get("url").and_then(Value::as_str).ok_or_else(|| invalid("URL is required"))?;
        let mut world = self.device.world();
        let (app, activity, param) = world
            .catalog
            .link_for(url)
            .ok_or_else(|| error(StatusCode::INTERNAL_SERVER_ERROR, "unknown error", format!("No app opens {url}")))?;
        world.start_activity(app, &activity, param);
        Ok(Value::Null)
    }
}
