//! Every server codeact starts on 127.0.0.1 — `serve --webdriver`, `studio` and
//! `mcp --http` — under a small descriptor limit (256), flooded with two thousand
//! connections that never finish a request's head: each still answers a real
//! request at once (idle connections make room), and a connection that sends half a
//! head is closed after the header timeout instead of being held for ever.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// A server run with at most `nofile` descriptors; killed on drop.
struct Limited {
    child: Child,
    port: u16,
    /// What follows `127.0.0.1:PORT` on its first line (`/TOKEN`, `/mcp`).
    path: String,
}

impl Limited {
    fn start(args: &[&str], dir: &std::path::Path, nofile: u32) -> Self {
        let mut child = Command::new("sh")
            .arg("-c")
            .arg(format!("ulimit -n {nofile} && exec \"$0\" \"$@\""))
            .arg(env!("CARGO_BIN_EXE_codeact"))
            .args(args)
            .current_dir(dir)
            .env("CODEACT_MCP_TOKEN", "servers-test-token-0123456789abcdef")
            .env_remove("OPENAI_API_KEY")
            .env_remove("OPENAI_BASE_URL")
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .expect("start codeact");
        let mut reader = BufReader::new(child.stderr.take().expect("stderr"));
        let mut line = String::new();
        reader.read_line(&mut line).expect("the server's first line");
        std::thread::spawn(move || std::io::copy(&mut reader, &mut std::io::sink()));
        let rest = line.split("127.0.0.1:").nth(1).unwrap_or_else(|| panic!("no address in {line:?}"));
        let digits: String = rest.chars().take_while(char::is_ascii_digit).collect();
        let path: String = rest[digits.len()..].split_whitespace().next().unwrap_or("").trim_end_matches('/').into();
        Self { child, port: digits.parse().expect("port"), path }
    }

    /// One request; its status (0: no answer within `patience`).
    fn status(&self, request: &str, patience: Duration) -> u16 {
        let Ok(mut s) = TcpStream::connect(("127.0.0.1", self.port)) else { return 0 };
        let _ = s.set_read_timeout(Some(patience));
        let _ = s.write_all(request.as_bytes());
        let mut answer = Vec::new();
        let _ = s.read_to_end(&mut answer);
        String::from_utf8_lossy(&answer).split_whitespace().nth(1).and_then(|c| c.parse().ok()).unwrap_or(0)
    }
}

impl Drop for Limited {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

#[test]
fn thousands_of_half_open_connections_leave_every_server_answering() {
    let dir = tempfile::tempdir().expect("dir");
    let servers: [(&str, Vec<&str>); 3] = [
        ("serve --webdriver", vec!["serve", "--webdriver", "--device", "sim", "--port", "0"]),
        ("studio", vec!["studio", "--device", "sim", "--port", "0"]),
        ("mcp --http", vec!["mcp", "--http", "0", "--device", "sim"]),
    ];
    for (name, args) in servers {
        let server = Limited::start(&args, dir.path(), 256);
        let port = server.port;
        let host = format!("Host: 127.0.0.1:{port}\r\n");
        let real = match name {
            "mcp --http" => {
                let init = r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}"#;
                format!(
                    "POST /mcp HTTP/1.1\r\n{host}Authorization: Bearer servers-test-token-0123456789abcdef\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{init}",
                    init.len()
                )
            }
            "studio" => format!("GET {}/ HTTP/1.1\r\n{host}Connection: close\r\n\r\n", server.path),
            _ => format!("GET {}/status HTTP/1.1\r\n{host}Connection: close\r\n\r\n", server.path),
        };
        assert_eq!(server.status(&real, Duration::from_secs(30)), 200, "{name}: answers before the flood");
        // Two thousand connections, each with half a request's head, all kept open here.
        let mut flood = Vec::new();
        for _ in 0..2000 {
            if let Ok(mut s) = TcpStream::connect(("127.0.0.1", port)) {
                let _ = s.write_all(format!("GET /x HTTP/1.1\r\n{host}X-Slow: ").as_bytes());
                flood.push(s);
            }
        }
        assert!(flood.len() >= 1000, "{name}: the flood connected ({})", flood.len());
        let started = Instant::now();
        assert_eq!(server.status(&real, Duration::from_secs(20)), 200, "{name}: answers a real request in the flood");
        assert!(started.elapsed() < Duration::from_secs(10), "{name}: at once ({:?})", started.elapsed());
        // A connection that stops in the middle of its head is closed by the server.
        let mut slow = TcpStream::connect(("127.0.0.1", port)).expect("connect");
        let _ = slow.write_all(format!("GET / HTTP/1.1\r\n{host}").as_bytes());
        let _ = slow.set_read_timeout(Some(Duration::from_secs(40)));
        let began = Instant::now();
        let mut answer = Vec::new();
        let _ = slow.read_to_end(&mut answer);
        assert!(began.elapsed() < Duration::from_secs(30), "{name}: a slow head is cut off ({:?})", began.elapsed());
        drop(flood);
        assert_eq!(server.status(&real, Duration::from_secs(20)), 200, "{name}: and after");
    }
}
