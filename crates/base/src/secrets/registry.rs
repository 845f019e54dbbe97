//! Which secrets redaction knows, and for how long: the process's own (API keys,
//! the secrets file, `CODEACT_SECRET_*`) for as long as it runs, and the ones lent
//! to a session (a value a client marked sensitive, a sensitive script's words)
//! for as long as the session's [`SecretLease`] lives — dropped with it, so neither
//! memory nor the cost of redaction grows with a server's history. Each change
//! builds the matcher anew, outside the lock readers take: redaction never waits
//! for a build, and builds wait only for each other. Bounded: a lease holds at
//! most [`MOST_LENT_BYTES`], all leases together [`MOST_BYTES`]. Not here: how
//! text is searched (`matcher.rs`) or redacted (`mod.rs`).

use std::collections::{HashMap, HashSet};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, LazyLock, Mutex, RwLock};

use super::matcher::{Matcher, Pattern};

/// Who holds a secret: the process (0), or a lease.
type Owner = u64;

/// What a secret is for.
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
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

/// Every secret text, with who holds it and as what; and the bytes each owner holds.
#[derive(Default)]
struct Registry {
    texts: HashMap<String, HashSet<(Owner, Kind)>>,
    bytes: HashMap<Owner, u64>,
    total: u64,
    /// Bumped on every change: a build of an older set is not swapped in.
    version: u64,
    matcher: Arc<Matcher>,
}

impl Registry {
    /// The patterns to build a matcher of (the same text under several owners or
    /// kinds is one pattern: the strictest).
    fn patterns(&self) -> Vec<(String, bool, bool)> {
        self.texts
            .iter()
            .map(|(text, holders)| {
                let refusing = holders.iter().any(|(_, k)| *k != Kind::Masked);
                let on_screens = holders.iter().any(|(_, k)| *k != Kind::Process);
                (text.clone(), refusing, on_screens)
            })
            .collect()
    }
}

static REGISTRY: LazyLock<RwLock<Registry>> = LazyLock::new(|| RwLock::new(Registry::default()));
/// Held while a change is applied and its matcher built: builds go one at a time.
static BUILDING: Mutex<()> = Mutex::new(());
static NEXT_OWNER: AtomicU64 = AtomicU64::new(1);

/// The most bytes one lease may hold (the spellings of its secrets).
pub const MOST_LENT_BYTES: u64 = 16 * 1024 * 1024;
/// The most bytes all leases together may hold: no client, however many sessions
/// it opens, makes redaction's index grow without end.
pub const MOST_BYTES: u64 = 64 * 1024 * 1024;

/// The matcher of every secret known now.
pub(super) fn matcher() -> Arc<Matcher> {
    REGISTRY.read().unwrap_or_else(|e| e.into_inner()).matcher.clone()
}

/// Applies `change` to the registry (which says whether anything changed), then
/// builds the matcher of the new set outside the readers' lock and swaps it in.
fn update(change: impl FnOnce(&mut Registry) -> bool) -> bool {
    let _one_build = BUILDING.lock().unwrap_or_else(|e| e.into_inner());
    let (patterns, version) = {
        let mut registry = REGISTRY.write().unwrap_or_else(|e| e.into_inner());
        if !change(&mut registry) {
            return false;
        }
        registry.version += 1;
        (registry.patterns(), registry.version)
    };
    let patterns: Vec<Pattern<'_>> = patterns
        .iter()
        .map(|(text, refusing, on_screens)| Pattern { text, refusing: *refusing, on_screens: *on_screens })
        .collect();
    let built = Arc::new(Matcher::new(&patterns));
    let mut registry = REGISTRY.write().unwrap_or_else(|e| e.into_inner());
    if registry.version == version {
        registry.matcher = built;
    }
    true
}

/// Adds `texts` (a secret's spellings) for `owner`, within `cap` bytes for the
/// owner (and [`MOST_BYTES`] for every lease, the process's aside); `false` when
/// that is full. Only texts the owner did not hold yet count.
fn add(owner: Owner, kind: Kind, texts: &[String], cap: Option<u64>) -> bool {
    let mut full = false;
    update(|registry| {
        let new: Vec<&String> = {
            let mut seen = HashSet::new();
            texts
                .iter()
                .filter(|t| seen.insert(t.as_str()))
                .filter(|t| registry.texts.get(t.as_str()).is_none_or(|h| !h.contains(&(owner, kind))))
                .collect()
        };
        let size: u64 = new.iter().map(|t| t.len() as u64).sum();
        if let Some(cap) = cap {
            let held = registry.bytes.get(&owner).copied().unwrap_or(0);
            if held.saturating_add(size) > cap || registry.total.saturating_add(size) > MOST_BYTES {
                full = true;
                return false;
            }
            registry.total += size;
        }
        *registry.bytes.entry(owner).or_insert(0) += size;
        for text in &new {
            registry.texts.entry((*text).clone()).or_default().insert((owner, kind));
        }
        !new.is_empty()
    });
    !full
}

/// Adds a secret of the process's, for as long as it runs.
pub(super) fn add_for_process(kind: Kind, texts: &[String]) {
    add(0, kind, texts, None);
}

/// Secrets lent to one session: blotted out of every record while the lease lives,
/// forgotten when it is dropped (the session ended). Clones share the lease.
pub struct SecretLease {
    owner: Owner,
}

impl SecretLease {
    pub fn new() -> Self {
        SecretLease { owner: NEXT_OWNER.fetch_add(1, Ordering::Relaxed) }
    }

    /// Adds a secret's spellings; `false` when the lease (or every lease together)
    /// is full.
    pub(super) fn add(&self, kind: Kind, texts: &[String]) -> bool {
        add(self.owner, kind, texts, Some(MOST_LENT_BYTES))
    }

    /// How many secrets' spellings the lease holds (for tests and benches).
    pub fn len(&self) -> usize {
        let registry = REGISTRY.read().unwrap_or_else(|e| e.into_inner());
        registry.texts.values().filter(|h| h.iter().any(|(o, _)| *o == self.owner)).count()
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
        let owner = self.owner;
        update(|registry| {
            let Some(bytes) = registry.bytes.remove(&owner) else { return false };
            registry.total = registry.total.saturating_sub(bytes);
            registry.texts.retain(|_, holders| {
                holders.retain(|(o, _)| *o != owner);
                !holders.is_empty()
            });
            true
        });
    }
}

impl std::fmt::Debug for SecretLease {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SecretLease").field("owner", &self.owner).finish()
    }
}

/// How many secret texts are known now (for tests and benches).
pub fn known() -> usize {
    REGISTRY.read().unwrap_or_else(|e| e.into_inner()).texts.len()
}
