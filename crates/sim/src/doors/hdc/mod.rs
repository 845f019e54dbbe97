//! The virtual phone's HarmonyOS front door: the host-server side of hdc (the
//! OpenHarmony Device Connector) on loopback, with this phone as its one target, so
//! that hdc clients — the `hdc` command pointed at it with `OHOS_HDC_SERVER_PORT`,
//! the `hdc-rs` crate, codeact's `--device hdc` — drive it as they drive a phone.
//!
//! The protocol, as the upstream server speaks it to its clients: every message is a
//! frame (a big-endian u32 length, then that many bytes). On accept the server sends
//! its 44-byte channel handshake (`"OHOS HDC"`, a NUL, flags, the channel id); the
//! client answers with the same banner and the connect key that picks the target
//! (`any`, or the target's key as `list targets` prints it; an empty key is for the
//! commands that need no target); then one command frame (its text, with or without a
//! trailing NUL). Replies are frames of raw text or output, and the end of a command
//! is the server closing the connection: there is no exit status. `checkserver`'s
//! reply alone starts with its command id (13, little-endian). Commands served:
//! `shell CMD` (the phone's shell with HarmonyOS's tools; stdout and stderr merged, as
//! the daemon's pipe merges them), `list targets [-v]`, `checkserver`, `version`;
//! others get the server's `[Fail]` words. Learned from `openharmony/developtools_hdc`
//! (`channel.cpp`, `server_for_client.cpp`, `translate.cpp`; public source), no code
//! copied. Not here: the tools themselves (`commands/harmony/`).

use std::sync::Arc;
use std::sync::atomic::AtomicBool;
use std::time::Duration;

use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};

use crate::device::{CancelOnDrop, LineOutcome, SimDevice};

/// `Base::GetVersion()` of the hdc this door answers as.
const VERSION: &str = "Ver: 3.2.0f";
/// `CMD_CHECK_SERVER`: the one reply frame that starts with its command id.
const CMD_CHECK_SERVER: u16 = 13;
/// The handshake without its version field, as servers built without
/// `HDC_VERSION_CHECK` (the default) send it.
const HANDSHAKE_LEN: usize = 44;
/// Client frames are a handshake or a command line: anything longer is not hdc.
const MAX_CLIENT_FRAME: usize = 64 * 1024;
/// Output goes out in frames no longer than this (clients cap frames at 511 KiB).
const OUTPUT_FRAME: usize = 64 * 1024;
/// A connection that sends nothing for this long is closed.
const IDLE: Duration = Duration::from_secs(600);

/// Serves hdc clients on `listener` until the task is dropped.
pub(crate) async fn accept_forever(listener: TcpListener, device: Arc<SimDevice>) {
    let mut next_channel: u32 = 0x1d5e_0001;
    let open = Arc::default();
    loop {
        let (socket, admitted) = crate::doors::accept::next(&listener, &open, "hdc door").await;
        next_channel = next_channel.wrapping_add(1);
        let device = device.clone();
        tokio::spawn(async move {
            serve(socket, device, next_channel).await;
            drop(admitted);
        });
    }
}

/// Why a connection ends early: the client left, or sent what is not hdc.
#[derive(Debug)]
struct Closed;

async fn read_frame(socket: &mut TcpStream) -> Result<Vec<u8>, Closed> {
    let mut len = [0u8; 4];
    let read = async {
        socket.read_exact(&mut len).await.map_err(|_| Closed)?;
        // The upstream server closes the channel on a zero or oversized length too.
        let n = u32::from_be_bytes(len) as usize;
        if n == 0 || n > MAX_CLIENT_FRAME {
            return Err(Closed);
        }
        let mut buf = vec![0u8; n];
        socket.read_exact(&mut buf).await.map_err(|_| Closed)?;
        Ok(buf)
    };
    tokio::time::timeout(IDLE, read).await.map_err(|_| Closed)?
}

async fn write_frame(socket: &mut TcpStream, payload: &[u8]) -> Result<(), Closed> {
    let len = u32::try_from(payload.len()).map_err(|_| Closed)?;
    let mut frame = Vec::with_capacity(4 + payload.len());
    frame.extend_from_slice(&len.to_be_bytes());
    frame.extend_from_slice(payload);
    socket.write_all(&frame).await.map_err(|_| Closed)
}

/// `[Fail]…` / `[Info]…` as the server echoes it: CRLF unless it ends a line already.
fn echo(prefix: &str, message: &str) -> Vec<u8> {
    let end = if message.ends_with('\n') { "" } else { "\r\n" };
    format!("{prefix}{message}{end}").into_bytes()
}

/// Which target a connection is bound to, from the connect key of its handshake.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Binding {
    /// An empty key: only the commands that need no target.
    Unbound,
    /// `any` (the only target) or this phone's key.
    Phone,
}

