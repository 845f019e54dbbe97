//! Typing that is checked: text goes only into a focused text field, and the field
//! is read back afterwards. `input_text` that typed into nothing used to report ok
//! (and `set_text` on a switch toggled it); now both fail and say why. Password
//! fields, which show dots, are not compared. Not here: finding the field
//! (`catalog/selectors.rs`).

use codeact_platform::device::DeviceError;

use super::ToolContext;
use crate::acting::DeviceAct;
use crate::error::ToolError;

/// Types `text` into the field that has focus now, then checks that the field
/// shows it.
pub(crate) fn type_into_focused(c: &mut ToolContext, text: &str) -> Result<(), ToolError> {
    let before = focused_text(c)?;
    let Some((password, _)) = before else { return Err(ToolError::NoFocusedField) };
    c.act(DeviceAct::Type { text, shown: text })?;
    if password || text.is_empty() {
        return Ok(());
    }
    c.settled_screen()?;
    let shown = c.focused_field().map(|f| f.text.clone()).unwrap_or_default();
    // Typing goes in at the cursor: the field holds the text, whatever was there.
    if shown.contains(text) { Ok(()) } else { Err(ToolError::TypedDiffers { typed: text.to_string(), shown }) }
}

/// Whether a text field has focus on the live screen: `(is a password, its text)`.
fn focused_text(c: &mut ToolContext) -> Result<Option<(bool, String)>, DeviceError> {
    c.look()?;
    Ok(c.focused_field().filter(|f| f.actions.set_text).map(|f| (f.password, f.text.clone())))
}
