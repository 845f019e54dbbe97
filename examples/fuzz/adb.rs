//! Fuzz targets for the ADB wire: our client, direct and through a server, against a
//! loopback peer that answers fuzzed bytes (`adb-client`), and the virtual phone's
//! ADB server fed fuzzed requests (`adb-sim`). `EvilPeer` serves HarmonyOS's targets too.

use std::io::{Read, Write};
use std::net::{TcpListener, TcpStream};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use codeact::device::adb::transport::{Deadline, DirectConnection, ServerConnection};

use crate::*;

/// A loopback peer that answers each connection with the next fuzzed bytes.
pub(crate) struct EvilPeer {
    pub(crate) addr: String,
    pub(crate) reply: Arc<std::sync::Mutex<Vec<u8>>>,
    stop: Arc<AtomicBool>,
}

impl EvilPeer {
    pub(crate) fn start() -> std::io::Result<Self> {
        let listener = TcpListener::bind("127.0.0.1:0")?;
        let addr = listener.local_addr()?.to_string();
        let reply = Arc::new(std::sync::Mutex::new(Vec::new()));
        let stop = Arc::new(AtomicBool::new(false));
        let (r, s) = (reply.clone(), stop.clone());
        std::thread::spawn(move || {
            for stream in listener.incoming() {
                if s.load(Ordering::Relaxed) {
                    break;
                }
                let Ok(mut stream) = stream else { continue };
                let bytes = r.lock().map(|b| b.clone()).unwrap_or_default();
                let _ = stream.set_read_timeout(Some(Duration::from_millis(20)));
                let mut sink = [0u8; 4096];
                let _ = stream.read(&mut sink);
                let _ = stream.write_all(&bytes);
                // Read whatever the client says next, then close.
                let _ = stream.read(&mut sink);
            }
        });
        Ok(Self { addr, reply, stop })
    }
}

impl Drop for EvilPeer {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::Relaxed);
        let _ = TcpStream::connect(&self.addr);
    }
}

pub(crate) fn fuzz_adb_client(rng: &mut Rng, budget: Duration, findings: &std::path::Path) -> Stats {
    let Ok(peer) = EvilPeer::start() else {
        return Stats { execs: 0, elapsed: Duration::ZERO, corpus: 0, note: ", no loopback".into() };
    };
    let cnxn = adb_wire::message::encode(
        adb_wire::message::A_CNXN,
        0x0100_0001,
        256 * 1024,
        b"device::ro.product.model=fuzz;features=shell_v2",
    );
    let mut okay = adb_wire::message::encode(adb_wire::message::A_OKAY, 1, 1, b"");
    let mut shell = cnxn.clone();
    shell.extend_from_slice(&okay);
    shell.extend(adb_wire::message::encode(adb_wire::message::A_WRTE, 1, 1, &adb_wire::shell_v2::packet(1, b"hi")));
    okay.clear();
    let corpus = vec![
        cnxn,
        shell,
        b"OKAY0024emulator-5554\tdevice\nabc\tdevice\n".to_vec(),
        b"OKAYOKAYhello".to_vec(),
        b"FAIL0010device not found".to_vec(),
    ];
    let dict: &[&[u8]] =
        &[b"OKAY", b"FAIL", b"CNXN", b"OPEN", b"WRTE", b"CLSE", b"AUTH", b"ffff", b"0000", b"\xff\xff\xff\xff"];
    let reply = peer.reply.clone();
    let addr = peer.addr.clone();
    let mut turn = 0u64;
    drive("adb-client", rng, budget, corpus, dict, findings, |input| {
        if let Ok(mut r) = reply.lock() {
            *r = input.to_vec();
        }
        turn += 1;
        let deadline = || Deadline::after(Duration::from_millis(200));
        match turn % 3 {
            0 => match DirectConnection::connect(&addr, deadline()) {
                Ok(mut c) => {
                    format!("direct {:?}", c.shell("echo hi", deadline()).map(|o| o.stdout.len().min(8)).is_ok())
                }
                Err(e) => {
                    format!("direct err {}", e.to_string().split_whitespace().take(3).collect::<Vec<_>>().join(" "))
                }
            },
            1 => match ServerConnection::list(&addr, deadline()) {
                Ok(list) => format!("list {}", list.len().min(8)),
                Err(e) => {
                    format!("list err {}", e.to_string().split_whitespace().take(3).collect::<Vec<_>>().join(" "))
                }
            },
            _ => match ServerConnection::new(&addr, "emulator-5554").shell("echo hi", deadline()) {
                Ok(o) => format!("shell {}", o.stdout.len().min(8)),
                Err(e) => {
                    format!("shell err {}", e.to_string().split_whitespace().take(3).collect::<Vec<_>>().join(" "))
                }
            },
        }
    })
}

pub(crate) fn fuzz_adb_sim(rng: &mut Rng, budget: Duration, findings: &std::path::Path) -> Stats {
    let sim = match codeact_sim::VirtualDevice::start(codeact_sim::SimConfig::default()) {
        Ok(sim) => sim,
        Err(e) => return Stats { execs: 0, elapsed: Duration::ZERO, corpus: 0, note: format!(", no sim: {e}") },
    };
    let addr = sim.addr();
    use adb_wire::message::{A_CNXN, A_OKAY, A_OPEN, A_WRTE, encode};
    let cnxn = encode(A_CNXN, 0x0100_0001, 256 * 1024, b"host::features=shell_v2");
    let mut open_shell = cnxn.clone();
    open_shell.extend(encode(A_OPEN, 1, 0, b"shell,v2,raw:echo hi\0"));
    let mut sync = cnxn.clone();
    sync.extend(encode(A_OPEN, 2, 0, b"sync:\0"));
    sync.extend(encode(A_WRTE, 2, 1, b"STAT\x0c\0\0\0/sdcard/a.txt"));
    let mut okay = open_shell.clone();
    okay.extend(encode(A_OKAY, 1, 1, b""));
    let corpus = vec![cnxn, open_shell, sync, okay];
    let dict: &[&[u8]] =
        &[b"shell:", b"sync:", b"exec:", b"STAT", b"SEND", b"RECV", b"DATA", b"DONE", b"\0", b"\xff\xff\xff\xff"];
    let mut stats = drive("adb-sim", rng, budget, corpus, dict, findings, |input| {
        let Ok(mut stream) = TcpStream::connect(addr) else { return "no connect".into() };
        let _ = stream.set_read_timeout(Some(Duration::from_millis(30)));
        let _ = stream.set_write_timeout(Some(Duration::from_millis(100)));
        let _ = stream.write_all(input);
        let mut buf = vec![0u8; 64 * 1024];
        let got = stream.read(&mut buf).unwrap_or(0);
        format!("{}", got.min(64) / 8)
    });
    // The server must still serve a real client after all that.
    let alive = DirectConnection::connect(&addr.to_string(), Deadline::after(Duration::from_secs(5)))
        .and_then(|mut c| c.shell("echo alive", Deadline::after(Duration::from_secs(5))));
    stats.note = match alive {
        Ok(o) if o.stdout_text().contains("alive") => ", the sim still answers".into(),
        other => {
            PANICS.fetch_add(1, Ordering::Relaxed);
            format!(", THE SIM STOPPED ANSWERING: {other:?}")
        }
    };
    stats
}
