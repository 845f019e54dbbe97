//! The `xpath` locator: XPath 1.0 over a page source exactly as a server writes it
//! for `GET /source`, so what a client reads is what it can query; the elements it
//! selects are given back by their places below the page's wrapper element
//! (`<hierarchy>`, `<AppiumAUT>`), and below a scope element only when one is given
//! (it is then the context node). Bounded three ways: the expression's length
//! ([`MOST_CHARS`]) and nesting (`parser.rs`), the page's nodes ([`MOST_NODES`]),
//! and the work an evaluation does — every node an axis walks, every predicate
//! tried and all text read count against [`MOST_STEPS`], and an evaluation that
//! spends them stops at once with an error (`eval.rs`): no shape of expression on
//! any page runs unbounded. The tokens (`lexer.rs`), the grammar (`parser.rs`),
//! the evaluation (`eval.rs`) and the function library (`functions.rs`) are ours,
//! on roxmltree's tree.

mod error;
mod eval;
mod functions;
mod lexer;
mod parser;

use std::cell::Cell;

use roxmltree::Node;

pub use error::XPathError;
use eval::{Ctx, Eval, Value, XNode};

const MOST_CHARS: usize = 2048;
/// The most nodes (elements, texts) a page may hold to be searched.
pub const MOST_NODES: u32 = 2_000_000;
/// The most steps one evaluation may take.
pub const MOST_STEPS: u64 = 3_000_000;

fn element_children<'a, 'input>(e: Node<'a, 'input>) -> impl Iterator<Item = Node<'a, 'input>> {
    e.children().filter(Node::is_element)
}

/// Each element's place among its parent's elements, by node id (one pass).
fn sibling_places(doc: &roxmltree::Document<'_>) -> Vec<u32> {
    let mut places = vec![0u32; doc.descendants().count() + 1];
    for parent in doc.descendants() {
        for (i, child) in element_children(parent).enumerate() {
            if let Some(slot) = places.get_mut(child.id().get_usize()) {
                *slot = i as u32;
            }
        }
    }
    places
}

/// An element's place below the wrapper (`None` for the wrapper, or what lies
/// outside it).
fn path_of(e: Node<'_, '_>, wrapper: Node<'_, '_>, places: &[u32]) -> Option<Vec<usize>> {
    let mut path = Vec::new();
    let mut at = e;
    while at != wrapper {
        path.push(*places.get(at.id().get_usize())? as usize);
        at = at.parent_element()?;
    }
    path.reverse();
    (!path.is_empty()).then_some(path)
}

/// The places (each element's position among its parent's elements, from the
/// wrapper's children down) of the elements `expr` selects on the page `xml`, in
/// document order; below the element at `scope` only, when given.
pub fn find(xml: &str, expr: &str, scope: Option<&[usize]>) -> Result<Vec<Vec<usize>>, XPathError> {
    find_within(xml, expr, scope, MOST_STEPS)
}

/// [`find`] with a budget of `steps`.
pub fn find_within(xml: &str, expr: &str, scope: Option<&[usize]>, steps: u64) -> Result<Vec<Vec<usize>>, XPathError> {
    if expr.chars().count() > MOST_CHARS {
        return Err(XPathError::TooLong { max: MOST_CHARS });
    }
    let parsed = parser::parse(lexer::tokens(expr)?)?;
    let options = roxmltree::ParsingOptions { allow_dtd: false, nodes_limit: MOST_NODES, ..Default::default() };
    let doc = roxmltree::Document::parse_with_options(xml, options)
        .map_err(|e| XPathError::Page { reason: e.to_string() })?;
    let wrapper = element_children(doc.root()).next().ok_or(XPathError::EmptyPage)?;
    let mut context = wrapper;
    for &i in scope.unwrap_or(&[]) {
        context = element_children(context).nth(i).ok_or(XPathError::ScopeGone)?;
    }
    let start = match scope {
        Some(_) => context,
        None => doc.root(),
    };
    let eval = Eval { doc: &doc, spent: Cell::new(0), limit: steps };
    let ctx = Ctx { node: XNode::Node(start.id().get()), position: 1, size: 1 };
    let value = eval.eval(&parsed, ctx).map_err(|e| match e {
        XPathError::TooMuchWork { steps, .. } => {
            XPathError::TooMuchWork { steps, elements: doc.descendants().filter(Node::is_element).count() }
        }
        other => other,
    })?;
    let Value::Nodes(nodes) = value else {
        return Err(XPathError::NotElements);
    };
    let places = sibling_places(&doc);
    let mut out = Vec::new();
    for node in nodes {
        if let XNode::Node(id) = node
            && let Some(e) = eval.node(id).filter(Node::is_element)
            && let Some(path) = path_of(e, wrapper, &places)
            && scope.is_none_or(|s| path.len() > s.len() && path.starts_with(s))
        {
            out.push(path);
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests;
