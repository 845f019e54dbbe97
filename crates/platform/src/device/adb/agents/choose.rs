//! Which way a look or a gesture goes on an Android phone: through an on-device
//! agent when `--observe` allows one and the phone has it (looked for once, at the
//! first use: the Portal, then uiautomator2's server), else `uiautomator dump` and
//! `input` commands. A tree from an agent that is empty, has no sizes, or does not
//! show the app in front (the stale-cache and empty-window faults of long-lived
//! accessibility clients) is replaced by a dump; a uiautomator2 server that stopped
//! listening is looked for (and started) once more, and an agent that fails is set
//! aside for the rest of the session. Either way the observation says so
//! (`fallback`). Not the agents' protocols (`u2.rs`, `portal.rs`).

use crate::device::adb::AdbError;
use std::time::Duration;

use serde_json::{Value, json};

use super::portal::{PortalFound, gesture_request};
use super::u2::U2Found;
use crate::device::adb::agent_state::{AgentState, KeyboardAct, ObserveWith, PORTAL_NAME, U2_NAME, U2Server};
use crate::device::adb::device::AdbDevice;
use crate::device::errors::DeviceError;
use crate::device::errors::agent::AgentError;
use crate::device::observation::Observation;

/// How to put uiautomator2's server on a phone (never done here).
const U2_FIX: &str =
    "put it on the phone with `python -m uiautomator2 init` (pip install uiautomator2) or any uiautomator2 session";
/// How to turn the Portal on (never done here).
const PORTAL_FIX: &str = "install and enable it with `droidrun setup` (pip install droidrun), or turn on its accessibility service: `adb shell settings put secure enabled_accessibility_services com.droidrun.portal/com.droidrun.portal.service.DroidrunAccessibilityService`";

impl AdbDevice {
    /// The agent state to act on, looked for at its first use. An agent asked for
    /// by name that is not there is an error (and is looked for again next time).
    fn agent_in_hand(&mut self) -> Result<AgentState, DeviceError> {
        let state = std::mem::take(&mut self.agent);
        if !matches!(state, AgentState::Unprobed) {
            return Ok(state);
        }
        let asked = self.observe_with;
        if matches!(asked, ObserveWith::Auto | ObserveWith::Portal) {
            match self.portal_find() {
                Ok(PortalFound::Running(server)) => return Ok(AgentState::Portal(server)),
                Ok(PortalFound::Absent(why)) if asked == ObserveWith::Portal => {
                    return Err(self.missing(PORTAL_NAME, why, PORTAL_FIX));
                }
                Ok(PortalFound::Absent(_)) => {}
                Err(source) if asked == ObserveWith::Portal => {
                    return Err(DeviceError::Adb(AdbError::Agent {
                        device: self.name.clone(),
                        agent: PORTAL_NAME,
                        op: "reach".into(),
                        source,
                    }));
                }
                Err(e) => {
                    return Ok(AgentState::SetAside {
                        agent: PORTAL_NAME,
                        why: format!("it could not be reached: {}", chain(&e)),
                    });
                }
            }
        }
        if !matches!(asked, ObserveWith::Auto | ObserveWith::U2) {
            return Ok(AgentState::Absent);
        }
        match self.u2_find() {
            Ok(U2Found::Running(server)) => Ok(AgentState::U2(server)),
            Ok(U2Found::Absent(why)) if asked == ObserveWith::U2 => Err(self.missing(U2_NAME, why, U2_FIX)),
            Ok(U2Found::Absent(_)) => Ok(AgentState::Absent),
            Err(source) if asked == ObserveWith::U2 => Err(DeviceError::Adb(AdbError::Agent {
                device: self.name.clone(),
                agent: U2_NAME,
                op: "start".into(),
                source,
            })),
            Err(e) => {
                Ok(AgentState::SetAside { agent: U2_NAME, why: format!("it could not be started: {}", chain(&e)) })
            }
        }
    }

    fn missing(&self, agent: &'static str, why: String, fix: &'static str) -> DeviceError {
        DeviceError::Adb(AdbError::AgentMissing {
            device: self.name.clone(),
            asked: self.observe_with.name(),
            agent,
            why,
            fix,
        })
    }

