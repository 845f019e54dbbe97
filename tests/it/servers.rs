//! Every server codeact starts on 127.0.0.1 — `serve --webdriver`, `studio` and
//! `mcp --http` — under a small descriptor limit (256), flooded with two thousand
//! connections that never finish a request's head: each still answers a real
//! request at once (idle connections make room), and a connection that sends half a
//! head is closed after the header timeout instead of being held for ever.

use std::io::{Read, Write};
use std::net::TcpStream;
use std::time::{Duration, Instant};

use crate::common::loopback::Loopback;

/// One request to the server on `port`; its status (0: no answer within `patience`).
fn status(port: u16, request: &str, patience: Duration) -> u16 {
    let Ok(mut s) = TcpStream::connect(("127.0.0.1", port)) else { return 0 };
    let _ = s.set_read_timeout(Some(patience));
    let _ = s.write_all(request.as_bytes());
    let mut answer = Vec::new();
    let _ = s.read_to_end(&mut answer);
    String::from_utf8_lossy(&answer).split_whitespace().nth(1).and_then(|c| c.parse().ok()).unwrap_or(0)
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
        let env = [("CODEACT_MCP_TOKEN", "servers-test-token-0123456789abcdef")];
        let server = Loopback::start_limited(&args, dir.path(), &env, 256);
        let port = server.port;
        let path = format!("/{}", server.token);
        let host = format!("Host: 127.0.0.1:{port}\r\n");
        let real = match name {
            "mcp --http" => {
                let init = r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}"#;
                format!(
                    "POST /mcp HTTP/1.1\r\n{host}Authorization: Bearer servers-test-token-0123456789abcdef\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{init}",
                    init.len()
                )
            }
            "studio" => format!("GET {path}/ HTTP/1.1\r\n{host}Connection: close\r\n\r\n"),
            _ => format!("GET {path}/status HTTP/1.1\r\n{host}Connection: close\r\n\r\n"),
        };
        assert_eq!(status(port, &real, Duration::from_secs(30)), 200, "{name}: answers before the flood");
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
        assert_eq!(status(port, &real, Duration::from_secs(20)), 200, "{name}: answers a real request in the flood");
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
        assert_eq!(status(port, &real, Duration::from_secs(20)), 200, "{name}: and after");
    }
}
