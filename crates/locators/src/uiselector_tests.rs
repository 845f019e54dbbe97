//! The UiSelector reader's and matcher's tests (what Appium users write, read back).

use super::*;

#[test]
fn reads_what_appium_users_write() {
    assert!(matches!(parse("new UiSelector().text(\"Wi-Fi\")"), Ok(Query::Plain(f)) if f["text"] == "Wi-Fi"));
    assert!(
        matches!(parse("new UiSelector().resourceId(\"a:id/b\").instance(1);"), Ok(Query::Plain(f)) if f["instance"] == 1)
    );
    assert!(
        matches!(parse("UiSelector().clickable(true).textContains(\"a\\\"b\")"), Ok(Query::Plain(f)) if f["textContains"] == "a\"b")
    );
    let scroll = "new UiScrollable(new UiSelector().scrollable(true)).setMaxSearchSwipes(5).scrollIntoView(new UiSelector().text(\"About\"))";
    assert!(matches!(parse(scroll), Ok(Query::Scroll(s)) if s.max_swipes == 5 && !s.horizontal));
    assert!(parse("new UiSelector().childSelector(new UiSelector().text(\"a\"))").is_err());
    assert!(parse("new UiSelector().bogus(\"a\")").is_err());
    assert!(parse("new UiSelector().text(\"a\"").is_err());
    assert!(parse(&"new UiScrollable(".repeat(50)).is_err(), "nesting is bounded");
    assert!(parse(&"x".repeat(MOST_CHARS + 1)).is_err(), "length is bounded");
    assert!(matches!(parse("new UiSelector().text(\"\\u00e9\")"), Ok(Query::Plain(f)) if f["text"] == "\u{e9}"));
}

struct Plain(&'static str, bool);

impl View for Plain {
    fn text(&self) -> &str {
        self.0
    }
    fn class(&self) -> &str {
        "android.widget.Switch"
    }
    fn description(&self) -> &str {
        ""
    }
    fn package(&self) -> &str {
        "p"
    }
    fn resource_id(&self) -> &str {
        "p:id/wifi"
    }
    fn state(&self, name: &str) -> bool {
        name == "checked" && self.1
    }
}

fn selector(text: &str) -> Selector {
    match parse(text) {
        Ok(Query::Plain(f)) => Selector::compile(&f).unwrap(),
        other => panic!("{other:?}"),
    }
}

#[test]
fn selectors_match_as_uiautomator_does() {
    let wifi = Plain("Wi-Fi", true);
    assert!(selector("new UiSelector().text(\"Wi-Fi\").checked(true)").accepts(&wifi, 0));
    assert!(selector("new UiSelector().textMatches(\"W.*i\").className(\"android.widget.Switch\")").accepts(&wifi, 0));
    assert!(!selector("new UiSelector().textMatches(\"W\")").accepts(&wifi, 0), "the whole text must match");
    assert!(selector("new UiSelector().resourceIdMatches(\".*:id/wifi\").index(2)").accepts(&wifi, 2));
    assert!(!selector("new UiSelector().checked(false)").accepts(&wifi, 0));
    assert_eq!(selector("new UiSelector().textStartsWith(\"Wi\").instance(3)").instance(), Some(3));
    let fields = match parse("new UiSelector().textMatches(\"(\")") {
        Ok(Query::Plain(f)) => f,
        other => panic!("{other:?}"),
    };
    assert!(Selector::compile(&fields).is_err(), "a pattern that is not one");
}
