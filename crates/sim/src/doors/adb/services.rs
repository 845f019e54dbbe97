//! The services a host can open on the virtual adbd: shell (legacy and v2), exec,
//! sync, framebuffer and `tcp:PORT` (an agent's port, `agents/`). Each runs as its own task over a [`StreamIo`].
//!
//! What a command line does is the device's business (`SimDevice::run_line`); this
//! module only carries bytes and exit codes in the shapes the host expects.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use adb_wire::shell_v2::{self, PacketBuffer};

use super::stream::{StreamClosed, StreamIo};
use crate::device::{CancelOnDrop, LineOutcome, SimDevice};
use crate::shell::Output;

/// A service request, parsed from the OPEN payload.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Service {
    /// `shell:`, `shell,raw:`, `shell,v2,...:` with the command (empty = interactive);
    /// `pty` when the host asked for a terminal (a person typing).
    Shell {
        v2: bool,
        pty: bool,
        command: String,
    },
    /// `exec:` — raw output, stderr merged, no exit code.
    Exec {
        command: String,
    },
    Sync,
    Framebuffer,
    /// `tcp:PORT`: a connection to what listens on the device's port (an agent).
    Tcp {
        port: u16,
    },
}

/// How a service ended: normally (close the stream) or because a fault is dropping
/// the connection (send nothing more).
enum End {
    Close,
    Dropped,
}

impl From<Result<(), StreamClosed>> for End {
    fn from(_: Result<(), StreamClosed>) -> Self {
        // Whether the host closed first or not, closing is right: the route decides
        // whether a CLSE is still owed.
        End::Close
    }
}

impl Service {
    pub(crate) fn parse(request: &str) -> Option<Self> {
        if let Some(command) = request.strip_prefix("exec:") {
            return Some(Self::Exec { command: command.to_string() });
        }
        if request == "sync:" {
            return Some(Self::Sync);
        }
        if request == "framebuffer:" {
            return Some(Self::Framebuffer);
        }
        if let Some(port) = request.strip_prefix("tcp:") {
            // `tcp:PORT` or `tcp:PORT:HOST`; only the phone's own ports.
            let (port, host) = port.split_once(':').unwrap_or((port, "localhost"));
            let local = matches!(host, "localhost" | "127.0.0.1");
            return port.parse().ok().filter(|p| *p > 0 && local).map(|port| Self::Tcp { port });
        }
        let rest = request.strip_prefix("shell")?;
        let (args, command) = rest.split_once(':')?;
        if !args.is_empty() && !args.starts_with(',') {
            return None;
        }
        let v2 = args.split(',').any(|a| a == "v2");
        // Legacy interactive `shell:` is a terminal session unless `raw` was asked for.
        let pty = args.split(',').any(|a| a == "pty") || (!v2 && !args.contains("raw") && command.trim().is_empty());
        Some(Self::Shell { v2, pty, command: command.to_string() })
    }

    pub(crate) async fn serve(self, mut io: StreamIo, device: Arc<SimDevice>) {
        let end = match self {
            Self::Shell { v2, pty, command } if command.trim().is_empty() => {
                interactive(&mut io, &device, v2, pty).await
            }
            Self::Shell { v2: true, command, .. } => match run_line(&mut io, &device, command, true).await {
                Some(out) => write_v2(&mut io, &out).await.into(),
                None => End::Dropped,
            },
            Self::Exec { command } if streamed_install(&command).is_some() => {
                let size = streamed_install(&command).unwrap_or(0);
                let out = receive_install(&mut io, &device, size).await;
                let mut merged = out.stdout;
                merged.extend_from_slice(&out.stderr);
                io.write(&merged).await.into()
            }
            Self::Shell { v2: false, command, .. } | Self::Exec { command } => {
                match run_line(&mut io, &device, command, true).await {
                    Some(out) => {
                        let mut merged = out.stdout;
                        merged.extend_from_slice(&out.stderr);
                        io.write(&merged).await.into()
                    }
                    None => End::Dropped,
                }
            }
            Self::Sync => {
                let dev = device.clone();
                match tokio::task::spawn_blocking(move || dev.at_door()).await {
                    Ok(Some(outcome)) => fault_end(&mut io, outcome).await,
                    _ => super::sync::serve(&mut io, &device).await.into(),
                }
            }
            Self::Framebuffer => framebuffer(&mut io, &device).await,
            Self::Tcp { port } => {
                super::forward::serve_port(port, io, device).await;
                return;
            }
        };
        match end {
            End::Close => io.close(),
            // The connection is going away; a CLSE now would make the drop look clean.
            End::Dropped => std::future::pending::<()>().await,
        }
    }
}

