//! How the house check reads a crate (`house.rs` holds the tests): no circle between
//! files and no arrow up between folders. Each crate's module tree is read from its
//! root (`lib.rs`, `main.rs`) with `syn`; every `crate::`, `super::`, `self::` path —
//! in `use` lines, in code and in macro bodies — and every name a `use` brought in is
//! followed to the file that defines it (re-exports and private imports followed;
//! a name reached through an enclosing module's re-export ties to that module's
//! file too, so inside a crate names come from where they are defined), and the
//! files' graph and, folder by folder, the graph of each folder's rooms (its
//! files and its sub-folders) must hold no cycle. Test code (`#[cfg(test)]`) is not
//! part of the house. Not a linter of anything else: external crates, the standard
//! library and local names are not followed.

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::path::{Path, PathBuf};

use syn::visit::Visit;

type ModPath = Vec<String>;

/// What one module (a file, or an inline `mod` inside one) defines and brings in.
#[derive(Default)]
pub(crate) struct Module {
    pub(crate) file: PathBuf,
    defined: BTreeSet<String>,
    children: BTreeSet<String>,
    /// `use` names, absolute: followed when another file names them through here.
    brought: HashMap<String, ModPath>,
    /// `use` names from outside the crate.
    external: BTreeSet<String>,
    /// `use path::*`, absolute.
    globs: Vec<ModPath>,
    /// Every path its code names that may lead inside the crate, as written.
    named: Vec<ModPath>,
    /// The paths of its `use` lines, as written.
    used: Vec<ModPath>,
}

/// One crate's modules by their path from the root.
pub(crate) struct Crate {
    pub(crate) modules: BTreeMap<ModPath, Module>,
    /// `#[macro_export]` macros: named at the root, defined where they are written.
    exported_macros: HashMap<String, PathBuf>,
}

fn is_test_only(attrs: &[syn::Attribute]) -> bool {
    attrs
        .iter()
        .any(|a| a.path().is_ident("cfg") && a.parse_args::<syn::Meta>().is_ok_and(|m| m.path().is_ident("test")))
}

fn path_attr(attrs: &[syn::Attribute]) -> Option<String> {
    attrs.iter().find(|a| a.path().is_ident("path")).and_then(|a| match &a.meta {
        syn::Meta::NameValue(nv) => match &nv.value {
            syn::Expr::Lit(syn::ExprLit { lit: syn::Lit::Str(s), .. }) => Some(s.value()),
            _ => None,
        },
        _ => None,
    })
}

/// Every path (as its segments' names) a `use` tree brings in, with the name it is
/// known by (`None` for a glob).
fn use_paths(tree: &syn::UseTree, prefix: &mut ModPath, out: &mut Vec<(ModPath, Option<String>)>) {
    match tree {
        syn::UseTree::Path(p) => {
            prefix.push(p.ident.to_string());
            use_paths(&p.tree, prefix, out);
            prefix.pop();
        }
        syn::UseTree::Name(n) if n.ident == "self" => {
            out.push((prefix.clone(), prefix.last().cloned()));
        }
        syn::UseTree::Name(n) => {
            let mut full = prefix.clone();
            full.push(n.ident.to_string());
            out.push((full, Some(n.ident.to_string())));
        }
        syn::UseTree::Rename(r) => {
            let mut full = prefix.clone();
            if r.ident != "self" {
                full.push(r.ident.to_string());
            }
            out.push((full, Some(r.rename.to_string())));
        }
        syn::UseTree::Glob(_) => out.push((prefix.clone(), None)),
        syn::UseTree::Group(g) => g.items.iter().for_each(|t| use_paths(t, prefix, out)),
    }
}

/// Collects the paths a module's code names, macro bodies included.
struct Names<'a> {
    named: &'a mut Vec<ModPath>,
    /// `use` lines inside functions: read as the module's own.
    uses: &'a mut Vec<(ModPath, Option<String>)>,
}

