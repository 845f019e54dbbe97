//! The `xpath` locator on the virtual phone: the page source exactly as `GET
//! /source` writes it, searched by appium-locators' `xpath` (XPath 1.0, bounded in
//! length, nesting and work), its places those of the screen's views. Not the
//! other locators.

use crate::page_source::uia2::to_xml;
use crate::screen::Screen;

/// The paths of the views `expr` selects, in document order.
pub(super) fn find(screen: &Screen, expr: &str, scope: Option<&[usize]>) -> Result<Vec<Vec<usize>>, String> {
    appium_locators::xpath::find(&to_xml(screen), expr, scope).map_err(|e| super::reply::whole(&e))
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