async fn framebuffer(io: &mut StreamIo, device: &Arc<SimDevice>) -> End {
    let dev = device.clone();
    // Rendering is CPU work: keep it off the async workers. Faults apply as to commands.
    let frame = match tokio::task::spawn_blocking(move || dev.at_door().map_or_else(|| Ok(dev.frame()), Err)).await {
        Ok(Ok(frame)) => frame,
        Ok(Err(outcome)) => return fault_end(io, outcome).await,
        Err(_) => return End::Close,
    };
    let mut bytes = Vec::with_capacity(56 + frame.rgba.len());
    let size = frame.width * frame.height * 4;
    for word in [2, 32, 0, size, frame.width, frame.height, 0, 8, 16, 8, 8, 8, 24, 8] {
        bytes.extend_from_slice(&u32::to_le_bytes(word));
    }
    bytes.extend_from_slice(&frame.rgba);
    io.write(&bytes).await.into()
}

/// Acts out a drop or hang fault on this stream's connection.
async fn fault_end(io: &mut StreamIo, outcome: LineOutcome) -> End {
    match outcome {
        LineOutcome::Drop => io.kill_connection(),
        // Never answer; the connection's teardown cancels this task.
        _ => std::future::pending::<()>().await,
    }
    End::Dropped
}

/// Runs one command line on a blocking thread; `None` when a fault dropped or hung
/// the connection (the caller must then send nothing more). With `watch_host`, the
/// host closing the stream cancels the command (interactive shells keep reading
/// typed-ahead input themselves, so they do not watch).
async fn run_line(io: &mut StreamIo, device: &Arc<SimDevice>, command: String, watch_host: bool) -> Option<Output> {
    let dev = device.clone();
    let cancel = CancelOnDrop(Arc::new(AtomicBool::new(false)));
    let flag = cancel.0.clone();
    let mut task = tokio::task::spawn_blocking(move || dev.run_line(&command, Some(flag)));
    let mut host_open = watch_host;
    let finished = loop {
        tokio::select! {
            done = &mut task => break done,
            more = io.read(), if host_open => {
                if more.is_none() {
                    cancel.0.store(true, Ordering::Relaxed);
                    host_open = false;
                }
            }
        }
    };
    match finished {
        Ok(LineOutcome::Done(out)) => Some(out),
        Ok(outcome) => {
            fault_end(io, outcome).await;
            None
        }
        Err(_) => Some(Output { stderr: b"/system/bin/sh: internal error\n".to_vec(), code: 1, ..Default::default() }),
    }
}

/// The size a streamed install announces (`exec:cmd package 'install' -S SIZE`),
/// when the command is one.
fn streamed_install(command: &str) -> Option<usize> {
    let words: Vec<&str> = command.split_whitespace().map(|w| w.trim_matches('\'')).collect();
    crate::device::install::streamed_size(&words)
}

/// Reads the `size` bytes of an APK streamed after the command, then installs it
/// (a size over the most an APK may weigh is refused before anything is read).
async fn receive_install(io: &mut StreamIo, device: &Arc<SimDevice>, size: usize) -> Output {
    if size > crate::device::install::MAX_APK {
        return Output {
            stdout: b"Failure [INSTALL_FAILED_INSUFFICIENT_STORAGE]\n".to_vec(),
            code: 1,
            ..Default::default()
        };
    }
    let mut apk = Vec::with_capacity(size.min(16 * 1024 * 1024));
    while apk.len() < size {
        match io.read().await {
            Some(chunk) => apk.extend_from_slice(&chunk[..chunk.len().min(size - apk.len())]),
            None => break,
        }
    }
    if apk.len() < size {
        let said = format!("Failure [INSTALL_FAILED_INVALID_APK: {} of {size} bytes streamed]\n", apk.len());
        return Output { stdout: said.into_bytes(), code: 1, ..Default::default() };
    }
    let dev = device.clone();
    tokio::task::spawn_blocking(move || crate::device::install::install(&dev, &apk)).await.unwrap_or_else(|_| Output {
        stderr: b"/system/bin/sh: internal error\n".to_vec(),
        code: 1,
        ..Default::default()
    })
}

async fn write_v2(io: &mut StreamIo, out: &Output) -> Result<(), StreamClosed> {
    // Packets may span WRTEs (io.write splits); the host reassembles them.
    let mut bytes = Vec::with_capacity(out.stdout.len() + out.stderr.len() + 16);
    for (id, data) in [(shell_v2::STDOUT, &out.stdout), (shell_v2::STDERR, &out.stderr)] {
        if !data.is_empty() {
            bytes.extend_from_slice(&shell_v2::packet(id, data));
        }
    }
    bytes.extend_from_slice(&shell_v2::packet(shell_v2::EXIT, &[(out.code & 0xff) as u8]));
    io.write(&bytes).await
}

