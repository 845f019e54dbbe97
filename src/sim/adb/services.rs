//! The services a host can open on the virtual adbd: shell (legacy and v2), exec,
//! sync and framebuffer. Each runs as its own task over a [`StreamIo`].
//!
//! What a command line does is the device's business (`SimDevice::run_line`); this
//! module only carries bytes and exit codes in the shapes the host expects.

use std::sync::Arc;

use super::connection::StreamIo;
use crate::sim::device::{LineOutcome, SimDevice};
use crate::sim::shell::Output;

/// Shell protocol v2 packet ids.
const V2_STDIN: u8 = 0;
const V2_STDOUT: u8 = 1;
const V2_STDERR: u8 = 2;
const V2_EXIT: u8 = 3;
const V2_CLOSE_STDIN: u8 = 4;

/// A service request, parsed from the OPEN payload.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Service {
    /// `shell:`, `shell,raw:`, `shell,v2,...:` with the command (empty = interactive).
    Shell {
        v2: bool,
        command: String,
    },
    /// `exec:` — raw output, stderr merged, no exit code.
    Exec {
        command: String,
    },
    Sync,
    Framebuffer,
}

impl Service {
    pub fn parse(request: &str) -> Option<Self> {
        if let Some(command) = request.strip_prefix("exec:") {
            return Some(Self::Exec { command: command.to_string() });
        }
        if request == "sync:" {
            return Some(Self::Sync);
        }
        if request == "framebuffer:" {
            return Some(Self::Framebuffer);
        }
        let rest = request.strip_prefix("shell")?;
        let (args, command) = rest.split_once(':')?;
        if !args.is_empty() && !args.starts_with(',') {
            return None;
        }
        let v2 = args.split(',').any(|a| a == "v2");
        Some(Self::Shell { v2, command: command.to_string() })
    }

    pub async fn run(self, mut io: StreamIo, device: Arc<SimDevice>) {
        let result = match self {
            Self::Shell { v2, command } if command.trim().is_empty() => interactive(&mut io, &device, v2).await,
            Self::Shell { v2: true, command } => match run_line(&mut io, &device, command).await {
                Some(out) => write_v2(&mut io, &out).await,
                None => return,
            },
            Self::Shell { v2: false, command } | Self::Exec { command } => {
                match run_line(&mut io, &device, command).await {
                    Some(out) => {
                        let mut merged = out.stdout;
                        merged.extend_from_slice(&out.stderr);
                        io.write(&merged).await
                    }
                    None => return,
                }
            }
            Self::Sync => super::sync::serve(&mut io, &device).await,
            Self::Framebuffer => {
                let frame = device.frame();
                let mut bytes = Vec::with_capacity(56 + frame.rgba.len());
                let size = frame.width * frame.height * 4;
                for word in [2, 32, 0, size, frame.width, frame.height, 0, 8, 16, 8, 8, 8, 24, 8] {
                    bytes.extend_from_slice(&u32::to_le_bytes(word));
                }
                bytes.extend_from_slice(&frame.rgba);
                io.write(&bytes).await
            }
        };
        if result.is_ok() {
            io.close();
        } else {
            // The host closed first; the route is already gone, so this sends nothing.
            io.close();
        }
    }
}

/// Runs one command line on a blocking thread; `None` when a fault dropped or hung
/// the connection (the caller must then send nothing more).
async fn run_line(io: &mut StreamIo, device: &Arc<SimDevice>, command: String) -> Option<Output> {
    let dev = device.clone();
    let outcome = tokio::task::spawn_blocking(move || dev.run_line(&command)).await;
    match outcome {
        Ok(LineOutcome::Done(out)) => Some(out),
        Ok(LineOutcome::Drop) => {
            io.kill_connection();
            None
        }
        Ok(LineOutcome::Hang) => {
            // Never answer; the connection's teardown cancels this task.
            std::future::pending::<()>().await;
            None
        }
        Err(_) => Some(Output { stderr: b"/system/bin/sh: internal error\n".to_vec(), code: 1, ..Default::default() }),
    }
}

