//! The server's routes called as the driver calls them, on a phone of the bundled
//! world: sessions, locators, elements (stale ones too), actions, and what a
//! hostile client sends (bodies that are not JSON, unknown strategies, expressions
//! past their bounds, two fingers, too many actions). The real Appium driving it
//! end to end is the root crate's `tests/it/appium_real.rs`.

use std::sync::Arc;

use axum::http::{Method, StatusCode};
use serde_json::{Value, json};

use super::route;
use crate::device::SimDevice;

fn phone() -> Arc<SimDevice> {
    crate::build_device(crate::SimConfig::default()).unwrap()
}

/// A call: its value, or its W3C error code and status.
fn call(device: &SimDevice, method: Method, path: &str, body: Value) -> Result<Value, (StatusCode, &'static str)> {
    route(device, &method, path, body.to_string().as_bytes()).map_err(|e| (e.status, e.code))
}

fn session(device: &SimDevice) -> String {
    let created = call(
        device,
        Method::POST,
        "/session",
        json!({"capabilities": {"firstMatch": [{"platformName": "Android"}], "alwaysMatch": {}}}),
    );
    created.unwrap()["sessionId"].as_str().unwrap().to_string()
}

fn find(device: &SimDevice, s: &str, using: &str, value: &str) -> Result<String, (StatusCode, &'static str)> {
    let found = call(device, Method::POST, &format!("/session/{s}/element"), json!({"using": using, "value": value}))?;
    Ok(found["ELEMENT"].as_str().unwrap().to_string())
}

#[test]
fn the_driver_finds_and_drives_elements() {
    let device = phone();
    assert_eq!(call(&device, Method::GET, "/wd/hub/status", json!({})).unwrap()["ready"], true);
    let s = session(&device);
    assert_eq!(
        call(&device, Method::GET, "/session/nope/source", json!({})),
        Err((StatusCode::NOT_FOUND, "invalid session id"))
    );
    let settings = device.world().catalog.app_index("com.android.settings").unwrap();
    device.world().launch(settings);
    for (using, value) in [
        ("id", "wifi_switch"),
        ("id", "com.android.settings:id/wifi_switch"),
        ("xpath", "//android.widget.Switch[@resource-id='com.android.settings:id/wifi_switch']"),
        ("-android uiautomator", "new UiSelector().resourceId(\"com.android.settings:id/wifi_switch\")"),
    ] {
        assert!(find(&device, &s, using, value).is_ok(), "{using} {value}");
    }
    let switch = find(&device, &s, "id", "wifi_switch").unwrap();
    assert_eq!(
        find(&device, &s, "xpath", "//*[@resource-id='com.android.settings:id/wifi_switch']").unwrap(),
        switch,
        "one view, one id"
    );
    let checked = |d: &SimDevice| {
        call(d, Method::GET, &format!("/session/{s}/element/{switch}/attribute/checked"), json!({})).unwrap()
    };
    assert_eq!(checked(&device), "true");
    call(&device, Method::POST, &format!("/session/{s}/element/{switch}/click"), json!({})).unwrap();
    assert_eq!(checked(&device), "false", "the click toggled Wi-Fi");
    let rect = call(&device, Method::GET, &format!("/session/{s}/element/{switch}/rect"), json!({})).unwrap();
    assert!(rect["width"].as_i64().unwrap() > 0);
    // A switch takes no text; a missing element is W3C's no such element.
    let typed = call(&device, Method::POST, &format!("/session/{s}/element/{switch}/value"), json!({"text": "x"}));
    assert_eq!(typed, Err((StatusCode::BAD_REQUEST, "invalid element state")));
    assert_eq!(find(&device, &s, "accessibility id", "No such thing"), Err((StatusCode::NOT_FOUND, "no such element")));
    // Gone from the page, the element is stale.
    call(&device, Method::POST, &format!("/session/{s}/appium/device/press_keycode"), json!({"keycode": 3})).unwrap();
    let gone = call(&device, Method::GET, &format!("/session/{s}/element/{switch}/text"), json!({}));
    assert_eq!(gone, Err((StatusCode::NOT_FOUND, "stale element reference")));
    // The source is the page the locators search.
    let source = call(&device, Method::GET, &format!("/session/{s}/source"), json!({})).unwrap();
    assert!(source.as_str().unwrap().contains("<hierarchy index=\"0\" class=\"hierarchy\""));
    // Deleting the session ends it (and tells the instrumentation to stop).
    call(&device, Method::DELETE, &format!("/session/{s}"), json!({})).unwrap();
    assert_eq!(
        call(&device, Method::GET, &format!("/session/{s}/source"), json!({})),
        Err((StatusCode::NOT_FOUND, "invalid session id"))
    );
}

#[test]
fn hostile_requests_are_refused_in_bounded_time() {
    let device = phone();
    let s = session(&device);
    let not_json = route(&device, &Method::POST, &format!("/session/{s}/element"), b"{not json");
    assert_eq!(not_json.map_err(|e| e.code).err(), Some("invalid argument"));
    for (using, value) in [
        ("css selector", "div"),
        ("xpath", "//*["),
        ("xpath", "count(//*)"),
        ("xpath", &"//*[.//*".repeat(8)),
        ("xpath", &"/a".repeat(2000)),
        ("-android uiautomator", "new UiSelector().childSelector(new UiSelector())"),
        ("-android uiautomator", &"new UiScrollable(".repeat(100)),
        ("-android uiautomator", "new UiSelector().textMatches(\"(a+)+(\")"),
    ] {
        assert_eq!(
            find(&device, &s, using, value),
            Err((StatusCode::BAD_REQUEST, "invalid selector")),
            "{using} {value:.40}"
        );
    }
    let finger =
        |id: &str| json!({"type": "pointer", "id": id, "actions": [{"type": "pointerDown"}, {"type": "pointerUp"}]});
    let two =
        call(&device, Method::POST, &format!("/session/{s}/actions"), json!({"actions": [finger("a"), finger("b")]}));
    assert_eq!(two, Err((StatusCode::INTERNAL_SERVER_ERROR, "unsupported operation")));
    let many: Vec<Value> = (0..1001).map(|_| json!({"type": "pause", "duration": 0})).collect();
    let too_many = call(
        &device,
        Method::POST,
        &format!("/session/{s}/actions"),
        json!({"actions": [{"type": "none", "id": "n", "actions": many}]}),
    );
    assert_eq!(too_many, Err((StatusCode::BAD_REQUEST, "invalid argument")));
    let nan = json!({"actions": [{"type": "pointer", "id": "f", "actions": [{"type": "pointerMove", "x": "1e999", "y": null}, {"type": "pointerDown"}, {"type": "pointerUp"}]}]});
    assert!(
        call(&device, Method::POST, &format!("/session/{s}/actions"), nan).is_ok(),
        "bad numbers are 0, not a panic"
    );
    let unknown = call(&device, Method::GET, &format!("/session/{s}/no/such/route"), json!({}));
    assert_eq!(unknown, Err((StatusCode::NOT_FOUND, "unknown command")));
    let clip =
        call(&device, Method::POST, &format!("/session/{s}/appium/device/set_clipboard"), json!({"content": "%%%"}));
    assert_eq!(clip, Err((StatusCode::BAD_REQUEST, "invalid argument")));
}
