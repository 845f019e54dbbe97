//! The tools a script sees: the registered ones are the catalog and the README's
//! table, each acting persona has the checks the README names, and a persona's
//! missing tools do not exist in its engine.

use std::process::Command;

use super::exec_scripts::{session, state};
use crate::common;

#[test]
fn registered_tools_are_the_catalog_and_the_readme_table() {
    // What the engine registered, name by name and arity by arity, is what the
    // catalog's signatures document.
    let sb = session();
    let mut registered: Vec<(String, usize)> = sb.registered().iter().map(|(n, a)| (n.to_string(), *a)).collect();
    let mut documented: Vec<(String, usize)> =
        codeact::tools::CATALOG.iter().flat_map(|t| t.arities().map(|a| (t.name.to_string(), a))).collect();
    registered.sort();
    documented.sort();
    assert_eq!(registered, documented, "registrations and signatures disagree");
    let names: std::collections::BTreeSet<&str> = codeact::tools::CATALOG.iter().map(|t| t.name).collect();
    assert_eq!(sb.tool_names(), codeact::tools::names(), "every tool, once, in catalog order");
    assert_eq!(sb.tool_names().len(), names.len());
    // The book's reference holds the same table (`book::the_tool_reference_is_the_catalog`).
}

/// The completion gate's README names the checks a snippet may end with; every
/// built-in persona that acts has them all (a model that follows the README must not
/// meet "Function not found"), and the default persona has what a model needs besides.
#[test]
fn every_acting_persona_has_the_checks_the_readme_names() {
    let readme = include_str!("../../docs/src/agent.md").split_whitespace().collect::<Vec<_>>().join(" ");
    let start = readme.find("A snippet that checked its outcome after its last action (").expect("the gate's sentence");
    let end = start + readme[start..].find("passes at once").expect("the end of the gate's sentence");
    let tools = codeact::tools::names();
    let named: Vec<&str> = readme[start..end]
        .split('`')
        .skip(1)
        .step_by(2)
        .map(|word| word.trim_end_matches("()"))
        .filter(|word| tools.contains(word))
        .collect();
    assert!(named.len() >= 4, "the README names the checks: {named:?}");
    let mut acting = 0;
    for persona in codeact::persona::Persona::built_in() {
        if !["tap", "tap_by_index"].iter().any(|t| persona.allows(t)) {
            continue;
        }
        acting += 1;
        let missing: Vec<&&str> = named.iter().filter(|t| !persona.allows(t)).collect();
        assert!(missing.is_empty(), "persona {} lacks {missing:?}, which the README's gate names", persona.name);
    }
    assert!(acting >= 3, "default, ui_expert and big_agent act");
    let default = codeact::persona::Persona::load("default").expect("the default persona");
    for needed in ["wait", "back", "set_text", "long_press"] {
        assert!(default.allows(needed), "the default persona lacks {needed}");
    }
}

#[test]
fn a_persona_hides_the_tools_it_does_not_allow() {
    let sim = common::SimProcess::start(&[]);
    let out = Command::new(env!("CARGO_BIN_EXE_codeact"))
        .args(["exec", "scripts/turn_off_wifi.rhai", "--device", &sim.addr, "--persona", "app_starter"])
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .expect("run codeact exec");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success());
    assert!(stderr.contains("Function not found: refresh"), "{stderr}");
    assert!(
        stderr.contains("the functions this session has: start_app, open_app, list_packages, complete"),
        "the error names the tools that exist: {stderr}"
    );
    assert_eq!(state(&sim.addr)["settings"]["wifi"], true, "nothing was toggled");
}
