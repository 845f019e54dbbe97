//! `codeact personas`: the built-in personas, or one persona's whole system prompt.

use std::process::ExitCode;

use codeact::persona::Persona;

/// List the built-in personas: their tools and the context they need.
#[derive(clap::Args, Debug)]
pub struct PersonasArgs {
    /// Print the whole system prompt `codeact run` sends with this persona (a
    /// built-in name or a .toml file).
    #[arg(long, value_name = "PERSONA")]
    prompt: Option<String>,
}

impl PersonasArgs {
    pub fn print(self) -> anyhow::Result<ExitCode> {
        if let Some(name) = self.prompt {
            let persona = Persona::load(&name)?;
            let script_tools = codeact::tools::script_tools::load(&persona.tools_from, persona.dir.as_deref())?;
            codeact::outln!("{}", codeact::agent::prompt::system(&persona, None, &script_tools.describe()));
            return Ok(ExitCode::SUCCESS);
        }
        for p in Persona::built_in() {
            codeact::outln!(
                "{}: {}\n  tools:   {}\n  context: {}",
                p.name,
                p.description,
                p.tools.join(", "),
                p.context.join(", ")
            );
        }
        Ok(ExitCode::SUCCESS)
    }
}
