//! What the benches that start programs share: a free loopback port, and the
//! children (and the adb server) stopped when a bench ends.

use std::process::{Child, Command};

/// Children killed, and the adb server on its port stopped, when dropped.
pub struct Killed(pub Vec<Child>, pub String);

impl Drop for Killed {
    fn drop(&mut self) {
        for child in &mut self.0 {
            let _ = child.kill();
            let _ = child.wait();
        }
        let _ = Command::new("adb").args(["-P", &self.1, "kill-server"]).output();
    }
}

/// A free port on 127.0.0.1.
pub fn free_port() -> Option<u16> {
    std::net::TcpListener::bind("127.0.0.1:0").and_then(|l| l.local_addr()).map(|a| a.port()).ok()
}
