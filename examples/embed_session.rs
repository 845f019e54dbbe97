//! Embed the runtime: open a device, build a session with a persona's tools and
//! limits, run Rhai snippets, and read what each did (output, actions, completion).
//!
//! cargo run --example embed_session            # on the built-in virtual device
//! cargo run --example embed_session -- 127.0.0.1:5555

use std::time::Duration;

use codeact::config::{Flags, Settings};
use codeact::device::{DeviceSpec, open};
use codeact::session::Session;

fn main() -> anyhow::Result<()> {
    // Each session's engine runs in a worker process: this program, re-executed.
    if let Some(code) = codeact::isolation::serve_if_worker() {
        std::process::exit(code);
    }
    let target = std::env::args().nth(1);
    let flags = Flags { persona: Some("big_agent".into()), ..Flags::default() };
    let settings = Settings::load(None, &flags)?;
    let device = open(&DeviceSpec::parse(Some(target.as_deref().unwrap_or("sim"))), Duration::from_secs(20))?;
    let mut session = Session::open_on(device, &settings)?;

    // Variables and functions persist from one snippet to the next. A snippet is
    // compiled once; `run_fresh` reads ui_state when the snippet first uses it.
    let helper = session.compile(r#"fn row(label) { ui_state.filter(|e| e.text == label) }"#)?;
    session.run_fresh(&helper);
    let result = session.eval(
        r#"
        start_app("com.android.settings");
        refresh();
        let wifi = row("Wi-Fi");
        if wifi.is_empty() { complete(false, "no Wi-Fi row on this screen") }
        print(`Wi-Fi is element ${wifi[0].index}`);
        complete(true, "found it");
        "#,
    );
    print!("{}", result.output);
    for action in &result.actions {
        println!("{:>7.1} ms  {}", action.duration_ms, action.summary());
    }
    match (&result.error, &result.completion) {
        (Some(e), _) => println!("error: {e}"),
        (None, Some(c)) => println!("completed: success={} ({})", c.success, c.reason),
        (None, None) => println!("ended without complete()"),
    }
    Ok(())
}
