//! The on-device agents' doors of the virtual phone, driven by clients codeact did
//! not write: uiautomator2 3.7.1's own Python client, through a private stock adb
//! server, checks and pushes its server jar, starts the server with `app_process`
//! over an adb shell stream and talks JSON-RPC to device port 9008 through adb's
//! `tcp:` streams — device info, the hierarchy, clicks, typing by the clipboard,
//! keys, a screenshot, an unknown method's error, selectors (exists, info, click,
//! count, a whole-text match, setText/getText, a missing object's error) —; the
//! port is closed to anyone
//! before the server starts and after it stops; hostile requests (unparsable JSON,
//! wrong parameters, a megabyte argument) get JSON-RPC errors and the server goes on.
//! DroidRun 0.3.9's own Portal client reads the mobilerun Portal over its HTTP port
//! and its content provider, taps by index, types through its keyboard and is
//! refused (401) once the Portal has a token; the port listens only while the
//! Portal's accessibility service is on.

use std::io::{Read, Write};
use std::net::TcpStream;
use std::process::Command;
use std::time::Duration;

use crate::common::{self, AdbServer};

/// `GET /ping` on device port 9008 through an `adb forward` of a local port: the
/// body when something answered.
fn ping_through_forward(adb: &AdbServer, serial: &str) -> Option<String> {
    through_forward(adb, serial, b"GET /ping HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n")
}

/// A POST of `body` to `/jsonrpc/0` through a forward: the answer's body.
fn rpc_through_forward(adb: &AdbServer, serial: &str, body: &str) -> Option<String> {
    let request = format!(
        "POST /jsonrpc/0 HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\n\
         Content-Length: {}\r\nConnection: close\r\n\r\n{body}",
        body.len()
    );
    through_forward(adb, serial, request.as_bytes())
}

/// `request` to device port 9008 through an `adb forward` of a local port.
fn through_forward(adb: &AdbServer, serial: &str, request: &[u8]) -> Option<String> {
    let local = std::net::TcpListener::bind("127.0.0.1:0").ok()?.local_addr().ok()?.port();
    let out = adb.adb(&["-s", serial, "forward", &format!("tcp:{local}"), "tcp:9008"]);
    assert!(out.status.success(), "adb forward: {}", String::from_utf8_lossy(&out.stderr));
    let mut stream = TcpStream::connect(("127.0.0.1", local)).ok()?;
    stream.set_read_timeout(Some(Duration::from_secs(5))).ok()?;
    stream.write_all(request).ok()?;
    let mut answer = String::new();
    let _ = stream.read_to_string(&mut answer);
    let _ = adb.adb(&["-s", serial, "forward", "--remove", &format!("tcp:{local}")]);
    answer.split_once("\r\n\r\n").map(|(_, body)| body.to_string()).filter(|b| !b.is_empty())
}

