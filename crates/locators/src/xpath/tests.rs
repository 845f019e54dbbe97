//! The evaluator against XPath 1.0's semantics (axes, positions, comparisons,
//! functions) and its bounds (length, nesting, nodes, work).

use super::*;

const PAGE: &str = r#"<?xml version="1.0"?><hierarchy><android.widget.FrameLayout><android.widget.TextView text="top"/><android.widget.ListView><android.widget.TextView text="a"/><android.widget.TextView text="b"/></android.widget.ListView></android.widget.FrameLayout></hierarchy>"#;

fn places(expr: &str) -> Vec<Vec<usize>> {
    find(PAGE, expr, None).unwrap_or_else(|e| panic!("{expr}: {e}"))
}

#[test]
fn selects_elements_by_their_places() {
    assert_eq!(places("//android.widget.TextView[@text='b']"), vec![vec![0, 1, 1]]);
    assert_eq!(places("//*[contains(@text, 'o')]"), vec![vec![0, 0]]);
    assert_eq!(places("/hierarchy/*"), vec![vec![0]]);
    assert_eq!(find(PAGE, ".//android.widget.TextView", Some(&[0, 1])).unwrap().len(), 2);
    assert_eq!(find(PAGE, "//android.widget.TextView", Some(&[0, 1])).unwrap().len(), 2, "below the element only");
    assert!(matches!(find(PAGE, "count(//*)", None), Err(XPathError::NotElements)));
    assert!(find(PAGE, "//*[", None).is_err());
    assert!(find(PAGE, &format!("//*[@text='{}']", "[".repeat(3000)), None).is_err(), "length is bounded");
    assert!(places("//*[@text='[[[[[']").is_empty(), "literals are not nesting");
    assert_eq!(places("//*[.//*[.//*]]"), vec![vec![0]], "a small page allows nesting");
}

#[test]
fn axes_positions_and_functions_follow_xpath_1() {
    let top = vec![0, 0];
    let (a, b) = (vec![0, 1, 0], vec![0, 1, 1]);
    let list = vec![0, 1];
    assert_eq!(places("//android.widget.TextView[2]"), vec![b.clone()], "the 2nd child of its parent");
    assert_eq!(places("(//android.widget.TextView)[2]"), vec![a.clone()], "the 2nd in the document");
    assert_eq!(places("(//android.widget.TextView)[last()]"), vec![b.clone()]);
    assert_eq!(places("//*[@text='b']/preceding-sibling::*"), vec![a.clone()]);
    assert_eq!(places("//*[@text='a']/following-sibling::*[1]"), vec![b.clone()]);
    assert_eq!(places("//*[@text='b']/preceding::*[1]"), vec![a.clone()], "a reverse axis counts back");
    assert_eq!(places("//*[@text='b']/preceding::*"), vec![top.clone(), a.clone()]);
    assert_eq!(places("//*[@text='top']/following::*"), vec![list.clone(), a.clone(), b.clone()]);
    assert_eq!(places("//*[@text='a']/ancestor::*[1]"), vec![list.clone()]);
    assert_eq!(places("//*[@text='a']/ancestor-or-self::android.widget.ListView"), vec![list.clone()]);
    assert_eq!(places("//*[@text='a']/.."), vec![list.clone()]);
    assert_eq!(places("//@text[.='b']/.."), vec![b.clone()], "an attribute's parent is its element");
    assert_eq!(places("//*[@text and not(@text='top')]"), vec![a.clone(), b.clone()]);
    assert_eq!(places("//*[@text='a' or @text='b']"), vec![a.clone(), b.clone()]);
    assert_eq!(places("//*[starts-with(@text, 't') and string-length(@text) = 3]"), vec![top.clone()]);
    assert_eq!(places("//*[count(*) = 2]"), vec![vec![0], list.clone()]);
    assert_eq!(places("//*[count(*) > 1 and position() = 1]"), vec![vec![0]], "position among its siblings");
    assert_eq!(places("//android.widget.TextView[position() > 1]"), vec![b.clone()]);
    assert_eq!(places("//*[translate(@text, 'ab', 'AB') = 'B']"), vec![b.clone()]);
    assert_eq!(places("//*[substring(@text, 2) = 'op']"), vec![top.clone()]);
    assert_eq!(places("//*[substring-before(concat(@text, '-x'), '-') = 'a']"), vec![a.clone()]);
    assert_eq!(places("//*[normalize-space('  a  ') = @text]"), vec![a.clone()]);
    assert_eq!(places("//*[local-name() = 'android.widget.ListView']"), vec![list.clone()]);
    assert_eq!(places("//*[@text = //*[@text='a']/@text]"), vec![a.clone()], "node-sets compare by their values");
    assert_eq!(places("//*[@text][1 + 1 * 2 = 3]").len(), 3);
    assert_eq!(places("//*[@text][5 mod 3 = 2 and 7 div 2 = 3.5 and -(-1) = 1]").len(), 3);
    assert_eq!(places("//*[@text][floor(1.5) = 1 and ceiling(1.2) = 2 and round(2.5) = 3]").len(), 3);
    assert_eq!(places("//*[@text][number('12') = 12 and boolean('x') and not(number('x') = number('x'))]").len(), 3);
    assert_eq!(places("//*[@text='a'] | //*[@text='top']"), vec![top.clone(), a.clone()], "a union in document order");
    assert_eq!(places("//*[self::android.widget.ListView]"), vec![list]);
    assert!(places("//*[@missing='x']").is_empty());
    assert!(places("//text()").is_empty(), "text nodes are not elements");
    for bad in ["//*[nosuch()]", "//*[count()]", "$x", "//*[@a = ]", "child::", "//*[1]]"] {
        assert!(find(PAGE, bad, None).is_err(), "{bad}");
    }
}

