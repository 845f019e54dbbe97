//! The `xpath` locator: XPath 1.0 (`sxd-xpath`) over the page source exactly as
//! `GET /source` writes it (`source.rs`), so what a client reads is what it can
//! query; the elements it selects map back to the tree by their places. Below an
//! element, that element is the context node and only elements below it count.
//! Bounded before evaluation — at most [`MOST_CHARS`] characters, predicates
//! nested at most [`MOST_PREDICATE_DEPTH`] deep and parentheses
//! [`MOST_PAREN_DEPTH`] — and by its work: each predicate that walks a path again
//! multiplies the work by the page's size, so an expression whose page size to the
//! power of one more than those nested walks passes [`MOST_WORK`] is refused (the
//! engine cannot be stopped once it runs). Not the other locators (`find.rs`).

use codeact_platform::ui::UiTree;
use sxd_document::dom::{ChildOfElement, ChildOfRoot, Element, ParentOfChild};
use sxd_xpath::nodeset::Node as XNode;
use sxd_xpath::{Context, Factory, Value};

const MOST_CHARS: usize = 2048;
const MOST_PREDICATE_DEPTH: usize = 3;
const MOST_PAREN_DEPTH: usize = 16;
/// The most node visits an expression may ask for, by its shape and the page's size.
const MOST_WORK: f64 = 1e8;

