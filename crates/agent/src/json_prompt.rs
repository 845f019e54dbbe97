//! The words of `--actions json`: the functions a run offers, its system prompt,
//! what the model is told when it called nothing, and a past step as calls and
//! their `tool` messages. Text and schemas only; running the calls is
//! `json_actions.rs`.

use codeact_record::trajectory::StepRecord;
use codeact_runtime::llm::{FunctionTool, Message, Role, ToolTurn};
use codeact_runtime::persona::Persona;
use codeact_tools::json_calls::{self, Finish};
use codeact_tools::script_tools::ScriptTools;

/// What the model is told when its reply called no function.
pub const NO_CALL: &str = "Your reply called no function, so nothing ran. Call one or more of the functions offered \
     (complete when the task is done).";

/// How the newest message ends in this format.
pub const ASK: &str = "Call the functions for this screen.";

/// The functions a run offers: the persona's tools JSON can call, its tools
/// written in Rhai, and `complete` (a run must be able to end).
pub fn offered(persona: &Persona, script_tools: &ScriptTools) -> Vec<FunctionTool> {
    let allowed = |t: &str| t == "complete" || persona.allows(t);
    json_calls::gesture_tools(&allowed, Finish::Offered)
        .into_iter()
        .chain(json_calls::script_gesture_tools(script_tools))
        .map(|g| FunctionTool { name: g.name, description: g.description, parameters: g.input_schema })
        .collect()
}

/// The system prompt: the persona's description and the rules of answering by
/// function calls (the functions themselves go in the request's `tools`).
pub fn system(persona: &Persona, coordinate_scale: Option<u32>) -> String {
    let has = |t: &str| persona.allows(t);
    let mut out = format!(
        "You operate an Android phone by calling functions. {}\n\nHow to answer:\n\
         - Call one or more of the functions offered. Several calls in one reply run in order; one that fails \
         stops the rest.\n\
         - Each turn shows the current screen: the app, then one line per element: index, class, #id, \"text\", \
         desc=, [flags], then @x,y, its centre (a list that scrolls gives its bounds); a line without a class is \
         text only.\n\
         - After a call that changes the screen, stop calling: the next turn shows the new screen.\n",
        persona.description.trim()
    );
    if let Some(n) = coordinate_scale {
        out.push_str(&super::told::coordinate_rule(n));
    }
    if has("ask_user") {
        out.push_str(
            "- What only the person knows comes from ask_user; a login or CAPTCHA is for take_over; passwords are \
             typed with type_secret, never as text.\n",
        );
    }
    out.push_str(
        "- The runtime asks the person before sensitive actions (pay, buy, transfer, delete, uninstall...); if one \
         is refused, do not try it another way: call complete with success false.\n\
         - When the task is done, call complete with success true and what was achieved; if it cannot be done, \
         with success false and why.\n",
    );
    out.push_str(&super::example::calls(&has));
    out
}

/// A past step in this format: the assistant's calls and one `tool` message per
/// call (what came of it); the notes the model is told go in the next user message.
pub fn past_turn(step: &StepRecord, reply: String, messages: &mut Vec<Message>) {
    let calls = step.calls.clone();
    let results: Vec<Message> = calls
        .iter()
        .map(|c| Message {
            tool: Some(ToolTurn::Result { call_id: c.id.clone() }),
            ..Message::text(Role::Tool, if c.result.is_empty() { NOT_RUN.to_string() } else { c.result.clone() })
        })
        .collect();
    messages.push(Message { tool: Some(ToolTurn::Calls(calls)), ..Message::text(Role::Assistant, reply) });
    messages.extend(results);
}

/// The result of a call that never ran (a run stopped in its step).
const NOT_RUN: &str = "Not run.";
