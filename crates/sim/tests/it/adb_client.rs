//! The virtual device through adb_client's TCP device (the path the runtime uses),
//! and through hand-written wire traffic for what no well-behaved client sends.

use crate::support as common;

use std::io::Cursor;
use std::time::Duration;

use adb_client::ADBDeviceExt;
use common::phone::{self, CLSE, OKAY, OPEN, Phone, RawClient, packet};

#[test]
fn shell_dump_and_tap_through_adb_client() {
    let mut p = Phone::start();
    assert_eq!(p.sh("getprop ro.build.version.sdk"), "34\n");
    assert_eq!(p.sh("echo hi | grep -c h"), "1\n");
    let dump = p.dump();
    let doc = roxmltree::Document::parse(common::dump_xml(&dump)).expect("XML");
    assert!(doc.descendants().any(|n| n.attribute("text") == Some("Messages")));
    p.tap("text", "Contacts");
    assert_eq!(p.state()["foreground_package"], "com.android.contacts");
    assert_eq!(p.sh("dumpsys window | grep -E 'mCurrentFocus|mFocusedApp'").lines().count(), 2);
}

#[test]
fn framebuffer_matches_raw_screencap() {
    let mut p =
        Phone::start_with(codeact_sim::SimConfig { width: 480, height: 960, density: 240, ..Default::default() });
    let image = p.device.framebuffer_inner().expect("framebuffer");
    assert_eq!((image.width(), image.height()), (480, 960));
    let raw = p.sh_bytes("screencap");
    assert_eq!(raw.len(), 16 + 480 * 960 * 4);
    assert_eq!(&raw[16..], image.as_raw().as_slice(), "framebuffer: and screencap give the same pixels");
    let png = p.sh_bytes("screencap -p");
    assert_eq!(common::png_size(&png), (480, 960));
}

#[test]
fn sync_stat_list_push_pull() {
    let mut p = Phone::start();
    let data: Vec<u8> = (0..150_000u32).map(|i| (i % 253) as u8).collect();
    p.device.push(&mut Cursor::new(data.clone()), &"/data/local/tmp/x/data.bin").expect("push");
    let stat = p.device.stat(&"/data/local/tmp/x/data.bin").expect("stat");
    assert_eq!(stat.file_size, 150_000);
    let list = p.device.list(&"/data/local/tmp/x").expect("list");
    assert_eq!(list.len(), 1, "{list:?}");
    let mut back = Vec::new();
    p.device.pull(&"/data/local/tmp/x/data.bin", &mut back).expect("pull");
    assert_eq!(back, data);
    assert_eq!(p.sh("wc -c < /data/local/tmp/x/data.bin").trim(), "150000");
    // adb_client does not read the FAIL reply, so check that nothing was written.
    let _ = p.device.push(&mut Cursor::new(b"x".to_vec()), &"/system/evil");
    assert_eq!(p.device.stat(&"/system/evil").expect("stat").file_perm, 0, "/system is read-only");
}

#[test]
fn messages_flow_permission_dialog_contact_and_send() {
    let mut p = Phone::start();
    p.sh("monkey -p com.google.android.apps.messaging -c android.intent.category.LAUNCHER 1");
    let dump = p.dump();
    assert!(dump.contains("Allow Messages to send you notifications?"), "the one-time permission dialog shows");
    assert!(dump.contains("<hierarchy rotation=\"0\"><node index=\"0\" text=\"\" resource-id=\"\" class=\"android.widget.FrameLayout\" package=\"com.google.android.permissioncontroller\""), "a plain dump holds only the active window, the dialog");
    let all = p.sh("uiautomator dump --windows /dev/tty");
    assert!(
        all.contains("package=\"com.google.android.apps.messaging\"")
            && all.contains("package=\"com.android.systemui\""),
        "--windows adds the app, the status and the navigation bar"
    );
    // The dialog blocks the screen below it.
    let (x, y) = common::center_of(&all, "content-desc", "Start chat").expect("the FAB under the dialog");
    p.sh(&format!("input tap {x} {y}"));
    assert_eq!(p.state()["activity"], "com.google.android.apps.messaging.ui.ConversationListActivity");
    p.tap("resource-id", "com.android.permissioncontroller:id/permission_allow_button");
    assert_eq!(p.state()["dialog"], serde_json::Value::Null);
    p.tap("content-desc", "Start chat");
    assert_eq!(p.state()["keyboard_shown"], true, "the recipient field is focused");
    p.sh("input keyevent KEYCODE_BACK");
    let (x, y) = p.scroll_to("text", "张三");
    p.sh(&format!("input tap {x} {y}"));
    assert_eq!(p.state()["activity"], "com.google.android.apps.messaging.ui.conversation.ConversationActivity");
    p.tap("resource-id", "com.google.android.apps.messaging:id/compose_message_text");
    p.type_unicode("明天见 👋");
    assert!(p.dump().contains("text=\"明天见 &#128075;\""), "the field shows the text, emoji as a character reference");
    p.tap("content-desc", "Send SMS");
    let state = p.state();
    let sent = state["messages"].as_array().expect("messages").last().cloned().expect("a message");
    assert_eq!(sent, serde_json::json!({"to": "张三", "text": "明天见 👋", "inbound": false}));
    let thread = p.dump();
    assert!(thread.contains("text=\"明天见 &#128075;\" resource-id=\"android:id/title\""), "the thread shows it");
    assert!(
        thread.contains(
            "text=\"Text message\" resource-id=\"com.google.android.apps.messaging:id/compose_message_text\""
        ),
        "the field is empty again, showing its hint"
    );
    // Leaving and coming back: the dialog does not return.
    p.sh("input keyevent 3");
    p.sh("monkey -p com.google.android.apps.messaging -c android.intent.category.LAUNCHER 1");
    assert!(!p.dump().contains("permission_allow_button"));
}