async fn serve(mut socket: TcpStream, device: Arc<SimDevice>, channel: u32) {
    let _ = socket.set_nodelay(true);
    let mut hello = Vec::with_capacity(HANDSHAKE_LEN);
    hello.extend_from_slice(b"OHOS HDC\0\0\0H");
    hello.extend_from_slice(&channel.to_be_bytes());
    hello.resize(HANDSHAKE_LEN, 0);
    if write_frame(&mut socket, &hello).await.is_err() {
        return;
    }
    let Ok(answer) = read_frame(&mut socket).await else { return };
    if answer.len() < 12 || !answer.starts_with(b"OHOS HDC") {
        return;
    }
    // The key is NUL-terminated inside the 32 bytes after the banner.
    let key_bytes = &answer[12..answer.len().min(HANDSHAKE_LEN)];
    let key_end = key_bytes.iter().position(|b| *b == 0).unwrap_or(key_bytes.len());
    let key = String::from_utf8_lossy(&key_bytes[..key_end]).into_owned();
    let binding = match key.as_str() {
        "" => Binding::Unbound,
        k if k == "any" || k == device.config().serial => Binding::Phone,
        _ => {
            let _ =
                write_frame(&mut socket, &echo("[Fail]", "Not match target founded, check connect-key please")).await;
            // Take the command the client sends anyway before closing: closing on
            // unread bytes resets the connection, and the client would lose the words.
            let _ = tokio::time::timeout(Duration::from_secs(2), read_frame(&mut socket)).await;
            let _ = socket.shutdown().await;
            return;
        }
    };
    let Ok(command) = read_frame(&mut socket).await else { return };
    let end = command.iter().position(|b| *b == 0).unwrap_or(command.len());
    let command = String::from_utf8_lossy(&command[..end]).trim().to_string();
    answer_command(&mut socket, &device, binding, &command).await;
    let _ = socket.shutdown().await;
}

async fn answer_command(socket: &mut TcpStream, device: &Arc<SimDevice>, binding: Binding, command: &str) {
    let serial = device.config().serial.clone();
    let (word, rest) = command.split_once(' ').unwrap_or((command, ""));
    let reply = match (word, rest.trim()) {
        ("list", "targets") => format!("{serial}\n").into_bytes(),
        ("list", "targets -v") => format!("{serial}\t\tUSB\tConnected\tlocalhost\n").into_bytes(),
        ("checkserver", "") => {
            let mut frame = CMD_CHECK_SERVER.to_le_bytes().to_vec();
            frame.extend_from_slice(VERSION.as_bytes());
            frame
        }
        ("version", "") => VERSION.as_bytes().to_vec(),
        ("shell", "") => {
            echo("[Fail]", "the virtual phone's hdc door runs one command per connection; give it: hdc shell \"CMD\"")
        }
        ("shell", line) if binding == Binding::Phone => {
            run_shell(socket, device, line).await;
            return;
        }
        ("shell" | "file" | "install" | "uninstall" | "fport" | "rport" | "hilog" | "jpid" | "bugreport", _) => {
            match binding {
                Binding::Unbound => {
                    echo("[Fail]", "ExecuteCommand need connect-key? please confirm a device by help info")
                }
                Binding::Phone => echo(
                    "[Fail]",
                    &format!(
                        "the virtual phone's hdc door serves `shell` only, not `{word}`; read files with `hdc shell cat FILE`"
                    ),
                ),
            }
        }
        ("tconn", _) => echo("[Info]", "Target is connected, repeat operation"),
        _ => echo("[Fail]", "Unknown command..."),
    };
    let _ = write_frame(socket, &reply).await;
}

/// Runs `line` in the phone's shell and sends what it printed; a fault may drop the
/// connection or never answer. The client leaving stops the command.
async fn run_shell(socket: &mut TcpStream, device: &Arc<SimDevice>, line: &str) {
    // The `hdc` command line quotes an argument with spaces; the daemon's `sh -c`
    // then removes the quotes. One pair around the whole line is that quoting.
    let line = match line.strip_prefix('"').and_then(|l| l.strip_suffix('"')) {
        Some(inner) if !inner.contains('"') => inner.to_string(),
        _ => line.to_string(),
    };
    let cancel = CancelOnDrop(Arc::new(AtomicBool::new(false)));
    let flag = cancel.0.clone();
    let dev = device.clone();
    let mut task = tokio::task::spawn_blocking(move || dev.run_line(&line, Some(flag)));
    let mut probe = [0u8; 256];
    let outcome = loop {
        tokio::select! {
            done = &mut task => break done,
            n = socket.read(&mut probe) => {
                // Nothing more is expected from the client: its leaving cancels.
                if matches!(n, Ok(0) | Err(_)) {
                    return;
                }
            }
        }
    };
    match outcome {
        Ok(LineOutcome::Done(out)) => {
            let mut bytes = out.stdout;
            bytes.extend_from_slice(&out.stderr);
            for chunk in bytes.chunks(OUTPUT_FRAME) {
                if write_frame(socket, chunk).await.is_err() {
                    return;
                }
            }
        }
        Ok(LineOutcome::Drop) => {}
        Ok(LineOutcome::Hang) => {
            // Never answer; wait for the client to give up.
            while !matches!(socket.read(&mut probe).await, Ok(0) | Err(_)) {}
        }
        Err(_) => {
            let _ = write_frame(socket, b"/bin/sh: internal error\n").await;
        }
    }
    drop(cancel);
}
