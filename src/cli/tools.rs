//! `codeact tools`: the catalog, as the LLM reads it or as the README's table.

use std::process::ExitCode;

use codeact::persona::Persona;

/// List the tools scripts can call, with the doc line the LLM reads.
#[derive(clap::Args, Debug)]
pub struct ToolsArgs {
    /// Only the tools this persona allows.
    #[arg(long)]
    persona: Option<String>,
    /// Print a Markdown table (as in the README) instead of a list.
    #[arg(long)]
    markdown: bool,
}

impl ToolsArgs {
    pub fn print(self) -> anyhow::Result<ExitCode> {
        let persona = self.persona.as_deref().map(Persona::load).transpose()?;
        let allowed = |t: &str| persona.as_ref().is_none_or(|p| p.allows(t));
        if self.markdown {
            codeact::out!("{}", codeact::tools::markdown_table(&allowed));
        } else {
            codeact::out!("{}", codeact::tools::describe(&allowed));
        }
        Ok(ExitCode::SUCCESS)
    }
}
