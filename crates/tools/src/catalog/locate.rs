//! `locate(description)`: where the session's vision model sees something the tree
//! cannot say where ("the blue send button"), as an element a script can read and
//! act on. The same lookup `#{ai: ...}` selectors make (`tools/ai_lookup.rs`).

use rhai::{Dynamic, ImmutableString};

use crate::catalog::registry::tool;
use crate::catalog::spec::{Access, ParamKind, ParamSpec, Replay, Role, ToolSpec};
use crate::context::ToolContext;
use crate::context::state::element_map;
use crate::error::ToolError;
use crate::locating::add_point;
use crate::locating::ai_lookup;
use crate::select::MAX_DESCRIPTION_BYTES;

/// The model's point as an element (its `center` is the point), with `confidence`
/// (or `()`), `model`, `cached` and `under` (the tree's element there, or `()`);
/// `()` when the model says it is not on the screen.
fn locate(c: &mut ToolContext, description: &str) -> Result<Dynamic, ToolError> {
    let description = description.trim();
    if description.is_empty() || description.len() > MAX_DESCRIPTION_BYTES {
        return Err(crate::select::SelectorError::BadDescription(
            codeact_base::clip::clip(description, 120).into_owned(),
        )
        .into());
    }
    let obs = c.look()?;
    let Some(point) = ai_lookup::ask(c, &obs, description)? else {
        c.call_record().note_effect(format!("the model says {description:?} is not on the screen"));
        return Ok(Dynamic::UNIT);
    };
    let seen = add_point(c, &obs, description, &point);
    let Some(e) = seen.ui.elements.last() else { return Ok(Dynamic::UNIT) };
    let mut m = element_map(0, e);
    m.insert("index".into(), Dynamic::from(-1_i64));
    m.insert("confidence".into(), point.confidence.map_or(Dynamic::UNIT, Dynamic::from));
    m.insert("model".into(), Dynamic::from(point.model.clone()));
    m.insert("cached".into(), Dynamic::from(point.cached));
    m.insert("under".into(), point.under.as_ref().map_or(Dynamic::UNIT, |u| Dynamic::from(element_map(0, u))));
    Ok(Dynamic::from(m))
}

pub(crate) const LOCATE: ToolSpec = ToolSpec {
    name: "locate",
    params: &[ParamSpec::new("description", ParamKind::Text, "what to find, in a few words: \"the blue send button\"")],
    doc: "Ask the vision model where something is on the screen when the tree cannot say (a canvas, an icon without a label): an element whose center is its point, with confidence and under (the tree's element there), or () when it is not there. Selectors take it too: tap(#{ai: \"the blue send button\"}).",
    access: Access::Reads,
    gates: &[],
    replay: Replay::AsIs,
    role: Role::Kept,
    register: |r| tool!(r, |c, description: ImmutableString| locate(c, &description)),
};
