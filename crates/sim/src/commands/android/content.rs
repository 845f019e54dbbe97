//! `content query --uri content://AUTHORITY/PATH`: Android's content-provider tool,
//! for the one provider a client reads this way, the mobilerun Portal's
//! (`com.droidrun.portal`: `state`, `a11y_tree`, `a11y_tree_full`, `phone_state`,
//! `ping`, `version`, `auth_token`), printed as the tool prints a cursor: `Row: 0
//! result=…`. Not the Portal's HTTP server (`agents/portal.rs`).

use serde_json::{Value, json};

use crate::device::SimDevice;
use crate::device::agents::PORTAL_PACKAGE;
use crate::doors::agents::portal;
use crate::shell::Output;
use crate::shell::{fail, ok};

const USAGE: &str = "usage: adb shell content [subcommand] [options]\n\nusage: adb shell content query --uri <URI> [--user <USER_ID>] [--projection <PROJECTION>] [--where <WHERE>] [--sort <SORT_ORDER>]\n";

pub(crate) fn content(device: &SimDevice, args: &[&str]) -> Output {
    let uri = args.windows(2).find(|w| w[0] == "--uri").map(|w| w[1]);
    let (Some(&"query"), Some(uri)) = (args.first(), uri) else {
        return fail(USAGE, 1);
    };
    let uri = uri.trim_matches(|c| c == '"' || c == '\'');
    let Some(rest) = uri.strip_prefix("content://") else {
        return fail(
            &format!("Error while accessing provider:{uri}\njava.lang.IllegalArgumentException: Invalid URI: {uri}\n"),
            1,
        );
    };
    let (authority, path) = rest.split_once('/').unwrap_or((rest, ""));
    let (path, query) = path.split_once('?').unwrap_or((path, ""));
    if authority != PORTAL_PACKAGE || !device.agents().portal_running() {
        return fail(
            &format!(
                "Error while accessing provider:{authority}\njava.lang.IllegalArgumentException: Unknown authority {authority}\n"
            ),
            1,
        );
    }
    let success = |data: Value| json!({"status": "success", "data": data}).to_string();
    let result = match path {
        "state" => success(Value::String(portal::state_json(device).to_string())),
        "a11y_tree" => success(Value::String(Value::Array(portal::indexed_tree(device)).to_string())),
        "a11y_tree_full" => match portal::full_tree(device, !query.contains("filter=false")) {
            Some(tree) => success(Value::String(tree.to_string())),
            None => json!({"status": "error", "error": "No active window available"}).to_string(),
        },
        "phone_state" => success(Value::String(portal::phone_state(device).to_string())),
        "ping" => success(json!("pong")),
        "version" => success(json!("0.3.2")),
        "auth_token" => match device.agents().portal_token() {
            Some(token) => token,
            None => json!({"status": "error", "error": "Unknown endpoint: /auth_token"}).to_string(),
        },
        other => json!({"status": "error", "error": format!("Unknown endpoint: /{other}")}).to_string(),
    };
    ok(format!("Row: 0 result={result}\n"))
}
