//! The `xpath` locator: XPath 1.0 (`sxd-xpath`) over a page source exactly as a
//! server writes it for `GET /source`, so what a client reads is what it can
//! query; the elements it selects are given back by their places below the page's
//! wrapper element (`<hierarchy>`, `<AppiumAUT>`), and below a scope element only
//! when one is given (it is then the context node). Bounded before evaluation —
//! at most [`MOST_CHARS`] characters, predicates nested at most
//! [`MOST_PREDICATE_DEPTH`] deep and parentheses [`MOST_PAREN_DEPTH`] — and by its
//! work: each predicate that walks a path again multiplies the work by the page's
//! size, so an expression whose page size to the power of one more than those
//! nested walks passes [`MOST_WORK`] is refused (the engine cannot be stopped once
//! it runs).

use sxd_document::dom::{ChildOfElement, ChildOfRoot, Element, ParentOfChild};
use sxd_xpath::nodeset::Node as XNode;
use sxd_xpath::{Context, Factory, Value};

/// Why an expression was not evaluated.
#[derive(Debug, thiserror::Error)]
pub enum XPathError {
    #[error("longer than {max} characters")]
    TooLong { max: usize },
    #[error("{what} nested more than {max} deep")]
    TooDeep { what: &'static str, max: usize },
    #[error(
        "it nests {walks} searches inside its predicates, too much work on a page of {elements} elements; search by an attribute, or find an element and search below it"
    )]
    TooMuchWork { walks: i32, elements: usize },
    #[error("not an XPath expression")]
    Expression {
        #[source]
        source: sxd_xpath::ParserError,
    },
    #[error("the expression is empty")]
    Empty,
    #[error("it could not be evaluated")]
    Evaluation {
        #[source]
        source: sxd_xpath::ExecutionError,
    },
    #[error("the expression selects a value, not elements")]
    NotElements,
    #[error("the page source did not parse ({reason})")]
    Page { reason: String },
    #[error("the page is empty")]
    EmptyPage,
    #[error("the element left the page")]
    ScopeGone,
}

const MOST_CHARS: usize = 2048;
const MOST_PREDICATE_DEPTH: usize = 3;
const MOST_PAREN_DEPTH: usize = 16;
/// The most node visits an expression may ask for, by its shape and the page's size.
const MOST_WORK: f64 = 1e8;

/// Whether an expression is within bounds (its literals aside): how many
/// predicates that walk a path (`[.//x]`, `[count(//x)]`) it nests, at most.
fn bounded(expr: &str) -> Result<i32, XPathError> {
    if expr.chars().count() > MOST_CHARS {
        return Err(XPathError::TooLong { max: MOST_CHARS });
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
            return Err(XPathError::TooDeep { what: "predicates", max: MOST_PREDICATE_DEPTH });
        }
        if parens > MOST_PAREN_DEPTH {
            return Err(XPathError::TooDeep { what: "parentheses", max: MOST_PAREN_DEPTH });
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

/// The places (each element's position among its parent's elements, from the
/// wrapper's children down) of the elements `expr` selects on the page `xml`, in
/// document order; below the element at `scope` only, when given.
pub fn find(xml: &str, expr: &str, scope: Option<&[usize]>) -> Result<Vec<Vec<usize>>, XPathError> {
    let walks = bounded(expr)?;
    let xpath =
        Factory::new().build(expr).map_err(|source| XPathError::Expression { source })?.ok_or(XPathError::Empty)?;
    let package = sxd_document::parser::parse(xml).map_err(|e| XPathError::Page { reason: format!("{e:?}") })?;
    let document = package.as_document();
    let wrapper = document.root().children().into_iter().find_map(|c| match c {
        ChildOfRoot::Element(e) => Some(e),
        _ => None,
    });
    let wrapper = wrapper.ok_or(XPathError::EmptyPage)?;
    let size = count_elements(wrapper) as f64;
    if size.max(1.0).powi(walks + 1) > MOST_WORK {
        return Err(XPathError::TooMuchWork { walks, elements: size as usize });
    }
    let mut context_node = wrapper;
    for &i in scope.unwrap_or(&[]) {
        context_node = element_children(context_node).nth(i).ok_or(XPathError::ScopeGone)?;
    }
    let context = Context::new();
    let value = match scope {
        Some(_) => xpath.evaluate(&context, context_node),
        None => xpath.evaluate(&context, document.root()),
    }
    .map_err(|source| XPathError::Evaluation { source })?;
    let Value::Nodeset(nodes) = value else {
        return Err(XPathError::NotElements);
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

/// How many elements are below `e` (without recursion: a page can be deep).
fn count_elements(e: Element<'_>) -> usize {
    let mut stack = vec![e];
    let mut count = 0usize;
    while let Some(e) = stack.pop() {
        count += 1;
        stack.extend(element_children(e));
    }
    count.saturating_sub(1)
}

#[cfg(test)]
mod tests {
    use super::*;

    const PAGE: &str = r#"<?xml version="1.0"?><hierarchy><android.widget.FrameLayout><android.widget.TextView text="top"/><android.widget.ListView><android.widget.TextView text="a"/><android.widget.TextView text="b"/></android.widget.ListView></android.widget.FrameLayout></hierarchy>"#;

    #[test]
    fn selects_elements_by_their_places() {
        assert_eq!(find(PAGE, "//android.widget.TextView[@text='b']", None).unwrap(), vec![vec![0, 1, 1]]);
        assert_eq!(find(PAGE, "//*[contains(@text, 'o')]", None).unwrap(), vec![vec![0, 0]]);
        assert_eq!(find(PAGE, "/hierarchy/*", None).unwrap(), vec![vec![0]]);
        assert_eq!(find(PAGE, ".//android.widget.TextView", Some(&[0, 1])).unwrap().len(), 2);
        assert_eq!(find(PAGE, "//android.widget.TextView", Some(&[0, 1])).unwrap().len(), 2, "below the element only");
        assert!(find(PAGE, "count(//*)", None).is_err());
        assert!(find(PAGE, "//*[", None).is_err());
        assert!(find(PAGE, &"//*[.//*".repeat(5), None).is_err(), "nesting is bounded");
        assert!(find(PAGE, &format!("//*[@text='{}']", "[".repeat(3000)), None).is_err(), "length is bounded");
        assert!(find(PAGE, "//*[@text='[[[[[']", None).unwrap().is_empty(), "literals are not nesting");
        assert_eq!(find(PAGE, "//*[.//*[.//*]]", None).unwrap(), vec![vec![0]], "a small page allows nesting");
    }

    #[test]
    fn work_is_bounded_by_the_shape_and_the_page() {
        assert_eq!(bounded("//*[@text='a']").ok(), Some(0));
        assert_eq!(bounded("//*[.//x[@a]]").ok(), Some(1));
        assert_eq!(bounded("//*[.//x[.//y]][count(//z)]").ok(), Some(2));
        assert_eq!(bounded("//*[@a='/'][.//y]").ok(), Some(1), "a slash in a literal walks nothing");
        let many: String = (0..2000).map(|i| format!(r#"<v text="t{i}"/>"#)).collect();
        let big = format!("<hierarchy><root>{many}</root></hierarchy>");
        assert_eq!(
            find(&big, "//*[@text='t1999']", None).unwrap(),
            vec![vec![0, 1999]],
            "attributes cost nothing more"
        );
        let refused = find(&big, "//*[.//*[.//*]]", None).unwrap_err();
        assert!(matches!(refused, XPathError::TooMuchWork { walks: 2, elements: 2001 }), "{refused}");
    }
}