impl Names<'_> {
    fn tokens(&mut self, stream: proc_macro2::TokenStream) {
        let mut run: ModPath = Vec::new();
        let mut colons = 0;
        for tree in stream {
            match tree {
                proc_macro2::TokenTree::Ident(i) => {
                    if colons != 2 || run.is_empty() {
                        self.flush(&mut run);
                    }
                    run.push(i.to_string());
                    colons = 0;
                }
                proc_macro2::TokenTree::Punct(p) if p.as_char() == ':' => colons += 1,
                proc_macro2::TokenTree::Group(g) => {
                    self.flush(&mut run);
                    colons = 0;
                    self.tokens(g.stream());
                }
                proc_macro2::TokenTree::Punct(_) | proc_macro2::TokenTree::Literal(_) => {
                    self.flush(&mut run);
                    colons = 0;
                }
            }
        }
        self.flush(&mut run);
    }

    fn flush(&mut self, run: &mut ModPath) {
        if run.len() > 1 {
            self.named.push(std::mem::take(run));
        }
        run.clear();
    }
}

impl<'ast> Visit<'ast> for Names<'_> {
    fn visit_path(&mut self, path: &'ast syn::Path) {
        self.named.push(path.segments.iter().map(|s| s.ident.to_string()).collect());
        syn::visit::visit_path(self, path);
    }
    fn visit_macro(&mut self, mac: &'ast syn::Macro) {
        self.visit_path(&mac.path);
        self.tokens(mac.tokens.clone());
    }
    // Items are read by `read_items`, each in its own module.
    fn visit_item_mod(&mut self, _: &'ast syn::ItemMod) {}
    fn visit_item_use(&mut self, item: &'ast syn::ItemUse) {
        use_paths(&item.tree, &mut Vec::new(), self.uses);
    }
}

fn item_name(item: &syn::Item) -> Option<String> {
    Some(match item {
        syn::Item::Const(i) => i.ident.to_string(),
        syn::Item::Enum(i) => i.ident.to_string(),
        syn::Item::Fn(i) => i.sig.ident.to_string(),
        syn::Item::Macro(i) => i.ident.as_ref()?.to_string(),
        syn::Item::Static(i) => i.ident.to_string(),
        syn::Item::Struct(i) => i.ident.to_string(),
        syn::Item::Trait(i) => i.ident.to_string(),
        syn::Item::Type(i) => i.ident.to_string(),
        syn::Item::Union(i) => i.ident.to_string(),
        _ => return None,
    })
}

fn absolute(at: &ModPath, path: &ModPath, module: &Module) -> Option<ModPath> {
    let (first, rest) = path.split_first()?;
    match first.as_str() {
        "crate" => Some(rest.to_vec()),
        "self" => Some(at.iter().chain(rest).cloned().collect()),
        "super" => {
            let mut base = at.clone();
            base.pop();
            let mut rest = rest;
            while rest.first().is_some_and(|s| s == "super") {
                base.pop();
                rest = &rest[1..];
            }
            Some(base.into_iter().chain(rest.iter().cloned()).collect())
        }
        name if module.children.contains(name) => Some(at.iter().chain(path).cloned().collect()),
        name => module.brought.get(name).map(|to| to.iter().chain(rest).cloned().collect()),
    }
}

impl Crate {
    pub(crate) fn read(root: &Path) -> Crate {
        let mut house = Crate { modules: BTreeMap::new(), exported_macros: HashMap::new() };
        house.read_file(Vec::new(), root, root.parent().map(Path::to_path_buf).unwrap_or_default());
        house
    }

    /// `dir` is where the file's own `mod x;` children live.
    fn read_file(&mut self, at: ModPath, file: &Path, dir: PathBuf) {
        let Ok(text) = std::fs::read_to_string(file) else { return };
        let parsed = syn::parse_file(&text).unwrap_or_else(|e| panic!("{}: {e}", file.display()));
        self.read_items(at, file, &dir, &parsed.items);
    }

