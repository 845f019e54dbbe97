//! `codeact tools`: the catalog, as the LLM reads it, as the book's table, or as
//! JSON with every parameter typed (for programs that drive codeact).

use std::process::ExitCode;

use codeact::persona::Persona;

/// List the tools scripts can call, with the doc line the LLM reads.
///
///   codeact tools                       # as the model reads them
///   codeact tools --persona app_starter # one persona's
///   codeact tools --markdown            # the book's tool reference
///   codeact tools --json                # one JSON object per form and line: params (name,
///                                       # type, optional, doc), access, the gate's checks,
///                                       # how a replay repeats it
#[derive(clap::Args, Debug)]
#[command(verbatim_doc_comment)]
pub struct ToolsArgs {
    /// Only the tools this persona allows (and the Rhai tools its tools_from names).
    #[arg(long)]
    persona: Option<String>,
    /// The codeact.toml whose tools_from adds tools written in Rhai (default
    /// $CODEACT_CONFIG, else ./codeact.toml when there is one).
    #[arg(long, value_name = "FILE")]
    config: Option<std::path::PathBuf>,
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
        // The Rhai tools: codeact.toml's tools_from, then the persona's.
        let file = codeact::config::FileConfig::find(self.config.as_deref())?;
        let script_tools = file.script_tools(persona.as_ref())?;
        if self.json {
            for form in codeact::tools::catalog_json(&allowed) {
                codeact::outln!("{form}");
            }
            for t in &script_tools.tools {
                let form = serde_json::json!({
                    "name": t.name,
                    "signature": t.signature(),
                    "doc": t.doc,
                    "params": t.params.iter().map(|p| serde_json::json!({"name": p, "kind": "any", "optional": false})).collect::<Vec<_>>(),
                    "access": "acts",
                    "source": t.file,
                });
                codeact::outln!("{form}");
            }
        } else if self.markdown {
            codeact::out!("{}", codeact::tools::markdown_table(&allowed));
            if !script_tools.is_empty() {
                codeact::outln!("\n| Tool (Rhai) | What it does |\n|---|---|");
                for t in &script_tools.tools {
                    codeact::outln!("| `{}` | {} |", t.signature(), t.doc.replace('|', "\\|"));
                }
            }
        } else {
            codeact::out!("{}", codeact::tools::describe_with(&allowed, &script_tools.describe()));
        }
        Ok(ExitCode::SUCCESS)
    }
}