/// `adb shell` with no command: one line at a time, until `exit`, ^D or EOF. With a
/// terminal (`pty`) it prompts, echoes what is typed and edits the line as a
/// terminal would; without one it just runs what it reads, like `sh` from a pipe.
async fn interactive(io: &mut StreamIo, device: &Arc<SimDevice>, v2: bool, pty: bool) -> End {
    let prompt = format!("{}:/ $ ", device.config().product);
    let frame = |data: &[u8]| -> Vec<u8> {
        let data: Vec<u8> = if pty {
            data.iter().flat_map(|b| if *b == b'\n' { vec![b'\r', b'\n'] } else { vec![*b] }).collect()
        } else {
            data.to_vec()
        };
        if v2 { shell_v2::packet(shell_v2::STDOUT, &data) } else { data }
    };
    if pty && io.write(&frame(prompt.as_bytes())).await.is_err() {
        return End::Close;
    }
    let mut line: Vec<u8> = Vec::new();
    let mut packets = PacketBuffer::default();
    while let Some(data) = io.read().await {
        let mut typed = Vec::new();
        if v2 {
            packets.push(&data);
            // Unwrap v2 stdin packets; other ids (window size) are ignored.
            while let Some(p) = packets.next_packet() {
                match p.id {
                    shell_v2::STDIN => typed.extend_from_slice(&p.payload),
                    shell_v2::CLOSE_STDIN => typed.push(0x04),
                    _ => {}
                }
            }
        } else {
            typed = data;
        }
        for byte in typed {
            let mut echo = Vec::new();
            let run = match byte {
                b'\r' | b'\n' => {
                    echo.push(b'\n');
                    true
                }
                0x04 if line.is_empty() => return finish(io, v2).await,
                0x03 => {
                    line.clear();
                    echo.extend_from_slice(b"^C\n");
                    echo.extend_from_slice(prompt.as_bytes());
                    false
                }
                0x7f | 0x08 => {
                    if line.pop().is_some() {
                        echo.extend_from_slice(b"\x08 \x08");
                    }
                    false
                }
                b => {
                    line.push(b);
                    echo.push(b);
                    false
                }
            };
            if pty && !echo.is_empty() && io.write(&frame(&echo)).await.is_err() {
                return End::Close;
            }
            if !run {
                continue;
            }
            let command = String::from_utf8_lossy(&std::mem::take(&mut line)).trim().to_string();
            if command == "exit" {
                return finish(io, v2).await;
            }
            let mut text = Vec::new();
            if !command.is_empty() {
                let Some(out) = run_line(io, device, command, false).await else { return End::Dropped };
                text = out.stdout;
                text.extend_from_slice(&out.stderr);
            }
            if pty {
                text.extend_from_slice(prompt.as_bytes());
            }
            if !text.is_empty() && io.write(&frame(&text)).await.is_err() {
                return End::Close;
            }
        }
    }
    End::Close
}

async fn finish(io: &mut StreamIo, v2: bool) -> End {
    if v2 {
        let _ = io.write(&shell_v2::packet(shell_v2::EXIT, &[0])).await;
    }
    End::Close
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_service_requests() {
        assert_eq!(
            Service::parse("shell,v2,TERM=xterm-256color,raw:ls"),
            Some(Service::Shell { v2: true, pty: false, command: "ls".into() })
        );
        assert_eq!(
            Service::parse("shell:echo hi"),
            Some(Service::Shell { v2: false, pty: false, command: "echo hi".into() })
        );
        assert_eq!(
            Service::parse("shell,raw:"),
            Some(Service::Shell { v2: false, pty: false, command: String::new() })
        );
        assert_eq!(Service::parse("exec:screencap -p"), Some(Service::Exec { command: "screencap -p".into() }));
        assert_eq!(Service::parse("sync:"), Some(Service::Sync));
        assert_eq!(Service::parse("tcp:9008"), Some(Service::Tcp { port: 9008 }));
        assert_eq!(Service::parse("tcp:8080:localhost"), Some(Service::Tcp { port: 8080 }));
        for refused in ["tcp:0", "tcp:70000", "tcp:x", "tcp:80:example.org", "tcp:"] {
            assert_eq!(Service::parse(refused), None, "{refused}");
        }
        assert_eq!(
            Service::parse("shell,v2,TERM=xterm,pty:"),
            Some(Service::Shell { v2: true, pty: true, command: String::new() })
        );
        assert_eq!(Service::parse("shell:"), Some(Service::Shell { v2: false, pty: true, command: String::new() }));
        assert_eq!(Service::parse("framebuffer:"), Some(Service::Framebuffer));
        assert_eq!(Service::parse("shellfoo:x"), None);
        assert_eq!(Service::parse("reboot:"), None);
        assert_eq!(Service::parse("jdwp:1"), None);
    }
}
