//! Reference chains in a resource table, checked before the manifest parser follows
//! them: `apk-info-axml` resolves `@string/a` → `@string/b` → … by recursing once per
//! hop and catches only a resource that names itself, so a table whose entries name
//! each other in a loop (or in a chain thousands long) would run it out of stack.
//! Android gives up after 20 hops; so does this check. Not here: reading the table.

use std::collections::HashMap;

use apk_info_axml::ARSC;
use apk_info_axml::structs::{ResTableConfig, ResTableEntry, ResTablePackage, ResourceValueType};

/// The most hops a reference is followed (Android's own resolver stops there too).
pub const MOST_HOPS: usize = 20;

/// The id a reference entry `id` points to, as the crate's resolver finds it.
fn next_hop(packages: &HashMap<u8, &ResTablePackage>, config: &ResTableConfig, id: u32) -> Option<u32> {
    let (package, kind, entry) = ((id >> 24) as u8, ((id >> 16) & 0xff) as u8, (id & 0xffff) as u16);
    match packages.get(&package)?.find_entry(config, kind, entry)? {
        ResTableEntry::Default(d) if d.value.data_type == ResourceValueType::Reference && d.value.data != id => {
            Some(d.value.data)
        }
        _ => None,
    }
}

/// Whether some reference in `table` leads more than [`MOST_HOPS`] hops on (a loop
/// does for ever). Every chain the resolver could follow starts at an id the
/// manifest names and goes on through reference targets, so the chains from every
/// target are measured, each hop once (what a chain was measured to is kept).
pub fn has_endless_chain(table: &ARSC) -> bool {
    let packages: HashMap<u8, &ResTablePackage> = table.packages().map(|p| ((p.header.id & 0xff) as u8, p)).collect();
    let config = ResTableConfig::default();
    let targets = packages
        .values()
        .flat_map(|p| p.resources.values())
        .flat_map(|types| types.values())
        .flat_map(|entries| entries.entries.iter())
        .filter_map(|e| match e {
            ResTableEntry::Default(d) if d.value.data_type == ResourceValueType::Reference => Some(d.value.data),
            _ => None,
        });
    // How many hops on from each id already measured.
    let mut hops_from: HashMap<u32, usize> = HashMap::new();
    for start in targets {
        let mut chain = vec![start];
        let mut id = start;
        let mut tail = 0;
        while let Some(next) = next_hop(&packages, &config, id) {
            if let Some(&known) = hops_from.get(&next) {
                tail = known + 1;
                break;
            }
            chain.push(next);
            if chain.len() > MOST_HOPS + 1 {
                return true;
            }
            id = next;
        }
        // The chain's ids, last first: each is one hop further from the end.
        for (i, id) in chain.iter().rev().enumerate() {
            let from_here = tail + i;
            if from_here > MOST_HOPS {
                return true;
            }
            hops_from.insert(*id, from_here);
        }
    }
    false
}
