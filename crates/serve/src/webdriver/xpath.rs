//! The `xpath` locator over the observed tree: the page source as `GET /source`
//! writes it (`source.rs`, one XML element per tree element, in the tree's order)
//! searched by the shared evaluator (appium-locators' `xpath`, bounded in length,
//! nesting and work), and the places it answers with mapped back to the tree's
//! elements. Not the other locators (`find.rs`).

use codeact_platform::ui::UiTree;

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
    let scope_path = match scope {
        Some(id) => Some(place_of(tree, id).ok_or_else(|| "the element left the page".to_string())?),
        None => None,
    };
    let places = appium_locators::xpath::find(xml, expr, scope_path.as_deref())
        .map_err(|e| codeact_base::error_text::full_message(&e))?;
    Ok(places.iter().filter_map(|p| id_at(tree, p)).collect())
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
    fn places_map_back_to_the_trees_elements() {
        let (t, xml) = page();
        assert_eq!(find(&t, &xml, "//android.widget.TextView[@text='b']", None).unwrap(), vec![4]);
        assert_eq!(find(&t, &xml, "//*[contains(@text, 'o')]", None).unwrap(), vec![1]);
        assert_eq!(find(&t, &xml, "/hierarchy/*", None).unwrap(), vec![0]);
        assert_eq!(find(&t, &xml, "//*[@resource-id='p:id/top']", None).unwrap(), vec![1]);
        assert_eq!(find(&t, &xml, ".//android.widget.TextView", Some(2)).unwrap(), vec![3, 4]);
        assert_eq!(find(&t, &xml, "//android.widget.TextView", Some(2)).unwrap().len(), 2, "below the element only");
        assert!(find(&t, &xml, "//*[", None).is_err(), "the evaluator's errors come through");
    }
}
