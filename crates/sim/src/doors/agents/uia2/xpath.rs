//! The `xpath` locator: XPath 1.0 (`sxd-xpath`) over the page source exactly as
//! `GET /source` writes it, so what a client reads is what it can query; the views
//! it selects are mapped back to their places in the page. Below an element, the
//! element is the context node and only views below it are returned. Bounded before
//! evaluation — at most [`MOST_CHARS`] characters, predicates nested at most
//! [`MOST_PREDICATE_DEPTH`] deep and parentheses [`MOST_PAREN_DEPTH`] (each nested
//! predicate multiplies the work by the page's size). Not the other locators.

use sxd_document::dom::{ChildOfElement, ChildOfRoot, Element, ParentOfChild};
use sxd_xpath::nodeset::Node as XNode;
use sxd_xpath::{Context, Factory, Value};

use crate::page_source::uia2::to_xml;
use crate::screen::Screen;

const MOST_CHARS: usize = 2048;
const MOST_PREDICATE_DEPTH: usize = 3;
const MOST_PAREN_DEPTH: usize = 16;

/// Whether an expression is within bounds (its literals aside).
fn bounded(expr: &str) -> Result<(), String> {
    if expr.chars().count() > MOST_CHARS {
        return Err(format!("longer than {MOST_CHARS} characters"));
    }
    let (mut brackets, mut parens, mut quote) = (0usize, 0usize, None);
    for c in expr.chars() {
        match (quote, c) {
            (Some(q), c) if c == q => quote = None,
            (Some(_), _) => {}
            (None, '\'' | '"') => quote = Some(c),
            (None, '[') => brackets += 1,
            (None, ']') => brackets = brackets.saturating_sub(1),
            (None, '(') => parens += 1,
            (None, ')') => parens = parens.saturating_sub(1),
            _ => {}
        }
        if brackets > MOST_PREDICATE_DEPTH {
            return Err(format!("predicates nested more than {MOST_PREDICATE_DEPTH} deep"));
        }
        if parens > MOST_PAREN_DEPTH {
            return Err(format!("parentheses nested more than {MOST_PAREN_DEPTH} deep"));
        }
    }
    Ok(())
}

/// The element children of `e`.
fn element_children(e: Element<'_>) -> impl Iterator<Item = Element<'_>> {
    e.children().into_iter().filter_map(|c| match c {
        ChildOfElement::Element(e) => Some(e),
        _ => None,
    })
}

/// A selected element's place in the page (`None` for the hierarchy itself).
fn path_of(mut e: Element<'_>) -> Option<Vec<usize>> {
    let mut path = Vec::new();
    loop {
        match e.parent()? {
            ParentOfChild::Root(_) => break,
            ParentOfChild::Element(parent) => {
                path.push(element_children(parent).position(|c| c == e)?);
                e = parent;
            }
        }
    }
    path.reverse();
    // `path` starts at the hierarchy (the root's one element); views start below it.
    (!path.is_empty()).then_some(path)
}

/// The paths of the views `expr` selects, in document order.
pub(super) fn find(screen: &Screen, expr: &str, scope: Option<&[usize]>) -> Result<Vec<Vec<usize>>, String> {
    bounded(expr)?;
    let xpath =
        Factory::new().build(expr).map_err(|e| e.to_string())?.ok_or_else(|| "the expression is empty".to_string())?;
    let xml = to_xml(screen);
    let package = sxd_document::parser::parse(&xml).map_err(|e| format!("the page source did not parse: {e:?}"))?;
    let document = package.as_document();
    let hierarchy = document.root().children().into_iter().find_map(|c| match c {
        ChildOfRoot::Element(e) => Some(e),
        _ => None,
    });
    let hierarchy = hierarchy.ok_or_else(|| "the page has no hierarchy".to_string())?;
    let mut context_node = hierarchy;
    for &i in scope.unwrap_or(&[]) {
        context_node = element_children(context_node).nth(i).ok_or_else(|| "the element left the page".to_string())?;
    }
    let context = Context::new();
    let value = match scope {
        Some(_) => xpath.evaluate(&context, context_node),
        None => xpath.evaluate(&context, document.root()),
    }
    .map_err(|e| e.to_string())?;
    let Value::Nodeset(nodes) = value else {
        return Err("the expression selects a value, not elements".into());
    };
    let mut out = Vec::new();
    for node in nodes.document_order() {
        if let XNode::Element(e) = node
            && let Some(path) = path_of(e)
            && scope.is_none_or(|s| path.len() > s.len() && path.starts_with(s))
        {
            out.push(path);
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::screen::{Node, Rect};

    fn screen() -> Screen {
        let leaf = |text: &str| Node {
            text: text.into(),
            class: "android.widget.TextView".into(),
            bounds: Rect::new(0, 0, 10, 10),
            ..Default::default()
        };
        let list = Node {
            class: "android.widget.ListView".into(),
            children: vec![leaf("a"), leaf("b")],
            ..Default::default()
        };
        let root = Node {
            class: "android.widget.FrameLayout".into(),
            children: vec![leaf("top"), list],
            ..Default::default()
        };
        Screen { width: 10, height: 20, density: 160, windows: vec![root], active: 0, look: Default::default() }
    }

    #[test]
    fn selects_views_by_their_places() {
        let s = screen();
        assert_eq!(find(&s, "//android.widget.TextView[@text='b']", None).unwrap(), vec![vec![0, 1, 1]]);
        assert_eq!(find(&s, "//*[contains(@text, 'o')]", None).unwrap(), vec![vec![0, 0]]);
        assert_eq!(find(&s, "/hierarchy/*", None).unwrap(), vec![vec![0]]);
        assert_eq!(find(&s, ".//android.widget.TextView", Some(&[0, 1])).unwrap().len(), 2);
        assert_eq!(find(&s, "//android.widget.TextView", Some(&[0, 1])).unwrap().len(), 2, "below the element only");
        assert!(find(&s, "count(//*)", None).is_err());
        assert!(find(&s, "//*[", None).is_err());
        assert!(find(&s, &"//*[.//*".repeat(5), None).is_err(), "nesting is bounded");
        assert!(find(&s, &format!("//*[@text='{}']", "[".repeat(3000)), None).is_err(), "length is bounded");
        assert!(find(&s, "//*[@text='[[[[[']", None).unwrap().is_empty(), "literals are not nesting");
    }
}