    /// One look, the way `--observe` and the phone allow.
    pub(in crate::device::adb) fn observe_chosen(&mut self) -> Result<Observation, DeviceError> {
        let mut state = self.agent_in_hand()?;
        let (agent, seen) = match &mut state {
            AgentState::U2(server) => (U2_NAME, self.observe_retrying(server)),
            AgentState::Portal(server) => (PORTAL_NAME, self.observe_with_portal(server)),
            AgentState::SetAside { agent, why } => {
                let note = format!("{agent} is set aside ({why})");
                let seen = self.observe_screen().map(|mut dumped| {
                    dumped.fallback = Some(note);
                    dumped
                });
                self.agent = state;
                return seen;
            }
            AgentState::Absent | AgentState::Unprobed => {
                self.agent = state;
                return self.observe_screen();
            }
        };
        let seen = match seen {
            Ok(seen) => match sparse(&seen) {
                None => Ok(seen),
                Some(why) => self.observe_screen().map(|mut dumped| {
                    dumped.fallback = Some(format!("{agent} returned {why}; this look is uiautomator dump's"));
                    dumped
                }),
            },
            Err(DeviceError::Adb(AdbError::Agent { source, .. })) => {
                let why = format!("it failed: {}", chain(&source));
                let note = format!("{agent} is set aside ({why}); uiautomator dump from now on");
                state = AgentState::SetAside { agent, why };
                self.observe_screen().map(|mut dumped| {
                    dumped.fallback = Some(note);
                    dumped
                })
            }
            // The phone itself failed (its state commands): no fault of the agent's.
            Err(other) => Err(other),
        };
        self.agent = state;
        seen
    }

    /// Runs a gesture through the agent when there is one: `None` means there is
    /// none, or it has no such gesture (use `input`). A uiautomator2 server that
    /// stopped listening is set aside and the gesture goes to `input` (nothing was
    /// done); any other failure is an error, as the gesture may have happened.
    pub(in crate::device::adb) fn gesture_through_agent(
        &mut self,
        op: &str,
        method: &str,
        params: Value,
        takes: Duration,
    ) -> Option<Result<(), DeviceError>> {
        let mut state = match self.agent_in_hand() {
            Ok(state) => state,
            Err(e) => return Some(Err(e)),
        };
        let failed = |device: &Self, agent, source| {
            Some(Err(DeviceError::Adb(AdbError::Agent { device: device.name.clone(), agent, op: op.into(), source })))
        };
        let done = match &mut state {
            AgentState::U2(server) => match self.call_retrying(server, method, params, takes) {
                Ok(Value::Bool(false)) => Some(Err(DeviceError::Command {
                    device: self.name.clone(),
                    op: op.into(),
                    output: format!("{U2_NAME} answered false to {method}"),
                })),
                Ok(_) => Some(Ok(())),
                Err(e @ AgentError::NotListening { .. }) => {
                    state = AgentState::SetAside { agent: U2_NAME, why: format!("it stopped: {}", chain(&e)) };
                    None
                }
                Err(source) => failed(self, U2_NAME, source),
            },
            AgentState::Portal(server) => match gesture_request(method, &params) {
                None => None,
                Some((path, body)) => match self.portal_gesture(server, path, body, takes) {
                    Ok(Some(())) => Some(Ok(())),
                    Ok(None) => None,
                    Err(e @ AgentError::NotListening { .. }) => {
                        state = AgentState::SetAside { agent: PORTAL_NAME, why: format!("it stopped: {}", chain(&e)) };
                        None
                    }
                    Err(source) => failed(self, PORTAL_NAME, source),
                },
            },
            _ => None,
        };
        self.agent = state;
        done
    }
}

impl AdbDevice {
    /// Types or clears through the agent: the Portal's keyboard while it is the
    /// phone's input method, uiautomator2's server by pasting (and clearing) the
    /// focused field. `None` when neither can (nothing was typed: the usual way
    /// then). An agent that stopped listening or refuses its token is set aside
    /// (nothing was typed either); any other failure is an error, as some of the
    /// text may be in.
    pub(in crate::device::adb) fn keyboard_through_agent(
        &mut self,
        op: &str,
        act: KeyboardAct<'_>,
    ) -> Option<Result<(), DeviceError>> {
        let mut state = match self.agent_in_hand() {
            Ok(state) => state,
            Err(e) => return Some(Err(e)),
        };
        let failed = |device: &Self, agent, source| {
            Some(Err(DeviceError::Adb(AdbError::Agent { device: device.name.clone(), agent, op: op.into(), source })))
        };
        let done = match &mut state {
            AgentState::U2(server) => {
                let typed = match act {
                    KeyboardAct::Type(text) => self.u2_type(server, text),
                    KeyboardAct::Clear => self.u2_call(server, "clearInputText", json!([]), Duration::ZERO).map(drop),
                };
                match typed {
                    Ok(()) => Some(Ok(())),
                    Err(e @ AgentError::NotListening { .. }) => {
                        state = AgentState::SetAside { agent: U2_NAME, why: format!("it stopped: {}", chain(&e)) };
                        None
                    }
                    Err(source) => failed(self, U2_NAME, source),
                }
            }
            AgentState::Portal(server) => match self.portal_keyboard(server, act) {
                Ok(true) => Some(Ok(())),
                Ok(false) => None,
                Err(e @ (AgentError::NotListening { .. } | AgentError::Unauthorized)) => {
                    state = AgentState::SetAside { agent: PORTAL_NAME, why: format!("it failed: {}", chain(&e)) };
                    None
                }
                Err(source) => failed(self, PORTAL_NAME, source),
            },
            _ => None,
        };
        self.agent = state;
        done
    }

