//! The screens an exploration has seen and the actions between them: each screen
//! with the actions it offers and which were tried, each edge an action that led
//! from one screen to another. Shortest paths over it are the scripts that reach a
//! screen (or a crash) from a clean start. Pure data: nothing here acts.

use std::collections::{HashMap, HashSet, VecDeque};

use serde::Serialize;

use super::screen::{Candidate, Kind};

/// A screen offers at most this many actions to try (a long list is sampled from
/// its top, as a person would).
pub const MAX_CANDIDATES: usize = 48;

/// One distinct screen.
#[derive(Debug, Clone, Serialize)]
pub struct State {
    pub key: u64,
    pub name: String,
    pub activity: String,
    /// The action count when it was first seen.
    pub first_seen: usize,
    #[serde(skip)]
    pub candidates: Vec<Candidate>,
    #[serde(skip)]
    pub tried: HashSet<u64>,
    /// Its screenshot's file name in the run folder, when one was kept.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub screenshot: Option<String>,
    /// A selector that tells it apart (see `screen::anchor`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub anchor: Option<String>,
}

impl State {
    pub fn untried(&self) -> usize {
        self.candidates.iter().filter(|c| !self.tried.contains(&c.key)).count()
    }
}

/// An action that led from one screen to another.
#[derive(Debug, Clone, Serialize, PartialEq, Eq)]
pub struct Edge {
    pub from: usize,
    pub to: usize,
    pub kind: Kind,
    pub code: String,
    pub label: String,
}

#[derive(Debug, Default, Clone, Serialize)]
pub struct Graph {
    pub states: Vec<State>,
    pub edges: Vec<Edge>,
    /// The screen a clean start of the app shows.
    pub start: Option<usize>,
    #[serde(skip)]
    index: HashMap<u64, usize>,
}

impl Graph {
    /// Records a visit to the screen `key`: a new state the first time, and any
    /// action it offers now that it did not before. Returns its id and whether it is new.
    pub fn visit(&mut self, key: u64, activity: &str, offered: Vec<Candidate>, action_count: usize) -> (usize, bool) {
        if let Some(&id) = self.index.get(&key) {
            let state = &mut self.states[id];
            for c in offered {
                if state.candidates.len() >= MAX_CANDIDATES {
                    break;
                }
                if !state.candidates.iter().any(|k| k.key == c.key) {
                    state.candidates.push(c);
                }
            }
            state.candidates.sort_by_key(|c| c.kind);
            return (id, false);
        }
        let id = self.states.len();
        let mut candidates = offered;
        if candidates.len() > MAX_CANDIDATES {
            // Keep Back, which closes the list.
            let back = candidates.pop();
            candidates.truncate(MAX_CANDIDATES - 1);
            candidates.extend(back);
        }
        self.states.push(State {
            key,
            name: super::screen::screen_name(key),
            activity: activity.to_string(),
            first_seen: action_count,
            candidates,
            tried: HashSet::new(),
            screenshot: None,
            anchor: None,
        });
        self.index.insert(key, id);
        (id, true)
    }

    /// The next action to try on `state`, in the order the screen offered them.
    pub fn next_untried(&self, state: usize) -> Option<Candidate> {
        let s = self.states.get(state)?;
        s.candidates.iter().find(|c| !s.tried.contains(&c.key)).cloned()
    }

    pub fn mark_tried(&mut self, state: usize, key: u64) {
        if let Some(s) = self.states.get_mut(state) {
            s.tried.insert(key);
        }
    }

    /// Records that `action` on `from` led to `to` (once per distinct edge).
    pub fn add_edge(&mut self, from: usize, action: &Candidate, to: usize) {
        let edge = Edge { from, to, kind: action.kind, code: action.code.clone(), label: action.label.clone() };
        if !self.edges.contains(&edge) {
            self.edges.push(edge);
        }
    }