#[test]
fn malformed_traffic_closes_only_that_connection() {
    let p = Phone::start();
    let addr = p.sim.addr();
    let mut good = phone::connect(addr);

    let mut bad_magic = RawClient::connect(addr);
    bad_magic.handshake();
    let mut msg = packet(OKAY, 1, 1, &[]);
    msg[20] ^= 0xff;
    bad_magic.send(&msg);
    assert!(bad_magic.is_closed(), "bad magic closes the connection");

    let mut oversized = RawClient::connect(addr);
    oversized.handshake();
    let mut header = packet(phone::WRTE, 1, 1, &[]);
    header[12..16].copy_from_slice(&(64u32 * 1024 * 1024).to_le_bytes());
    oversized.send(&header);
    assert!(oversized.is_closed(), "a 64 MiB payload length closes the connection");

    let mut garbage = RawClient::connect(addr);
    garbage.send(&[0xde; 100]);
    assert!(garbage.is_closed(), "garbage closes the connection");

    let mut unknown = RawClient::connect(addr);
    unknown.handshake();
    unknown.send(&packet(OPEN, 7, 0, b"reboot:bootloader\0"));
    let (cmd, _, remote, _) = unknown.read().expect("a reply");
    assert_eq!((cmd, remote), (CLSE, 7), "an unknown service is refused with CLSE");
    assert_eq!(unknown.shell(8, "echo still").as_deref(), Some(&b"still\n"[..]), "the connection stays usable");

    let mut out = Vec::new();
    good.shell_command(&"echo alive", Some(&mut out), None).expect("others keep being served");
    assert_eq!(out, b"alive\n");
}

#[test]
fn many_connections_and_streams_at_once() {
    let p = Phone::start();
    let addr = p.sim.addr();
    let handles: Vec<_> = (0..8)
        .map(|i| {
            std::thread::spawn(move || {
                let mut d = phone::connect(addr);
                for j in 0..5 {
                    let mut out = Vec::new();
                    d.shell_command(&format!("echo {i}-{j}"), Some(&mut out), None).expect("shell");
                    assert_eq!(String::from_utf8_lossy(&out), format!("{i}-{j}\n"));
                }
            })
        })
        .collect();
    for h in handles {
        h.join().expect("client thread");
    }
}

#[test]
fn faults_drop_and_hang_affect_the_next_command_only() {
    let mut p = Phone::start();
    p.sh("simctl fault drop 1");
    let mut raw = RawClient::connect(p.sim.addr());
    raw.handshake();
    assert_eq!(raw.shell(1, "echo first").as_deref(), Some(&b"first\n"[..]), "one more command is served");
    assert_eq!(raw.shell(2, "echo second"), None, "the next one drops the connection");
    assert!(raw.is_closed());

    p.sh("simctl fault hang 0");
    let mut raw = RawClient::connect(p.sim.addr());
    raw.handshake();
    raw.stream.set_read_timeout(Some(Duration::from_millis(300))).expect("timeout");
    raw.send(&packet(OPEN, 1, 0, b"shell:echo never\0"));
    let (cmd, _, _, _) = raw.read().expect("the stream opens");
    assert_eq!(cmd, OKAY);
    assert!(raw.read().is_none(), "a hung command never answers");
    assert_eq!(p.sh("echo recovered"), "recovered\n");
    assert!(p.sh("simctl faults").contains("\"hang_after\":null"), "a fired fault clears itself");
}
