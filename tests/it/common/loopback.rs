//! A server codeact starts on 127.0.0.1 with a token in its URL (`codeact studio`,
//! `codeact serve --webdriver`): started in a folder, its address read from the
//! first line it prints, raw HTTP requests sent to it (any headers, any bytes), and
//! killed on drop.

use std::io::{BufRead, BufReader, Read, Write};
use std::process::{Child, Command, Stdio};
use std::time::Duration;

pub struct Loopback {
    child: Child,
    /// `http://127.0.0.1:PORT/TOKEN` as printed (a trailing `/` kept when printed).
    pub url: String,
    pub port: u16,
    pub token: String,
}

impl Loopback {
    /// `codeact ARGS` in `dir`, with `env` set and no model configured.
    pub fn start(args: &[&str], dir: &std::path::Path, env: &[(&str, &str)]) -> Self {
        Self::spawn(Command::new(env!("CARGO_BIN_EXE_codeact")), args, dir, env)
    }

    /// The same, allowed at most `nofile` open descriptors (`ulimit -n`).
    pub fn start_limited(args: &[&str], dir: &std::path::Path, env: &[(&str, &str)], nofile: u32) -> Self {
        let mut sh = Command::new("sh");
        sh.arg("-c").arg(format!("ulimit -n {nofile} && exec \"$0\" \"$@\"")).arg(env!("CARGO_BIN_EXE_codeact"));
        Self::spawn(sh, args, dir, env)
    }

    fn spawn(mut command: Command, args: &[&str], dir: &std::path::Path, env: &[(&str, &str)]) -> Self {
        let mut child = command
            .args(args)
            .current_dir(dir)
            .env_remove("OPENAI_BASE_URL")
            .env_remove("OPENAI_API_KEY")
            .env_remove("CODEACT_MODEL")
            .env_remove("CODEACT_CONFIG")
            .envs(env.iter().copied())
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .expect("start codeact");
        let mut reader = BufReader::new(child.stderr.take().expect("stderr"));
        let mut line = String::new();
        reader.read_line(&mut line).expect("the server's first line");
        std::thread::spawn(move || std::io::copy(&mut reader, &mut std::io::sink()));
        // `http://127.0.0.1:PORT/TOKEN/`, or MCP's `http://127.0.0.1:PORT/mcp`.
        let url = line
            .split_whitespace()
            .find(|w| w.starts_with("http://"))
            .unwrap_or_else(|| panic!("{line}"))
            .trim_end_matches([',', ')', '.'])
            .to_string();
        let rest = url.trim_start_matches("http://127.0.0.1:");
        let (port, token) = rest.split_once('/').expect("port/token");
        let (port, token) = (port.parse().expect("port"), token.trim_end_matches('/').to_string());
        Self { child, url, port, token }
    }

    /// A raw request: (status, body).
    pub fn request(&self, method: &str, path: &str, headers: &[(&str, &str)], body: &[u8]) -> (u16, String) {
        let mut s = std::net::TcpStream::connect(("127.0.0.1", self.port)).expect("connect");
        s.set_read_timeout(Some(Duration::from_secs(120))).expect("timeout");
        let mut head = format!("{method} {path} HTTP/1.1\r\nConnection: close\r\nContent-Length: {}\r\n", body.len());
        if !headers.iter().any(|(k, _)| k.eq_ignore_ascii_case("host")) {
            head.push_str(&format!("Host: 127.0.0.1:{}\r\n", self.port));
        }
        for (k, v) in headers {
            head.push_str(&format!("{k}: {v}\r\n"));
        }
        head.push_str("\r\n");
        let _ = s.write_all(head.as_bytes());
        let _ = s.write_all(body);
        let mut answer = Vec::new();
        let _ = s.read_to_end(&mut answer);
        let text = String::from_utf8_lossy(&answer).into_owned();
        let status = text.split_whitespace().nth(1).and_then(|c| c.parse().ok()).unwrap_or(0);
        (status, text.split_once("\r\n\r\n").map(|(_, b)| b.to_string()).unwrap_or_default())
    }
}

impl Drop for Loopback {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}