#[test]
fn uiautomator2s_own_client_drives_the_virtual_phone_through_its_server() {
    let sim = common::SimProcess::start(&[]);
    let adb = AdbServer::start();
    adb.connect(&sim.addr);
    // Before the server runs, nothing answers on its port.
    assert_eq!(ping_through_forward(&adb, &sim.addr), None, "nothing listens before the server starts");
    let (out, _, code) = adb.shell(&sim.addr, "toybox md5sum /data/local/tmp/u2.jar");
    assert_ne!(code, 0, "no jar yet: {out}");
    let script = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/clients/uiautomator2_client.py");
    let ran = Command::new(common::programs::u2_python())
        .arg(script)
        .arg(&sim.addr)
        .env("ANDROID_ADB_SERVER_PORT", adb.port())
        .output()
        .expect("run the uiautomator2 client");
    let said = format!("{}{}", String::from_utf8_lossy(&ran.stdout), String::from_utf8_lossy(&ran.stderr));
    assert!(ran.status.success() && !said.contains("FAIL"), "{said}");
    assert_eq!(said.lines().filter(|l| l.starts_with("ok ")).count(), 22, "{said}");
    assert!(said.contains("ok page source of com.codeact.forms") && said.contains("ok the cart counts it"), "{said}");
    // The jar it pushed is on the phone with the digest it checked.
    let (out, _, code) = adb.shell(&sim.addr, "toybox md5sum /data/local/tmp/u2.jar");
    assert_eq!(code, 0, "{out}");
    // (uiautomator2 3.7.1's client holds the same digest for its jar: core.py.)
    assert_eq!(out, "d4f2cb5299dfd894a40fdde067b56bc9  /data/local/tmp/u2.jar\n");
    // The client stopped its server (it closed the app_process stream): the port is closed again.
    assert_eq!(ping_through_forward(&adb, &sim.addr), None, "nothing listens after the server stops");
    // While a server runs (started by hand, as the client does), the same forward answers.
    let mut server = Command::new("adb")
        .args(["-P", &adb.port(), "-s", &sim.addr, "shell"])
        .arg("CLASSPATH=/data/local/tmp/u2.jar app_process / com.wetest.uia2.Main -p 9008")
        .spawn()
        .expect("start the server");
    let answered = (0..50).find_map(|_| {
        std::thread::sleep(Duration::from_millis(100));
        ping_through_forward(&adb, &sim.addr)
    });
    // Hostile requests get JSON-RPC errors, and the server goes on.
    let garbage = rpc_through_forward(&adb, &sim.addr, "{not json").unwrap_or_default();
    let params = rpc_through_forward(&adb, &sim.addr, r#"{"jsonrpc":"2.0","id":7,"method":"click","params":["a"]}"#);
    let huge =
        format!(r#"{{"jsonrpc":"2.0","id":8,"method":"setClipboard","params":[null,"{}"]}}"#, "x".repeat(1 << 20));
    let huge = rpc_through_forward(&adb, &sim.addr, &huge).unwrap_or_default();
    let still = ping_through_forward(&adb, &sim.addr);
    let _ = server.kill();
    let _ = server.wait();
    assert_eq!(answered.as_deref(), Some("pong"));
    assert!(garbage.contains(r#""code":-32700"#) && garbage.contains(r#""id":null"#), "{garbage}");
    assert!(params.is_some_and(|p| p.contains(r#""code":-32602"#) && p.contains(r#""id":7"#)));
    assert!(huge.contains(r#""id":8"#) && huge.contains(r#""result":null"#), "{}", &huge[..huge.len().min(200)]);
    assert_eq!(still.as_deref(), Some("pong"), "the server is still there");
}

/// Turns the mobilerun Portal's accessibility service on, as `droidrun setup` does.
pub(crate) const ENABLE_PORTAL: &str = "settings put secure enabled_accessibility_services \
     com.droidrun.portal/com.droidrun.portal.service.DroidrunAccessibilityService";

#[test]
fn droidruns_own_client_reads_the_portal_over_http_and_its_content_provider() {
    let sim = common::SimProcess::start(&[]);
    let adb = AdbServer::start();
    adb.connect(&sim.addr);
    assert_eq!(through_portal_forward(&adb, &sim.addr), None, "nothing listens before the Portal is on");
    let (_, _, code) = adb.shell(&sim.addr, ENABLE_PORTAL);
    assert_eq!(code, 0);
    let (out, _, _) = adb.shell(&sim.addr, "settings get secure enabled_accessibility_services");
    assert!(out.starts_with("com.droidrun.portal/"), "{out}");
    let script = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/clients/droidrun_portal_client.py");
    let ran = Command::new(common::programs::u2_python())
        .arg(script)
        .arg(common::programs::droidrun_src())
        .arg(&sim.addr)
        .env("ANDROID_ADB_SERVER_PORT", adb.port())
        .output()
        .expect("run DroidRun's Portal client");
    let said = format!("{}{}", String::from_utf8_lossy(&ran.stdout), String::from_utf8_lossy(&ran.stderr));
    assert!(ran.status.success() && !said.contains("FAIL"), "{said}");
    assert_eq!(said.lines().filter(|l| l.starts_with("ok ")).count(), 14, "{said}");
    // Hostile requests get the Portal's error objects, and it goes on.
    let unknown = through_portal_forward_request(&adb, &sim.addr, b"GET /nope HTTP/1.1\r\n\r\n").unwrap_or_default();
    assert!(unknown.contains(r#""status":"error""#) && unknown.contains("Unknown endpoint"), "{unknown}");
    let huge = format!(
        "POST /keyboard/input HTTP/1.1\r\nContent-Length: {}\r\n\r\n{{\"base64_text\":\"{}\"}}",
        (1 << 21) + 17,
        "A".repeat(1 << 21)
    );
    let _ = through_portal_forward_request(&adb, &sim.addr, huge.as_bytes());
    let pong = through_portal_forward(&adb, &sim.addr).unwrap_or_default();
    assert!(pong.contains(r#""data":"pong""#) && pong.contains(r#""status":"success""#), "{pong}");
    // Off again: the port closes.
    let (_, _, _) = adb.shell(&sim.addr, "settings put secure enabled_accessibility_services null");
    assert_eq!(through_portal_forward(&adb, &sim.addr), None, "nothing listens once it is off");
}

/// `GET /ping` on device port 8080 through an `adb forward`.
fn through_portal_forward(adb: &AdbServer, serial: &str) -> Option<String> {
    through_portal_forward_request(adb, serial, b"GET /ping HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n")
}

fn through_portal_forward_request(adb: &AdbServer, serial: &str, request: &[u8]) -> Option<String> {
    let local = std::net::TcpListener::bind("127.0.0.1:0").ok()?.local_addr().ok()?.port();
    let out = adb.adb(&["-s", serial, "forward", &format!("tcp:{local}"), "tcp:8080"]);
    assert!(out.status.success(), "adb forward: {}", String::from_utf8_lossy(&out.stderr));
    let mut stream = TcpStream::connect(("127.0.0.1", local)).ok()?;
    stream.set_read_timeout(Some(Duration::from_secs(5))).ok()?;
    let _ = stream.write_all(request);
    let mut answer = String::new();
    let _ = stream.read_to_string(&mut answer);
    let _ = adb.adb(&["-s", serial, "forward", "--remove", &format!("tcp:{local}")]);
    answer.split_once("\r\n\r\n").map(|(_, body)| body.to_string()).filter(|b| !b.is_empty())
}
