//! A call of the tool catalog made through the session — the typed `ToolCall`s a
//! door, an MCP client or a model's function call makes — and the screen it is
//! made on. Each runs as the line of Rhai it is (`ToolCall::script`), in the
//! same sandbox, under the same limits, gate and recorder as a script. Not what a
//! call is (`codeact_tools::call`), the screens it may be made on (`screen.rs`)
//! nor the session's other doors (`mod.rs`).

use super::Session;
use super::screen::Screen;
use codeact_engine::sandbox::RunResult;
use codeact_tools::call::ToolCall;

impl Session {
    /// Runs `calls` in order as the one script they make (`ToolCall::script`), on
    /// `screen`: a door's, a client's or a model's acts go through the same sandbox,
    /// limits, gate and recorder as a script's.
    pub fn call(&mut self, calls: &[ToolCall], screen: Screen<'_>) -> RunResult {
        self.on(screen);
        self.run_in_worker(|worker, host| worker.eval(&ToolCall::script(calls), host))
    }

    /// Runs `call` as an expression on `screen`, its value kept: a model's function
    /// call, an MCP client's gesture tool, answered with what the call returned.
    pub fn call_value(&mut self, call: &ToolCall, screen: Screen<'_>) -> RunResult {
        self.on(screen);
        self.run_in_worker(|worker, host| worker.eval(&call.expr(), host))
    }

    /// Runs `call` on the phone as it is now, its value as JSON text (a door that
    /// answers its client in JSON: a found element, a command's output).
    pub fn call_json(&mut self, call: &ToolCall) -> RunResult {
        self.eval_json(&call.expr())
    }

    fn on(&mut self, screen: Screen<'_>) {
        match screen {
            Screen::Live => self.on_the_live_screen(),
            Screen::Seen(seen) => self.written_for(seen),
            Screen::JustRead(seen) => {
                self.written_for(seen);
                self.tools().offer_read(seen.clone());
            }
        }
    }
}
