//! A person in the loop, as tools: `ask_user` (a question, answered by the
//! terminal, an answers file or a callback), `take_over` (the person acts on the
//! phone; the script goes on with a fresh screen) and `type_secret` (types a
//! secret nobody's script or model sees). The snippet's clock stops while a person
//! answers.

use rhai::ImmutableString;

use crate::acting::DeviceAct;
use crate::catalog::registry::tool;
use crate::catalog::spec::{Access, Gate, ParamKind, ParamSpec, Replay, Role, ToolSpec};
use crate::context::ToolContext;
use crate::error::ToolError;
use crate::human::HumanRequest;

/// The most of a question or a reason a person is shown.
const QUESTION_BYTES: usize = 2000;

fn ask(c: &mut ToolContext, question: &str) -> Result<String, ToolError> {
    let question = &question[..question.floor_char_boundary(QUESTION_BYTES)];
    let answer = c
        .ask_person(&HumanRequest::Question { question })
        .ok_or(ToolError::NobodyToAsk { kind: "ask_user", table: "ask" })?;
    let answer = answer.trim().to_string();
    c.call_record().note_effect(format!("the person answered {answer:?}"));
    Ok(answer)
}

fn take_over(c: &mut ToolContext, reason: &str) -> Result<String, ToolError> {
    let reason = &reason[..reason.floor_char_boundary(QUESTION_BYTES)];
    let note = c
        .ask_person(&HumanRequest::TakeOver { reason })
        .ok_or(ToolError::NobodyToAsk { kind: "take_over", table: "take_over" })?;
    // The person may have changed anything: ui_state is the screen as they left it.
    let now = c.refresh()?;
    let note = note.trim().to_string();
    c.call_record().note_effect(format!("the person handed the phone back ({note:?}) on {}", now.phone.activity));
    Ok(note)
}

fn type_secret(c: &mut ToolContext, name: &str) -> Result<(), ToolError> {
    let valid = !name.is_empty() && name.len() <= 64 && name.chars().all(|ch| ch.is_ascii_alphanumeric() || ch == '_');
    if !valid {
        return Err(ToolError::BadSecretName(name.to_string()));
    }
    let store = &c.options().secrets;
    let Some(value) = store.get(name) else {
        return Err(ToolError::NoSecret {
            name: name.to_string(),
            env: codeact_base::secrets::SecretStore::env_name(name),
            file: store.file().map(|f| f.display().to_string()),
        });
    };
    c.look()?;
    let Some(field) = c.focused_field().filter(|f| f.actions.set_text).cloned() else {
        return Err(ToolError::NoFocusedField);
    };
    // The gate judges the focused field and "the secret NAME", never the value.
    let shown = format!("the secret {name}");
    c.act(DeviceAct::Type { text: &value, shown: &shown })?;
    if field.password {
        return Ok(());
    }
    c.settled_screen()?;
    let shown = c.focused_field().is_some_and(|f| f.text.contains(value.as_str()));
    if shown { Ok(()) } else { Err(ToolError::SecretNotTyped(name.to_string())) }
}

pub(crate) const ASK_USER: ToolSpec = ToolSpec {
    name: "ask_user",
    params: &[ParamSpec::new("question", ParamKind::Text, "what to ask the person")],
    doc: "Ask the person running this a question and return their answer (a code, a choice); fails when nobody can answer.",
    access: Access::Acts,
    gates: &[],
    replay: Replay::AsIs,
    role: Role::Kept,
    register: |r| tool!(r, |c, question: ImmutableString| ask(c, &question)),
};

pub(crate) const TAKE_OVER: ToolSpec = ToolSpec {
    name: "take_over",
    params: &[ParamSpec::new("reason", ParamKind::Text, "why the person must act (a login, a CAPTCHA)")],
    doc: "Hand the phone to the person (a login, a CAPTCHA) and wait; ui_state is then the screen they left; returns their note.",
    access: Access::Acts,
    gates: &[],
    replay: Replay::AsIs,
    role: Role::Kept,
    register: |r| tool!(r, |c, reason: ImmutableString| take_over(c, &reason)),
};

pub(crate) const TYPE_SECRET: ToolSpec = ToolSpec {
    name: "type_secret",
    params: &[ParamSpec::new("name", ParamKind::Text, "the secret's name (CODEACT_SECRET_<NAME> or the secrets file)")],
    doc: "Type the secret called name (from $CODEACT_SECRET_NAME or the secrets file) into the focused field; its value is never shown.",
    access: Access::Acts,
    gates: &[Gate::Text],
    replay: Replay::AsIs,
    role: Role::Kept,
    register: |r| tool!(r, |c, name: ImmutableString| type_secret(c, &name)),
};