fn v2_packet(id: u8, payload: &[u8]) -> Vec<u8> {
    let mut p = Vec::with_capacity(5 + payload.len());
    p.push(id);
    p.extend_from_slice(&(payload.len() as u32).to_le_bytes());
    p.extend_from_slice(payload);
    p
}

async fn write_v2(io: &mut StreamIo, out: &Output) -> Result<(), super::connection::StreamClosed> {
    // Packets may span WRTEs; keep each chunk inside the negotiated payload.
    let room = io.max_payload().saturating_sub(5).max(1);
    let mut bytes = Vec::new();
    for (id, data) in [(V2_STDOUT, &out.stdout), (V2_STDERR, &out.stderr)] {
        for chunk in data.chunks(room) {
            bytes.extend_from_slice(&v2_packet(id, chunk));
        }
    }
    bytes.extend_from_slice(&v2_packet(V2_EXIT, &[(out.code & 0xff) as u8]));
    io.write(&bytes).await
}

/// `adb shell` with no command: a prompt, one line at a time, until `exit` or EOF.
async fn interactive(
    io: &mut StreamIo,
    device: &Arc<SimDevice>,
    v2: bool,
) -> Result<(), super::connection::StreamClosed> {
    let prompt = format!("{}:/ $ ", device.config().product);
    let send = |data: &[u8]| if v2 { v2_packet(V2_STDOUT, data) } else { data.to_vec() };
    io.write(&send(prompt.as_bytes())).await?;
    let mut pending: Vec<u8> = Vec::new();
    let mut raw: Vec<u8> = Vec::new();
    while let Some(data) = io.read().await {
        if v2 {
            raw.extend_from_slice(&data);
            // Unwrap v2 stdin packets; other ids (window size) are ignored.
            while raw.len() >= 5 {
                let len = u32::from_le_bytes([raw[1], raw[2], raw[3], raw[4]]) as usize;
                if raw.len() < 5 + len {
                    break;
                }
                let id = raw[0];
                let payload: Vec<u8> = raw.drain(..5 + len).skip(5).collect();
                match id {
                    V2_STDIN => pending.extend_from_slice(&payload),
                    V2_CLOSE_STDIN => pending.extend_from_slice(b"\nexit\n"),
                    _ => {}
                }
            }
        } else {
            pending.extend_from_slice(&data);
        }
        while let Some(pos) = pending.iter().position(|b| *b == b'\n' || *b == b'\r') {
            let line: Vec<u8> = pending.drain(..=pos).collect();
            let line = String::from_utf8_lossy(&line).trim().to_string();
            if line == "exit" {
                if v2 {
                    io.write(&v2_packet(V2_EXIT, &[0])).await?;
                }
                return Ok(());
            }
            if !line.is_empty() {
                let Some(out) = run_line(io, device, line).await else {
                    return Ok(());
                };
                let mut text = out.stdout;
                text.extend_from_slice(&out.stderr);
                io.write(&send(&text)).await?;
            }
            io.write(&send(prompt.as_bytes())).await?;
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_service_requests() {
        assert_eq!(
            Service::parse("shell,v2,TERM=xterm-256color,raw:ls"),
            Some(Service::Shell { v2: true, command: "ls".into() })
        );
        assert_eq!(Service::parse("shell:echo hi"), Some(Service::Shell { v2: false, command: "echo hi".into() }));
        assert_eq!(Service::parse("shell,raw:"), Some(Service::Shell { v2: false, command: String::new() }));
        assert_eq!(Service::parse("exec:screencap -p"), Some(Service::Exec { command: "screencap -p".into() }));
        assert_eq!(Service::parse("sync:"), Some(Service::Sync));
        assert_eq!(Service::parse("framebuffer:"), Some(Service::Framebuffer));
        assert_eq!(Service::parse("shellfoo:x"), None);
        assert_eq!(Service::parse("reboot:"), None);
        assert_eq!(Service::parse("jdwp:1"), None);
    }
}
