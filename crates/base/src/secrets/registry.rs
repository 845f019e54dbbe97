//! Which secrets redaction knows, and for how long: the process's own (API keys,
//! the secrets file, `CODEACT_SECRET_*`) for as long as it runs, and the ones lent
//! to a session (a value a client marked sensitive, a sensitive script's words)
//! for as long as the session's [`SecretLease`] lives — dropped with it, so neither
//! memory nor the cost of redaction grows with a server's history. Each change
//! builds the matcher anew; readers share the one built last. Not here: how text
//! is searched (`matcher.rs`) or redacted (`super`).

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, LazyLock, RwLock};

use super::matcher::{Matcher, Pattern};

/// Who holds a secret: the process (0), or a lease.
type Owner = u64;

/// What a secret is for.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(super) enum Kind {
    /// An API key or such: blotted out, and no tool may send it anywhere.
    Process,
    /// A value `type_secret` types: blotted out, never sent as text by a tool,
    /// and a screen that shows it is not pictured.
    Typed,
    /// A client's words it marked sensitive: blotted out and not pictured, but the
    /// client's own calls may carry them.
    Masked,
}

struct Entry {
    text: String,
    kind: Kind,
    owner: Owner,
}

#[derive(Default)]
struct Registry {
    entries: Vec<Entry>,
    matcher: Arc<Matcher>,
}

impl Registry {
    fn rebuild(&mut self) {
        // The same text under several owners or kinds is one pattern: the strictest.
        let mut unique: std::collections::BTreeMap<&str, (bool, bool)> = std::collections::BTreeMap::new();
        for e in &self.entries {
            let slot = unique.entry(e.text.as_str()).or_insert((false, false));
            slot.0 |= e.kind != Kind::Masked;
            slot.1 |= e.kind != Kind::Process;
        }
        let patterns: Vec<Pattern<'_>> = unique
            .iter()
            .map(|(text, (refusing, on_screens))| Pattern { text, refusing: *refusing, on_screens: *on_screens })
            .collect();
        self.matcher = Arc::new(Matcher::new(&patterns));
    }
}

static REGISTRY: LazyLock<RwLock<Registry>> = LazyLock::new(|| RwLock::new(Registry::default()));
static NEXT_OWNER: AtomicU64 = AtomicU64::new(1);

/// The matcher of every secret known now.
pub(super) fn matcher() -> Arc<Matcher> {
    REGISTRY.read().unwrap_or_else(|e| e.into_inner()).matcher.clone()
}

/// Adds `texts` (a secret's spellings) for `owner`.
fn add(owner: Owner, kind: Kind, texts: &[String]) {
    let mut registry = REGISTRY.write().unwrap_or_else(|e| e.into_inner());
    let mut changed = false;
    for text in texts {
        if !registry.entries.iter().any(|e| e.owner == owner && e.kind == kind && e.text == *text) {
            registry.entries.push(Entry { text: text.clone(), kind, owner });
            changed = true;
        }
    }
    if changed {
        registry.rebuild();
    }
}

/// Adds a secret of the process's, for as long as it runs.
pub(super) fn add_for_process(kind: Kind, texts: &[String]) {
    add(0, kind, texts);
}

/// Secrets lent to one session: blotted out of every record while the lease lives,
/// forgotten when it is dropped (the session ended). Clones share the lease.
pub struct SecretLease {
    owner: Owner,
    bytes: AtomicU64,
}

/// The most bytes one lease may hold (the spellings of its secrets): a client
/// cannot make redaction's index grow without end.
pub const MOST_LENT_BYTES: u64 = 16 * 1024 * 1024;

impl SecretLease {
    pub fn new() -> Self {
        SecretLease { owner: NEXT_OWNER.fetch_add(1, Ordering::Relaxed), bytes: AtomicU64::new(0) }
    }

    /// Adds a secret's spellings; `false` when the lease is full.
    pub(super) fn add(&self, kind: Kind, texts: &[String]) -> bool {
        let size: u64 = texts.iter().map(|t| t.len() as u64).sum();
        if self.bytes.fetch_add(size, Ordering::Relaxed).saturating_add(size) > MOST_LENT_BYTES {
            self.bytes.fetch_sub(size, Ordering::Relaxed);
            return false;
        }
        add(self.owner, kind, texts);
        true
    }

    /// How many secrets' spellings the lease holds (for tests and benches).
    pub fn len(&self) -> usize {
        REGISTRY.read().unwrap_or_else(|e| e.into_inner()).entries.iter().filter(|e| e.owner == self.owner).count()
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

impl Default for SecretLease {
    fn default() -> Self {
        Self::new()
    }
}

impl Drop for SecretLease {
    fn drop(&mut self) {
        let mut registry = REGISTRY.write().unwrap_or_else(|e| e.into_inner());
        let before = registry.entries.len();
        registry.entries.retain(|e| e.owner != self.owner);
        if registry.entries.len() != before {
            registry.rebuild();
        }
    }
}

impl std::fmt::Debug for SecretLease {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SecretLease").field("owner", &self.owner).finish()
    }
}

/// The total of secrets' spellings known now (for tests and benches).
pub fn known() -> usize {
    REGISTRY.read().unwrap_or_else(|e| e.into_inner()).entries.len()
}
