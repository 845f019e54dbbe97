//! The one way a front door opens a session: the device its settings name (spec,
//! timeout, observer), the persona's tools and limits, and the person and locator
//! the front door lent (`Settings::helpers`), all from one `Settings`. Not how the
//! settings are resolved (`config`) or what a session does once open (`mod.rs`).

use super::Session;
use super::error::{OpenError, SessionError};
use crate::config::Settings;
use codeact_platform::device::Device;

impl Session {
    /// Opens the device `settings` name and a session on it, with the settings'
    /// persona, limits, person and locator: what every front door calls.
    pub fn open(settings: &Settings) -> Result<Self, OpenError> {
        Ok(Self::open_on(settings.open_device()?, settings)?)
    }

    /// The same on a device already in hand (one explore opened to read its name
    /// first, a test's recording device).
    pub fn open_on(device: Box<dyn Device>, settings: &Settings) -> Result<Self, SessionError> {
        let mut session = Self::new(device, settings)?;
        session.set_human(settings.helpers.person.clone());
        session.set_locator(settings.helpers.locator.clone());
        Ok(session)
    }
}