    fn read_items(&mut self, at: ModPath, file: &Path, dir: &Path, items: &[syn::Item]) {
        let mut module = Module { file: file.to_path_buf(), ..Module::default() };
        let mut uses = Vec::new();
        for item in items {
            match item {
                syn::Item::Mod(m) if is_test_only(&m.attrs) => {}
                syn::Item::Mod(m) => {
                    let name = m.ident.to_string();
                    module.children.insert(name.clone());
                    let mut child = at.clone();
                    child.push(name.clone());
                    match &m.content {
                        Some((_, inner)) => self.read_items(child, file, &dir.join(&name), inner),
                        None => {
                            let found = match path_attr(&m.attrs) {
                                Some(p) => dir.join(p),
                                None if dir.join(format!("{name}.rs")).exists() => dir.join(format!("{name}.rs")),
                                None => dir.join(&name).join("mod.rs"),
                            };
                            self.read_file(child, &found, dir.join(&name));
                        }
                    }
                }
                syn::Item::Use(u) if !is_test_only(&u.attrs) => use_paths(&u.tree, &mut Vec::new(), &mut uses),
                syn::Item::Impl(i) if is_test_only(&i.attrs) => {}
                syn::Item::Fn(f) if is_test_only(&f.attrs) => {}
                other => {
                    if let Some(name) = item_name(other) {
                        module.defined.insert(name);
                    }
                    if let syn::Item::Macro(m) = other
                        && m.attrs.iter().any(|a| a.path().is_ident("macro_export"))
                        && let Some(name) = &m.ident
                    {
                        self.exported_macros.insert(name.to_string(), file.to_path_buf());
                    }
                    Names { named: &mut module.named, uses: &mut uses }.visit_item(other);
                }
            }
        }
        // `use` paths are relative to this module's names (children, other uses): made
        // absolute once every child is known, in order, so a `use` may name an earlier one.
        for (path, name) in uses {
            let Some(full) = absolute(&at, &path, &module) else {
                if let Some(name) = name {
                    module.external.insert(name);
                }
                continue;
            };
            module.used.push(path);
            match name {
                Some(name) => {
                    module.brought.insert(name, full);
                }
                None => module.globs.push(full),
            }
        }
        self.modules.insert(at, module);
    }

    /// The file that defines what `path` (absolute) names, re-exports and imports
    /// followed; `None` outside the crate.
    /// `through` gathers the modules whose `use` the way passed (a re-export).
    fn definer<'s>(&'s self, path: &[String], depth: usize, through: &mut Vec<&'s [String]>) -> Option<&'s Path> {
        if depth > 32 {
            return None;
        }
        let split = (0..=path.len()).rev().find(|n| self.modules.contains_key(&path[..*n]))?;
        let (at, module) = self.modules.get_key_value(&path[..split])?;
        // A module named alone (`use super::screen;`) ties nothing: the paths through it do.
        let name = path.get(split)?;
        if split == 0
            && let Some(file) = self.exported_macros.get(name)
        {
            return Some(file);
        }
        if module.external.contains(name) {
            return None;
        }
        if module.defined.contains(name) {
            return Some(&module.file);
        }
        if let Some(to) = module.brought.get(name) {
            let mut next = to.clone();
            next.extend(path[split + 1..].iter().cloned());
            through.push(at);
            return self.definer(&next, depth + 1, through);
        }
        for glob in &module.globs {
            let mut next = glob.clone();
            next.extend(path[split..].iter().cloned());
            if let Some(found) = self.definer(&next, depth + 1, through) {
                return Some(found);
            }
        }
        Some(&module.file)
    }

    /// File → the files it takes a name from, with the names.
    fn arrows(&self) -> BTreeMap<PathBuf, BTreeMap<PathBuf, BTreeSet<String>>> {
        let mut arrows: BTreeMap<PathBuf, BTreeMap<PathBuf, BTreeSet<String>>> = BTreeMap::new();
        for (at, module) in &self.modules {
            let from = arrows.entry(module.file.clone()).or_default();
            let globs: Vec<ModPath> = module
                .globs
                .iter()
                .map(|g| std::iter::once("crate".to_string()).chain(g.iter().cloned()).collect())
                .collect();
            let all = module.named.iter().chain(&module.used).chain(&globs);
            for path in all {
                if path.len() < 2 && !module.brought.contains_key(path.first().map(String::as_str).unwrap_or("")) {
                    continue;
                }
                let Some(full) = absolute(at, path, module) else { continue };
                let mut through = Vec::new();
                let Some(to) = self.definer(&full, 0, &mut through) else { continue };
                let name = full.last().cloned().unwrap_or_default();
                if to != module.file {
                    from.entry(to.to_path_buf()).or_default().insert(name.clone());
                }
                // A name taken through an enclosing module's re-export ties to that
                // module's file too: inside a crate, names come from where they are
                // defined (a parent's `pub use` is for the crate's users).
                for hop in through.into_iter().filter(|hop| hop.len() < at.len() && at.starts_with(hop)) {
                    let file = &self.modules[hop].file;
                    if *file != module.file {
                        from.entry(file.clone()).or_default().insert(format!("{name} (through its re-export)"));
                    }
                }
            }
        }
        arrows
    }
}