#[test]
fn work_is_bounded_at_run_time_whatever_the_axes() {
    let many: String = (0..2000).map(|i| format!(r#"<v text="t{i}"/>"#)).collect();
    let big = format!("<hierarchy><root>{many}</root></hierarchy>");
    assert_eq!(find(&big, "//*[@text='t1999']", None).unwrap(), vec![vec![0, 1999]]);
    assert_eq!(find(&big, "//v[last()]", None).unwrap(), vec![vec![0, 1999]]);
    // Each nests walks over the page in its predicates: quadratic or worse.
    for runaway in [
        "//*[following-sibling::*[preceding-sibling::*]]",
        "//*[preceding::*[following::*]]",
        "//*[ancestor-or-self::*/following-sibling::*[preceding-sibling::*]]",
        "//*[count(preceding::*) = count(following::*)]",
        "//*[following::*/@text = preceding::*/@text]",
        "//*[string-length(concat(//*/@text, //*/@text, //*/@text)) > 0][following::*]",
    ] {
        let refused = find(&big, runaway, None);
        assert!(matches!(refused, Err(XPathError::TooMuchWork { elements: 2002, .. })), "{runaway}: {refused:?}");
    }
    // Nesting on a deep page is the same: walks within walks.
    let deep = format!("<h>{}{}</h>", "<n>".repeat(400), "</n>".repeat(400));
    assert!(matches!(find(&deep, "//*[.//*[.//*[.//*]]]", None), Err(XPathError::TooMuchWork { .. })));
    let small = find_within(PAGE, "//*[preceding::*[following::*]]", None, 10);
    assert!(matches!(small, Err(XPathError::TooMuchWork { steps: 10, .. })), "{small:?}");
}

#[test]
fn a_page_past_its_node_budget_is_refused() {
    let refused = find("<a/>", "//*", None).unwrap();
    assert!(refused.is_empty(), "the wrapper alone");
    let deep = format!("<h>{}{}</h>", "<n>".repeat(200), "</n>".repeat(200));
    assert_eq!(find(&deep, "//n[not(n)]", None).unwrap()[0].len(), 200, "a deep page is walked without recursion");
    assert!(matches!(find("", "//*", None), Err(XPathError::Page { .. })));
    assert!(matches!(find("<!DOCTYPE h [<!ENTITY a 'b'>]><h/>", "//*", None), Err(XPathError::Page { .. })));
}
