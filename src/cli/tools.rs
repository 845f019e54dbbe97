//! `codeact tools`: the catalog, as the LLM reads it, as the README's table, or as
//! JSON with every parameter typed (for programs that drive codeact).

use std::process::ExitCode;

use codeact::persona::Persona;

/// List the tools scripts can call, with the doc line the LLM reads.
///
///   codeact tools                       # as the model reads them
///   codeact tools --persona app_starter # one persona's
///   codeact tools --markdown            # the README's table
///   codeact tools --json                # one JSON object per form and line: params (name,
///                                       # type, optional, doc), access, the gate's checks,
///                                       # how a replay repeats it
#[derive(clap::Args, Debug)]
#[command(verbatim_doc_comment)]
pub struct ToolsArgs {
    /// Only the tools this persona allows.
    #[arg(long)]
    persona: Option<String>,
    /// Print a Markdown table (as in the README) instead of a list.
    #[arg(long, conflicts_with = "json")]
    markdown: bool,
    /// Print every tool form as a JSON object on a line of its own: its signature,
    /// typed parameters (name, type, optional, doc), access, the sensitive-action
    /// gate's checks it passes, and how a replay repeats it.
    #[arg(long)]
    json: bool,
}

impl ToolsArgs {
    pub fn print(self) -> anyhow::Result<ExitCode> {
        let persona = self.persona.as_deref().map(Persona::load).transpose()?;
        let allowed = |t: &str| persona.as_ref().is_none_or(|p| p.allows(t));
        if self.json {
            for form in codeact::tools::catalog_json(&allowed) {
                codeact::outln!("{form}");
            }
        } else if self.markdown {
            codeact::out!("{}", codeact::tools::markdown_table(&allowed));
        } else {
            codeact::out!("{}", codeact::tools::describe(&allowed));
        }
        Ok(ExitCode::SUCCESS)
    }
}
