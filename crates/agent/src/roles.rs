//! The roles of a run and the model each one asks: the actor writes the code, the
//! planner plans (`--strategy plan`, `hierarchical`), the reflector critiques
//! progress. Each role may have its own model (`[llm.planner]`, `--planner-model`):
//! a cheap model can act while a strong one plans. The trajectory and the summary
//! count every role's calls and tokens. Not here: what each role is asked (the
//! strategy files and `reflect.rs`).

use std::collections::BTreeMap;

use serde::Serialize;

use codeact_runtime::llm::{LlmClient, Usage};

/// Who asks the model.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Role {
    Actor,
    Planner,
    Reflector,
}

impl Role {
    pub fn as_str(self) -> &'static str {
        match self {
            Role::Actor => "actor",
            Role::Planner => "planner",
            Role::Reflector => "reflector",
        }
    }
}

/// The models a run asks: the actor's, and the planner's and reflector's when they
/// differ (otherwise the actor's answers for them).
pub struct Models {
    pub actor: LlmClient,
    pub planner: Option<LlmClient>,
    pub reflector: Option<LlmClient>,
}

impl Models {
    /// One model for every role.
    pub fn single(actor: LlmClient) -> Self {
        Self { actor, planner: None, reflector: None }
    }

    /// The client `role` asks.
    pub fn client(&self, role: Role) -> &LlmClient {
        let own = match role {
            Role::Actor => None,
            Role::Planner => self.planner.as_ref(),
            Role::Reflector => self.reflector.as_ref(),
        };
        own.unwrap_or(&self.actor)
    }
}

/// One role's share of a run.
#[derive(Debug, Clone, Default, Serialize, serde::Deserialize)]
pub struct RoleUsage {
    pub model: String,
    pub calls: usize,
    pub tokens: Usage,
}

/// Every role's calls and tokens, by role name.
pub type RoleUsages = BTreeMap<&'static str, RoleUsage>;
