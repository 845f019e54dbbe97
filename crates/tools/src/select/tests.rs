//! Selectors on a small screen: strings, maps and relations; mistakes that say what
//! to write; limits that refuse a selector built in a loop; recorded selectors read as
//! data; every documented example.

use super::*;
use rhai::{Dynamic, Map};

/// Two labelled switches and a search field (the selector tests' screen).
pub(crate) fn tree() -> UiTree {
    codeact_platform::ui::samples::switches()
}

fn sel(code: &str) -> Selector {
    let engine = rhai::Engine::new_raw();
    let value: Dynamic = engine.eval_expression(code).unwrap();
    Selector::from_dynamic(&value).unwrap()
}

#[test]
fn strings_maps_and_relations() {
    let t = tree();
    let text = |code: &str| sel(code).find(&t).map(|e| e.text.clone());
    assert_eq!(text(r#""Wi-Fi""#).as_deref(), Some("Wi-Fi"), "exact");
    assert_eq!(text(r#""wi-f""#).as_deref(), Some("Wi-Fi"), "else contains, any case");
    assert_eq!(sel(r#""Search""#).find(&t).map(|e| e.class.as_str()), Some("android.widget.EditText"), "hint");
    assert!(sel(r#""Wi-.*""#).find(&t).is_none(), "a string is never a regex");
    assert_eq!(text(r#"#{text_matches: "Wi-.*"}"#).as_deref(), Some("Wi-Fi"));
    assert_eq!(text(r#"#{text_starts_with: "Blue"}"#).as_deref(), Some("Bluetooth"));
    assert_eq!(text(r#"#{text_contains: "tooth"}"#).as_deref(), Some("Bluetooth"));
    assert!(sel(r#"#{text: "Wi"}"#).find(&t).is_none(), "text is exact");
    assert_eq!(sel(r#"#{id: "bt_switch"}"#).find(&t).map(|e| e.checked), Some(false));
    assert_eq!(sel(r#"#{id: "p:id/bt_switch"}"#).find(&t).map(|e| e.checked), Some(false), "with the package");
    assert!(sel(r#"#{id: "switch"}"#).find(&t).is_none());
    assert_eq!(sel(r#"#{id_contains: "switch"}"#).find_all(&t).len(), 2);
    let below = sel(r#"#{class: "Switch", below: "Wi-Fi"}"#);
    assert_eq!(below.find(&t).map(|e| e.resource_id.as_str()), Some("p:id/bt_switch"));
    assert_eq!(sel(r#"#{class: "Switch", nth: 1}"#).find(&t).map(|e| e.resource_id.as_str()), Some("p:id/bt_switch"));
    assert_eq!(sel(r#"#{class: "Switch", checked: true}"#).find_all(&t).len(), 1);
    assert_eq!(sel(r#"#{editable: true}"#).find(&t).map(|e| e.hint.as_str()), Some("Search"));
    assert_eq!(sel(r#"#{text: "Wi-Fi", inside: #{class: "LinearLayout"}}"#).find(&t).map(|e| e.id), Some(2));
    assert_eq!(sel(r#"#{class: "LinearLayout", has: #{text: "Bluetooth"}}"#).find(&t).map(|e| e.id), Some(4));
    assert!(sel(r#"#{text: "Wi-Fi", inside: #{id: "bt_row"}}"#).find(&t).is_none());
    let err = Selector::from_dynamic(&Dynamic::from(3_i64)).unwrap_err();
    assert!(err.to_string().contains("string or a map"), "{err}");
}

#[test]
fn mistakes_are_errors_that_say_what_to_write() {
    let engine = rhai::Engine::new_raw();
    let err = |code: &str| {
        let value: Dynamic = engine.eval_expression(code).unwrap();
        Selector::from_dynamic(&value).unwrap_err().to_string()
    };
    assert!(
        err(r#"#{text_matches: "(Mobile"}"#).contains("not a valid regex"),
        "{}",
        err(r#"#{text_matches: "(Mobile"}"#)
    );
    assert!(err(r#"#{text_matches: "(Mobile"}"#).contains("text_contains or text"));
    assert!(err(r#"#{id: "x", index: 4}"#).contains("tap_by_index(4)"));
    assert!(err(r#"#{colour: "red"}"#).contains("unknown selector key \"colour\""));
    assert!(err(r#"#{nth: -1}"#).contains("≥ 0"));
    assert!(err(r#"#{checked: "yes"}"#).contains("true or false"));
    assert!(err(r#"#{text_matches: "(\\w{1000}){1000}"}"#).contains("1 MiB"));
    let deep = (0..40).fold(Dynamic::from("x"), |inner, _| {
        let mut m = Map::new();
        m.insert("below".into(), inner);
        Dynamic::from(m)
    });
    assert!(Selector::from_dynamic(&deep).unwrap_err().to_string().contains("nest at most"));
}

#[test]
fn a_selector_built_in_a_loop_is_refused_before_it_costs_anything() {
    // Each level holds the one before twice, with a regex at every level: 2^16
    // parts and as many compilations, were the parts not counted.
    let doubling = (0..16).fold(Dynamic::from("x"), |inner, i| {
        let mut m = Map::new();
        m.insert("text_matches".into(), Dynamic::from(format!("(a|b|c){{{}}}", 50 + i)));
        m.insert("below".into(), inner.clone());
        m.insert("above".into(), inner);
        Dynamic::from(m)
    });
    let started = std::time::Instant::now();
    let err = Selector::from_dynamic(&doubling).unwrap_err();
    assert!(matches!(err, SelectorError::TooManyParts | SelectorError::TooManyPatterns), "{err}");
    assert!(started.elapsed() < std::time::Duration::from_secs(2), "took {:?}", started.elapsed());

    let patterns = (0..MAX_PATTERNS + 1).fold(Dynamic::from("x"), |inner, i| {
        let mut m = Map::new();
        m.insert("text_matches".into(), Dynamic::from(format!("a{i}")));
        m.insert("inside".into(), inner);
        Dynamic::from(m)
    });
    // 17 levels nest too deep too; either limit refuses it.
    assert!(Selector::from_dynamic(&patterns).is_err());
    let mut wide = Map::new();
    for (i, key) in ["text_matches", "desc_matches", "hint_matches", "id_matches", "class_matches"].iter().enumerate() {
        wide.insert((*key).into(), Dynamic::from(format!("p{i}")));
    }
    let mut several = Map::new();
    for (i, key) in ["below", "above", "left_of", "right_of"].iter().enumerate() {
        let _ = i;
        several.insert((*key).into(), Dynamic::from(wide.clone()));
    }
    let err = Selector::from_dynamic(&Dynamic::from(several)).unwrap_err();
    assert_eq!(err, SelectorError::TooManyPatterns, "20 regexes in one selector");

    let big = Dynamic::from("x".repeat(MAX_TEXT_BYTES + 1));
    assert_eq!(Selector::from_dynamic(&big).unwrap_err(), SelectorError::TooMuchText);

    let past = std::time::Instant::now() - std::time::Duration::from_millis(1);
    let mut m = Map::new();
    m.insert("text_matches".into(), Dynamic::from("a+"));
    assert_eq!(Selector::from_dynamic_until(&Dynamic::from(m), past).unwrap_err(), SelectorError::OutOfTime);
}

#[test]
fn a_recorded_selector_is_read_as_data_and_nothing_else() {
    let t = tree();
    let found = |src: &str| Selector::from_source(src).map(|s| s.find(&t).map(|e| e.text.clone()));
    assert_eq!(found(r#"#{"text": "Wi-Fi"}"#).unwrap().as_deref(), Some("Wi-Fi"));
    assert_eq!(found(r#""Bluetooth""#).unwrap().as_deref(), Some("Bluetooth"));
    for hostile in ["loop { }", "{ let x = 1; loop {} }", "if true { \"a\" } else { \"b\" }", "|| 1", "f()"] {
        let started = std::time::Instant::now();
        assert!(Selector::from_source(hostile).is_err(), "{hostile} is refused");
        assert!(started.elapsed() < std::time::Duration::from_millis(500), "{hostile}");
    }
    assert_eq!(Selector::from_source(&"\"".repeat(300_000)).unwrap_err(), SelectorError::TooMuchText);
}

#[test]
fn every_documented_example_parses() {
    let engine = rhai::Engine::new_raw();
    for (key, _, example) in SELECTOR_KEYS {
        let value: Dynamic = engine.eval_expression(example).unwrap_or_else(|e| panic!("{key}: {example}: {e}"));
        assert!(Selector::from_dynamic(&value).is_ok(), "{key}: {example}");
    }
}

#[test]
fn an_image_selector_names_a_picture_and_a_chain_tries_the_tree_first() {
    let parse = |src: &str| Selector::from_source(src);
    let s = parse(r#"#{image: "send_button", threshold: 0.85}"#).unwrap();
    assert_eq!(s.image, Some(super::ImageWant { name: "send_button".into(), threshold: Some(0.85) }));
    assert_eq!(parse(r#"#{threshold: 0.9, image: "a"}"#).unwrap().image.unwrap().threshold, Some(0.9));
    assert_eq!(parse(r#"#{image: "a", threshold: 2.0}"#).unwrap_err(), SelectorError::BadThreshold);
    assert_eq!(parse(r#"#{threshold: 0.5}"#).unwrap_err(), SelectorError::BadThreshold);
    assert!(matches!(parse(r#"#{image: "../x"}"#).unwrap_err(), SelectorError::BadImageName(_)));
    assert!(matches!(parse(r#"#{ai: "  "}"#).unwrap_err(), SelectorError::BadDescription(_)));
    assert!(matches!(parse(r#"#{ai: 3}"#).unwrap_err(), SelectorError::WrongType { .. }));
    assert_eq!(parse(r#"#{text: "OK", below: #{ai: "logo"}}"#).unwrap_err(), SelectorError::LocatedNested);
    assert!(parse(r#"#{image: "a", no_scroll: true}"#).is_ok());
    // Alone, it matches only the element a lookup adds, never the tree's own.
    let mut t = tree();
    assert!(parse(r#"#{image: "wifi_switch"}"#).unwrap().find(&t).is_none());
    assert!(parse(r#"#{ai: "the wifi switch"}"#).unwrap().find(&t).is_none());
    // A chain: the tree part answers when it can…
    let chain = parse(r#"#{text: "Bluetooth", image: "bt", ai: "the bluetooth row"}"#).unwrap();
    assert!(chain.has_tree_part() && chain.locates());
    assert_eq!(chain.find(&t).map(|e| e.text.as_str()), Some("Bluetooth"));
    // …else the picture's element, else the model's.
    let missing = parse(r#"#{text: "NFC", image: "nfc", ai: "the nfc row"}"#).unwrap();
    assert!(missing.find(&t).is_none());
    let add = |t: &mut UiTree, class: &str, id: String| {
        let e =
            Element { id: t.elements.len(), class: class.into(), resource_id: id, visible: true, ..Default::default() };
        t.elements.push(e);
    };
    add(&mut t, AI_CLASS, ai_id("the nfc row"));
    assert_eq!(missing.find(&t).map(|e| e.class.as_str()), Some(AI_CLASS));
    add(&mut t, IMAGE_CLASS, image_id("nfc"));
    assert_eq!(missing.find(&t).map(|e| e.class.as_str()), Some(IMAGE_CLASS));
    // A tree selector never matches what a lookup added.
    assert!(parse(r#"#{class: "Described"}"#).unwrap().find(&t).is_none());
}

/// A selector written for Android finds the same switch in HarmonyOS's and iOS's
/// page sources, and so do those platforms' own class names.
#[test]
fn android_selectors_find_harmony_and_ios_elements() {
    use codeact_platform::ui::{parse_uitest, parse_xcui, samples};
    let harmony = parse_uitest(samples::HARMONY_SETTINGS.as_bytes(), (1260, 2720)).unwrap();
    let toggle = harmony.elements.iter().find(|e| e.native_class == "Toggle").unwrap();
    for s in
        [r#"#{class: "Switch", right_of: "WLAN"}"#, r#"#{class: "Toggle"}"#, r#"#{id: "wifi_switch", checked: true}"#]
    {
        assert_eq!(Selector::from_source(s).unwrap().find(&harmony).map(|e| e.id), Some(toggle.id), "{s}");
    }
    let ios = parse_xcui(samples::IOS_WIFI.as_bytes(), 3.0, (1179, 2556)).unwrap();
    let switch = ios.elements.iter().find(|e| e.native_class.ends_with("Switch")).unwrap();
    for s in [r#"#{class: "Switch", checked: true}"#, r#"#{class: "XCUIElementTypeSwitch"}"#, r#"#{id: "wifi_switch"}"#]
    {
        assert_eq!(Selector::from_source(s).unwrap().find(&ios).map(|e| e.id), Some(switch.id), "{s}");
    }
}

/// An anchor that matches two places is refused only when they would lead to two
/// different elements: a title and the slider it labels both say "Volume", and the
/// one switch sought lies below both.
#[test]
fn an_anchor_with_places_that_agree_is_no_ambiguity() {
    let dump = r#"<hierarchy rotation="0">
<node class="android.widget.FrameLayout" bounds="[0,0][1080,2400]">
<node class="android.widget.TextView" text="Volume" bounds="[40,200][500,260]"/>
<node class="android.widget.SeekBar" content-desc="Volume" bounds="[40,280][1040,340]"/>
<node class="android.widget.Switch" resource-id="p:id/mute" checkable="true" bounds="[40,400][180,460]"/>
<node class="android.widget.TextView" text="Theme" bounds="[40,600][300,660]"/>
<node class="android.widget.Switch" resource-id="p:id/dark_left" checkable="true" bounds="[40,700][180,760]"/>
<node class="android.widget.ImageView" content-desc="Theme" bounds="[600,600][1040,660]"/>
<node class="android.widget.Switch" resource-id="p:id/dark_right" checkable="true" bounds="[900,700][1040,760]"/>
</node></hierarchy>"#;
    let t = codeact_platform::ui::parse(dump.as_bytes(), (1080, 2400)).unwrap();
    let agree = sel(r#"#{class: "Switch", below: "Volume"}"#);
    assert!(agree.ambiguous_anchor(&t).is_none(), "both places lead to the mute switch");
    assert_eq!(agree.find(&t).map(|e| e.resource_id.as_str()), Some("p:id/mute"));
    // Below "Theme": the nearest switch to the label is the left one, to the picture
    // the right one — two answers, so neither is guessed.
    let two = sel(r#"#{class: "Switch", below: "Theme"}"#);
    let ambiguous = two.ambiguous_anchor(&t).expect("two places, two answers");
    assert_eq!((ambiguous.relation, ambiguous.candidates.len()), ("below", 2));
    assert!(two.find(&t).is_none());
}