    /// A screenshot from the Portal when it is the agent and takes them: `None`
    /// otherwise, or when it fails or is not a whole PNG of a `screen`-sized
    /// screen (a read: `screencap` then does it; a Portal whose screenshot failed
    /// is not asked for one again).
    pub(in crate::device::adb) fn screenshot_through_agent(&mut self, screen: (u32, u32)) -> Option<Vec<u8>> {
        let mut state = self.agent_in_hand().ok()?;
        let png = match &mut state {
            AgentState::Portal(server) if server.screenshots => {
                let taken = self.portal_screenshot(server).ok().filter(|png| self.checked_png(png, screen).is_ok());
                server.screenshots = taken.is_some();
                taken
            }
            _ => None,
        };
        self.agent = state;
        png
    }

    /// The server again after it stopped listening (another client's run of it
    /// ended, or it crashed): looked for, and started, once — as uiautomator2's
    /// own client does.
    fn u2_again(&mut self) -> Option<U2Server> {
        match self.u2_find() {
            Ok(U2Found::Running(server)) => Some(server),
            _ => None,
        }
    }

    fn observe_retrying(&mut self, server: &mut U2Server) -> Result<Observation, DeviceError> {
        let seen = self.observe_with_u2(server);
        let stopped =
            matches!(&seen, Err(DeviceError::Adb(AdbError::Agent { source: AgentError::NotListening { .. }, .. })));
        match stopped.then(|| self.u2_again()).flatten() {
            Some(again) => {
                *server = again;
                self.observe_with_u2(server)
            }
            None => seen,
        }
    }

    fn call_retrying(
        &mut self,
        server: &mut U2Server,
        method: &str,
        params: Value,
        takes: Duration,
    ) -> Result<Value, AgentError> {
        let done = self.u2_call(server, method, params.clone(), takes);
        let stopped = matches!(done, Err(AgentError::NotListening { .. }));
        match stopped.then(|| self.u2_again()).flatten() {
            Some(again) => {
                *server = again;
                self.u2_call(server, method, params, takes)
            }
            None => done,
        }
    }
}

/// An error and its causes on one line.
fn chain(e: &AgentError) -> String {
    codeact_base::error_text::full_message(e)
}

/// Why a tree from an agent cannot be trusted, if it cannot: no elements, no
/// element with a size, or none of the app in front.
pub(super) fn sparse(seen: &Observation) -> Option<String> {
    let elements = &seen.ui.elements;
    if elements.is_empty() {
        return Some("an empty tree".into());
    }
    if elements.iter().all(|e| e.bounds.right <= e.bounds.left || e.bounds.bottom <= e.bounds.top) {
        return Some("a tree in which nothing has a size".into());
    }
    let front = seen.phone.package.as_str();
    if !front.is_empty() && !elements.iter().any(|e| e.package == front) {
        let mut shown: Vec<&str> = elements.iter().map(|e| e.package.as_str()).filter(|p| !p.is_empty()).collect();
        shown.sort_unstable();
        shown.dedup();
        let shown = if shown.is_empty() { "no app".to_string() } else { shown.join(", ") };
        return Some(format!("a stale tree ({shown}, while {front} is in front)"));
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    fn look(xml: &str, front: &str) -> Observation {
        let ui = crate::ui::parse(xml.as_bytes(), (1080, 2400)).expect("a tree");
        let phone = crate::device::observation::PhoneState { package: front.into(), ..Default::default() };
        Observation { ui, phone, screen: (1080, 2400), ..Default::default() }
    }

    const SETTINGS: &str = r#"<?xml version='1.0' encoding='UTF-8' standalone='yes' ?><hierarchy rotation="0"><node index="0" text="Wi-Fi" resource-id="" class="android.widget.TextView" package="com.android.settings" content-desc="" checkable="false" checked="false" clickable="true" enabled="true" focusable="true" focused="false" scrollable="false" long-clickable="false" password="false" selected="false" bounds="[0,100][1080,200]" /></hierarchy>"#;

    #[test]
    fn empty_sizeless_and_stale_trees_are_not_trusted() {
        assert_eq!(sparse(&look(SETTINGS, "com.android.settings")), None);
        assert_eq!(sparse(&look(SETTINGS, "")), None, "no app in front to compare with");
        let empty = "<?xml version='1.0' encoding='UTF-8' standalone='yes' ?>\r\n<hierarchy rotation=\"0\" />";
        assert_eq!(sparse(&look(empty, "com.android.settings")).as_deref(), Some("an empty tree"));
        let sizeless = SETTINGS.replace("[0,100][1080,200]", "[0,0][0,0]");
        assert!(sparse(&look(&sizeless, "com.android.settings")).is_some_and(|w| w.contains("nothing has a size")));
        let stale = sparse(&look(SETTINGS, "com.example.notes")).unwrap_or_default();
        assert!(stale.contains("stale tree (com.android.settings, while com.example.notes is in front)"), "{stale}");
    }
}
