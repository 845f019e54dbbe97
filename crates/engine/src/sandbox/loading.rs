//! What a session loads besides snippets: the modules `import` may name and the
//! tools written in Rhai, each compiled and its top level run once under the
//! snippet limits. Not running snippets (`mod.rs`) nor reading the files
//! (`script/subflows.rs`, `tools/script_tools.rs`).

use std::collections::HashMap;

use rhai::Scope;

use super::error::{ErrorKind, RunError};
use super::session::Sandbox;
use super::{MAX_MODULES, source};

impl Sandbox {
    /// Makes `modules` (name, source) what `import "name"` finds from now on, each
    /// compiled and run under the snippet limits, in order (a module may import the
    /// ones before it). Empty: `import` finds nothing again.
    pub fn set_modules(&mut self, modules: Vec<(String, String)>) -> Result<(), RunError> {
        let judge = &self.judge;
        let done = self.worker.submit(move |s| {
            let mut resolver = rhai::module_resolvers::StaticModuleResolver::new();
            s.engine.set_max_modules(if modules.is_empty() { 0 } else { MAX_MODULES });
            s.engine.set_module_resolver(rhai::module_resolvers::DummyModuleResolver::new());
            for (name, source) in modules {
                let in_module = |mut e: RunError| {
                    e.message = format!("in module {name:?}: {}", e.message);
                    e
                };
                let code = source::checked(&source).map_err(in_module)?;
                let ast = judge.parse(&s.engine, code).map_err(in_module)?;
                let module = rhai::Module::eval_ast_as_new(Scope::new(), &ast, &s.engine).map_err(|e| {
                    let fallback = || RunError::plain(e.to_string(), ErrorKind::Script);
                    in_module(judge.error(&e, code, &HashMap::new()).unwrap_or_else(fallback))
                })?;
                resolver.insert(name, module);
                s.engine.set_module_resolver(resolver.clone());
            }
            Ok(())
        });
        done.unwrap_or_else(|e| Err(RunError::plain(e.to_string(), ErrorKind::Crashed)))
    }

    /// Makes each file's public functions (file name, source) functions every later
    /// snippet can call, as tools: compiled and run under the snippet limits, and
    /// protected like the built-in tools (a snippet's `fn` of that name is refused,
    /// a call with the wrong arguments names the form). They call only what the
    /// engine has: the built-in tools, not one another across files.
    pub fn set_tools(&mut self, files: Vec<(String, String)>) -> Result<(), RunError> {
        let judge = &self.judge;
        let done = self.worker.submit(move |s| {
            let mut forms = Vec::new();
            for (name, source) in files {
                let in_file = |mut e: RunError| {
                    e.message = format!("in the tools file {name:?}: {}", e.message);
                    e
                };
                let code = source::checked(&source).map_err(in_file)?;
                let ast = judge.parse(&s.engine, code).map_err(in_file)?;
                for f in ast.iter_functions().filter(|f| f.access != rhai::FnAccess::Private) {
                    forms.push((f.name.to_string(), format!("{}({})", f.name, f.params.join(", "))));
                }
                let module = rhai::Module::eval_ast_as_new(Scope::new(), &ast, &s.engine).map_err(|e| {
                    let fallback = || RunError::plain(e.to_string(), ErrorKind::Script);
                    in_file(judge.error(&e, code, &HashMap::new()).unwrap_or_else(fallback))
                })?;
                s.engine.register_global_module(module.into());
            }
            Ok(forms)
        });
        let forms = done.unwrap_or_else(|e| Err(RunError::plain(e.to_string(), ErrorKind::Crashed)))?;
        for (name, form) in forms {
            self.judge.protected.insert(name.clone());
            self.judge.forms.entry(name).or_default().push(form);
        }
        Ok(())
    }
}