/// The strongly connected groups of more than one node (Tarjan's, iteratively
/// enough for a crate's few hundred files).
fn circles<N: Ord + Clone>(edges: &BTreeMap<N, BTreeSet<N>>) -> Vec<BTreeSet<N>> {
    let nodes: Vec<N> =
        edges.keys().chain(edges.values().flatten()).cloned().collect::<BTreeSet<_>>().into_iter().collect();
    let index: BTreeMap<&N, usize> = nodes.iter().enumerate().map(|(i, n)| (n, i)).collect();
    let next: Vec<Vec<usize>> = nodes
        .iter()
        .map(|n| edges.get(n).map(|to| to.iter().map(|t| index[t]).collect()).unwrap_or_default())
        .collect();
    // Reachability by search from each node: small graphs, simple and certain.
    let reach: Vec<BTreeSet<usize>> = (0..nodes.len())
        .map(|start| {
            let mut seen = BTreeSet::new();
            let mut todo = vec![start];
            while let Some(n) = todo.pop() {
                for &m in &next[n] {
                    if seen.insert(m) {
                        todo.push(m);
                    }
                }
            }
            seen
        })
        .collect();
    let mut groups: Vec<BTreeSet<N>> = Vec::new();
    let mut placed = BTreeSet::new();
    for a in 0..nodes.len() {
        if placed.contains(&a) || !reach[a].contains(&a) {
            continue;
        }
        let group: BTreeSet<usize> =
            (0..nodes.len()).filter(|&b| reach[a].contains(&b) && reach[b].contains(&a)).collect();
        placed.extend(group.iter().copied());
        groups.push(group.into_iter().map(|i| nodes[i].clone()).collect());
    }
    groups
}

/// Every circle between files and every cycle between one folder's rooms, in words.
pub(crate) fn faults(root: &Path) -> Vec<String> {
    let house = Crate::read(root);
    let arrows = house.arrows();
    let src = root.parent().unwrap_or(root);
    let short = |p: &Path| p.strip_prefix(src).unwrap_or(p).display().to_string();
    let mut said = Vec::new();
    let files: BTreeMap<PathBuf, BTreeSet<PathBuf>> =
        arrows.iter().map(|(f, to)| (f.clone(), to.keys().cloned().collect())).collect();
    for circle in circles(&files) {
        let ties: Vec<String> = circle
            .iter()
            .flat_map(|a| {
                arrows[a].iter().filter(|(b, _)| circle.contains(*b)).map(move |(b, names)| {
                    format!("{} -> {}: {}", short(a), short(b), names.iter().cloned().collect::<Vec<_>>().join(", "))
                })
            })
            .collect();
        said.push(format!("a circle between files:\n    {}", ties.join("\n    ")));
    }
    // Folder by folder: its rooms are its files and its sub-folders.
    let folders: BTreeSet<PathBuf> = arrows.keys().filter_map(|f| f.parent().map(Path::to_path_buf)).collect();
    let mut all_folders = BTreeSet::new();
    for f in &folders {
        all_folders.extend(f.ancestors().filter(|a| a.starts_with(src)).map(Path::to_path_buf));
    }
    for folder in all_folders {
        let room = |file: &Path| -> Option<PathBuf> {
            let rest = file.strip_prefix(&folder).ok()?;
            rest.components().next().map(|c| folder.join(c))
        };
        let mut rooms: BTreeMap<PathBuf, BTreeSet<PathBuf>> = BTreeMap::new();
        let mut why: BTreeMap<(PathBuf, PathBuf), String> = BTreeMap::new();
        for (a, to) in &arrows {
            let Some(ra) = room(a) else { continue };
            for (b, names) in to {
                let Some(rb) = room(b) else { continue };
                if ra != rb {
                    rooms.entry(ra.clone()).or_default().insert(rb.clone());
                    why.entry((ra.clone(), rb.clone())).or_insert_with(|| {
                        format!(
                            "{} -> {}: {}",
                            short(a),
                            short(b),
                            names.iter().cloned().collect::<Vec<_>>().join(", ")
                        )
                    });
                }
            }
        }
        for circle in circles(&rooms) {
            if circle.iter().all(|r| r.extension().is_some()) {
                continue; // files alone: said above, as a circle between files
            }
            let ties: Vec<String> = why
                .iter()
                .filter(|((a, b), _)| circle.contains(a) && circle.contains(b))
                .map(|(_, w)| w.clone())
                .collect();
            said.push(format!("an arrow up inside {}/:\n    {}", short(&folder), ties.join("\n    ")));
        }
    }
    said
}
