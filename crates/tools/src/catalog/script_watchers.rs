//! The script's own watchers (`watch(sel, fn)`) tried on a screen: they locate like
//! a tool does — a selector over the tree, a picture on the screenshot — so they sit
//! with the tools, and the context is lent [`fire`] when the tools are installed.
//! Not when watchers may fire or the built-in ones (`context/watching.rs`), nor
//! what a blocker is (`guard/watchers.rs`).

use crate::context::ToolContext;
use crate::error::ToolError;
use crate::naming::described as described_el;
use codeact_platform::device::Observation;

/// The first of the script's watchers whose selector matches on `obs` (its tree
/// first; a picture sought on the screenshot only when the tree part found
/// nothing: the cost of an image watcher is one look per action) is due.
pub(crate) fn fire(c: &mut ToolContext, obs: &Observation) -> Result<(), ToolError> {
    let watchers = c.watch_state().script_watchers().to_vec();
    let mut due = None;
    for (name, sel) in &watchers {
        let in_tree = match (sel.locates(), sel.has_tree_part()) {
            (false, _) => sel.find_all(&obs.ui),
            (true, true) => sel.find_in_tree(&obs.ui),
            (true, false) => Vec::new(),
        };
        if let Some(e) = in_tree.first() {
            due = Some((name.clone(), e.id, described_el(e)));
            break;
        }
        if let Some(want) = &sel.image
            && let Ok(place) = crate::locating::image_lookup::seek_picture(c, want)?
        {
            let seen = crate::locating::add_picture(c, obs, want, &place);
            let e = seen.ui.elements.last().map(|e| (e.id, described_el(e)));
            if let Some((id, what)) = e {
                due = Some((name.clone(), id, what));
                break;
            }
        }
    }
    let Some((name, id, what)) = due else { return Ok(()) };
    let element = c.element_value(id);
    Err(c.watcher_due(&name, element, format!("matched {what}; its function runs first")))
}