/// Whether an expression is within bounds (its literals aside): how many
/// predicates that walk a path (`[.//x]`, `[count(//x)]`) it nests, at most.
fn bounded(expr: &str) -> Result<i32, String> {
    if expr.chars().count() > MOST_CHARS {
        return Err(format!("longer than {MOST_CHARS} characters"));
    }
    let (mut brackets, mut parens, mut quote) = (0usize, 0usize, None);
    // Per open predicate: whether it walks a path itself, and its inner predicates' most.
    let mut open: Vec<(bool, i32)> = Vec::new();
    let mut walks = 0;
    for c in expr.chars() {
        match (quote, c) {
            (Some(q), c) if c == q => quote = None,
            (Some(_), _) => {}
            (None, '\'' | '"') => quote = Some(c),
            (None, '[') => {
                brackets += 1;
                open.push((false, 0));
            }
            (None, ']') => {
                brackets = brackets.saturating_sub(1);
                if let Some((walk, inner)) = open.pop() {
                    let here = inner + i32::from(walk);
                    match open.last_mut() {
                        Some(parent) => parent.1 = parent.1.max(here),
                        None => walks = walks.max(here),
                    }
                }
            }
            (None, '/') => {
                if let Some(top) = open.last_mut() {
                    top.0 = true;
                }
            }
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
    Ok(walks)
}

fn element_children(e: Element<'_>) -> impl Iterator<Item = Element<'_>> {
    e.children().into_iter().filter_map(|c| match c {
        ChildOfElement::Element(e) => Some(e),
        _ => None,
    })
}

/// A selected element's place below the wrapper (`None` for the wrapper itself).
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
    (!path.is_empty()).then_some(path)
}

/// The tree's element at a place (the first step: which root).
fn id_at(tree: &UiTree, path: &[usize]) -> Option<usize> {
    let (first, rest) = path.split_first()?;
    let mut id = *tree.roots.get(*first)?;
    for &i in rest {
        id = *tree.get(id)?.children.get(i)?;
    }
    Some(id)
}

/// The place of element `id` below the wrapper.
fn place_of(tree: &UiTree, id: usize) -> Option<Vec<usize>> {
    let mut path = Vec::new();
    let mut at = id;
    while let Some(parent) = tree.get(at)?.parent {
        path.push(tree.get(parent)?.children.iter().position(|c| *c == at)?);
        at = parent;
    }
    path.push(tree.roots.iter().position(|r| *r == at)?);
    path.reverse();
    Some(path)
}

/// The ids of the elements `expr` selects on the page `xml` (written from `tree`),
/// in document order; below `scope` only, when given.
pub fn find(tree: &UiTree, xml: &str, expr: &str, scope: Option<usize>) -> Result<Vec<usize>, String> {
    let walks = bounded(expr)?;
    let size = tree.len().max(1) as f64;
    if size.powi(walks + 1) > MOST_WORK {
        return Err(format!(
            "it nests {walks} searches inside its predicates, too much work on a page of {} elements; search by an attribute, or find an element and search below it",
            tree.len()
        ));
    }
    let xpath =
        Factory::new().build(expr).map_err(|e| e.to_string())?.ok_or_else(|| "the expression is empty".to_string())?;
    let package = sxd_document::parser::parse(xml).map_err(|e| format!("the page source did not parse: {e:?}"))?;
    let document = package.as_document();
    let wrapper = document.root().children().into_iter().find_map(|c| match c {
        ChildOfRoot::Element(e) => Some(e),
        _ => None,
    });
    let wrapper = wrapper.ok_or_else(|| "the page is empty".to_string())?;
    let scope_path = match scope {
        Some(id) => Some(place_of(tree, id).ok_or_else(|| "the element left the page".to_string())?),
        None => None,
    };
    let mut context_node = wrapper;
    for &i in scope_path.as_deref().unwrap_or(&[]) {
        context_node = element_children(context_node).nth(i).ok_or_else(|| "the element left the page".to_string())?;
    }
    let context = Context::new();
    let value = match scope_path {
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
            && scope_path.as_ref().is_none_or(|s| path.len() > s.len() && path.starts_with(s))
            && let Some(id) = id_at(tree, &path)
        {
            out.push(id);
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::webdriver::source::Page;
    use codeact_platform::device::Observation;

    fn page() -> (UiTree, String) {
        let dump = r#"<?xml version="1.0" encoding="UTF-8"?><hierarchy rotation="0">
<node index="0" text="" resource-id="" class="android.widget.FrameLayout" package="p" bounds="[0,0][100,200]">
<node index="0" text="top" resource-id="p:id/top" class="android.widget.TextView" package="p" bounds="[0,0][10,10]"/>
<node index="1" text="" resource-id="" class="android.widget.ListView" package="p" bounds="[0,10][100,200]">
<node index="0" text="a" resource-id="" class="android.widget.TextView" package="p" bounds="[0,10][10,20]"/>
<node index="1" text="b" resource-id="" class="android.widget.TextView" package="p" bounds="[0,20][10,30]"/>
</node></node></hierarchy>"#;
        let ui = codeact_platform::ui::parse(dump.as_bytes(), (100, 200)).unwrap();
        let obs = Observation { ui: ui.clone(), ..Default::default() };
        let xml = Page::of(&obs).xml(&ui);
        (ui, xml)
    }

    #[test]
    fn selects_elements_by_their_places() {
        let (t, xml) = page();
        assert_eq!(find(&t, &xml, "//android.widget.TextView[@text='b']", None).unwrap(), vec![4]);
        assert_eq!(find(&t, &xml, "//*[contains(@text, 'o')]", None).unwrap(), vec![1]);
        assert_eq!(find(&t, &xml, "/hierarchy/*", None).unwrap(), vec![0]);
        assert_eq!(find(&t, &xml, "//*[@resource-id='p:id/top']", None).unwrap(), vec![1]);
        assert_eq!(find(&t, &xml, ".//android.widget.TextView", Some(2)).unwrap(), vec![3, 4]);
        assert_eq!(find(&t, &xml, "//android.widget.TextView", Some(2)).unwrap().len(), 2, "below the element only");
        assert!(find(&t, &xml, "count(//*)", None).is_err());
        assert!(find(&t, &xml, "//*[", None).is_err());
        assert!(find(&t, &xml, &"//*[.//*".repeat(5), None).is_err(), "nesting is bounded");
        assert!(find(&t, &xml, &format!("//*[@text='{}']", "[".repeat(3000)), None).is_err(), "length is bounded");
        assert!(find(&t, &xml, "//*[@text='[[[[[']", None).unwrap().is_empty(), "literals are not nesting");
        assert_eq!(bounded("//*[@text='a']"), Ok(0));
        assert_eq!(bounded("//*[.//x[@a]]"), Ok(1));
        assert_eq!(bounded("//*[.//x[.//y]][count(//z)]"), Ok(2));
        assert_eq!(bounded("//*[@a='/'][.//y]"), Ok(1), "a slash in a literal walks nothing");
        assert_eq!(find(&t, &xml, "//*[.//*[.//*]]", None).unwrap(), vec![0], "a small page allows nesting");
        let many: String = (0..2000)
            .map(|i| format!(r#"<node index="{i}" text="t{i}" class="android.widget.TextView" bounds="[0,0][1,1]"/>"#))
            .collect();
        let dump = format!(
            r#"<hierarchy rotation="0"><node index="0" class="android.widget.FrameLayout" bounds="[0,0][9,9]">{many}</node></hierarchy>"#
        );
        let big = codeact_platform::ui::parse(dump.as_bytes(), (10, 10)).unwrap();
        let xml = Page::of(&Observation { ui: big.clone(), ..Default::default() }).xml(&big);
        assert_eq!(find(&big, &xml, "//*[@text='t1999']", None).unwrap(), vec![2000], "attributes cost nothing more");
        let refused = find(&big, &xml, "//*[.//*[.//*]]", None).unwrap_err();
        assert!(refused.contains("too much work"), "{refused}");
    }
}