    /// The fewest actions from `from` to `to` (edge indices, in order); `Some(empty)`
    /// when they are the same screen.
    pub fn path(&self, from: usize, to: usize) -> Option<Vec<usize>> {
        self.nearest(from, |s| s == to).map(|(_, path)| path)
    }

    /// The screen with actions left to try that is fewest actions from the start,
    /// and the way there.
    pub fn nearest_unfinished(&self) -> Option<(usize, Vec<usize>)> {
        self.nearest(self.start?, |s| self.states[s].untried() > 0)
    }

    /// One breadth-first search from `from` to the first screen `wanted` accepts,
    /// and the edges that lead there. Back is not followed: it is not replayable
    /// from a clean start (it depends on what came before).
    fn nearest(&self, from: usize, wanted: impl Fn(usize) -> bool) -> Option<(usize, Vec<usize>)> {
        let mut out: HashMap<usize, Vec<usize>> = HashMap::new();
        for (i, e) in self.edges.iter().enumerate().filter(|(_, e)| e.kind != Kind::Back) {
            out.entry(e.from).or_default().push(i);
        }
        let mut came_by: HashMap<usize, usize> = HashMap::new();
        let mut queue = VecDeque::from([from]);
        let mut seen = HashSet::from([from]);
        while let Some(at) = queue.pop_front() {
            if wanted(at) {
                let mut path = Vec::new();
                let mut cur = at;
                while cur != from {
                    let e = came_by[&cur];
                    path.push(e);
                    cur = self.edges[e].from;
                }
                path.reverse();
                return Some((at, path));
            }
            for &i in out.get(&at).into_iter().flatten() {
                let to = self.edges[i].to;
                if seen.insert(to) {
                    came_by.insert(to, i);
                    queue.push_back(to);
                }
            }
        }
        None
    }

    /// Gives up on a screen that cannot be reached again from a clean start.
    pub fn abandon(&mut self, state: usize) {
        if let Some(s) = self.states.get_mut(state) {
            let keys: Vec<u64> = s.candidates.iter().map(|c| c.key).collect();
            s.tried.extend(keys);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn action(key: u64, kind: Kind, code: &str) -> Candidate {
        Candidate { key, kind, code: code.into(), widget: key, label: code.into() }
    }

    #[test]
    fn paths_are_shortest_and_never_go_through_back() {
        let mut g = Graph::default();
        let (a, _) = g.visit(1, ".A", vec![action(10, Kind::Tap, "tap(1)"), action(0, Kind::Back, "back()")], 0);
        let (b, new) = g.visit(2, ".B", vec![action(11, Kind::Tap, "tap(2)")], 1);
        let (c, _) = g.visit(3, ".C", vec![], 2);
        assert!(new);
        g.start = Some(a);
        g.add_edge(a, &action(10, Kind::Tap, "tap(1)"), b);
        g.add_edge(b, &action(11, Kind::Tap, "tap(2)"), c);
        g.add_edge(a, &action(12, Kind::Tap, "tap(3)"), c);
        g.add_edge(c, &action(0, Kind::Back, "back()"), a);
        assert_eq!(g.path(a, c).unwrap().len(), 1, "the direct edge");
        assert_eq!(g.path(c, a), None, "Back does not count");
        assert_eq!(g.path(b, b), Some(vec![]));
        g.mark_tried(a, 10);
        assert_eq!(g.next_untried(a).unwrap().kind, Kind::Back);
        let (nearest, path) = g.nearest_unfinished().unwrap();
        assert_eq!((nearest, path.len()), (a, 0));
        g.abandon(a);
        assert_eq!(g.nearest_unfinished().unwrap().0, b);
        assert_eq!(g.visit(2, ".B", vec![action(13, Kind::Type, "set_text(x, \"y\")")], 5), (b, false));
        assert_eq!(g.next_untried(b).unwrap().kind, Kind::Type, "new actions join, in order");
    }
}
