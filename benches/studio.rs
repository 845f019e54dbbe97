//! `codeact studio` on the virtual phone (a `codeact sim` reached over TCP): how many
//! new pictures of the phone reach a page per second while its screen keeps
//! changing (a list scrolled up and down through the stock adb, as a person or an
//! animation would, not through the studio), how many looks the studio takes per
//! second, and the time from a click on the mirror to the selectors shown (the
//! `api/point` round trip: a fresh look, the element under the point, its
//! candidates ranked and timed). Needs the stock adb. Run with `cargo bench
//! --bench studio`.

use std::io::{BufRead, BufReader, Read, Write};
use std::process::{Command, Stdio};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

struct Door {
    port: u16,
    token: String,
}

impl Door {
    fn request(&self, method: &str, path: &str, body: &str) -> Option<String> {
        let mut s = std::net::TcpStream::connect(("127.0.0.1", self.port)).ok()?;
        s.set_read_timeout(Some(Duration::from_secs(30))).ok()?;
        let head = format!(
            "{method} /{}/{path} HTTP/1.1\r\nHost: 127.0.0.1:{}\r\nConnection: close\r\nContent-Type: application/json\r\nContent-Length: {}\r\n\r\n{body}",
            self.token,
            self.port,
            body.len()
        );
        s.write_all(head.as_bytes()).ok()?;
        let mut answer = String::new();
        s.read_to_string(&mut answer).ok()?;
        answer.split_once("\r\n\r\n").map(|(_, b)| b.to_string())
    }

    fn live(&self, since: u64) -> serde_json::Value {
        self.request("GET", &format!("api/live?since={since}"), "")
            .and_then(|b| serde_json::from_str(&b).ok())
            .unwrap_or_default()
    }
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    v.get(v.len() / 2).copied().unwrap_or(f64::NAN)
}

#[path = "common/processes.rs"]
mod processes;
use processes::{Killed, free_port};

/// The first line of `child`'s `stream` that holds `127.0.0.1:`; the rest drained.
fn address_line(read: impl Read + Send + 'static) -> String {
    let mut reader = BufReader::new(read);
    let mut line = String::new();
    while reader.read_line(&mut line).is_ok_and(|n| n > 0) && !line.contains("127.0.0.1:") {
        line.clear();
    }
    std::thread::spawn(move || std::io::copy(&mut reader, &mut std::io::sink()));
    line
}

fn main() {
    let dir = std::env::temp_dir();
    let Some(adb_port) = free_port().map(|p| p.to_string()) else {
        eprintln!("no free port; skipping");
        return;
    };
    let Ok(mut sim) = Command::new(env!("CARGO_BIN_EXE_codeact"))
        .args(["sim", "--port", "0"])
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
    else {
        eprintln!("cannot start codeact sim; skipping");
        return;
    };
    let first = sim.stdout.take().map(address_line).unwrap_or_default();
    let mut children = Killed(vec![sim], adb_port.clone());
    let Some(serial) = first.split_whitespace().find(|w| w.starts_with("127.0.0.1:")).map(str::to_string) else {
        eprintln!("the sim printed no address: {first}");
        return;
    };
    let adb = {
        let (adb_port, serial) = (adb_port.clone(), serial.clone());
        move |args: &[&str]| {
            let _ = Command::new("adb").args(["-P", &adb_port, "-s", &serial]).args(args).output();
        }
    };
    let _ = Command::new("adb").args(["-P", &adb_port, "connect", &serial]).output();
    adb(&["wait-for-device"]);
    let Ok(mut studio) = Command::new(env!("CARGO_BIN_EXE_codeact"))
        .args(["studio", "--device", &serial, "--port", "0"])
        .current_dir(&dir)
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
    else {
        eprintln!("cannot start codeact studio; skipping");
        return;
    };
    let line = studio.stderr.take().map(address_line).unwrap_or_default();
    children.0.push(studio);
    let Some((port, token)) = line
        .split_whitespace()
        .find_map(|w| w.strip_prefix("http://127.0.0.1:"))
        .and_then(|rest| rest.split_once('/'))
        .and_then(|(p, t)| Some((p.parse().ok()?, t.trim_end_matches('/').to_string())))
    else {
        eprintln!("the studio printed no address: {line}");
        return;
    };
    let door = Arc::new(Door { port, token });
    let _ = door.request("POST", "api/act", r#"{"action": "open_app", "package": "com.android.settings"}"#);
    std::thread::sleep(Duration::from_millis(500));

    // Pictures reaching a page while the screen keeps changing.
    let busy = Arc::new(AtomicBool::new(true));
    let scroller = {
        let busy = busy.clone();
        std::thread::spawn(move || {
            let mut up = true;
            while busy.load(Ordering::Relaxed) {
                let (from, to) = if up { ("1800", "600") } else { ("600", "1800") };
                adb(&["shell", "input", "swipe", "540", from, "540", to, "50"]);
                up = !up;
            }
        })
    };
    let mut seq = door.live(0)["seq"].as_u64().unwrap_or(0);
    let first = door.live(seq);
    let (mut frame, began) = (first["frame"].as_u64().unwrap_or(0), Instant::now());
    let (start_frame, mut looks) = (frame, Vec::new());
    seq = first["seq"].as_u64().unwrap_or(seq);
    while began.elapsed() < Duration::from_secs(6) {
        let news = door.live(seq);
        seq = news["seq"].as_u64().unwrap_or(seq);
        frame = news["frame"].as_u64().unwrap_or(frame);
        looks.push(news["fps"].as_f64().unwrap_or(0.0));
    }
    busy.store(false, Ordering::Relaxed);
    let _ = scroller.join();
    let fps = (frame - start_frame) as f64 / began.elapsed().as_secs_f64();
    println!("studio/new pictures a page gets per second while the screen changes: {fps:.1}");
    println!("studio/looks at the phone per second (the studio's own count): {:.1}", median(looks));

    // Click on the mirror → the selectors shown.
    let _ = door.request("POST", "api/act", r#"{"action": "open_app", "package": "com.android.settings"}"#);
    let mut times = Vec::new();
    for _ in 0..50 {
        let started = Instant::now();
        let answer = door.request("POST", "api/point", r#"{"x": 940, "y": 450}"#).unwrap_or_default();
        times.push(started.elapsed().as_secs_f64() * 1000.0);
        assert!(answer.contains("candidates"), "{answer}");
    }
    println!("studio/click to selectors (api/point, median of 50): {:.2} ms", median(times));
    drop(children);
}
