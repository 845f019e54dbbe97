//! Android key codes: names (`KEYCODE_BACK`, `BACK`) ↔ numbers, as `input keyevent`
//! understands them, plus the friendlier names scripts use (`back`, `enter`,
//! `delete`). Shared by the virtual device and the runtime's device layer.
//!
//! Only the keys automation uses are listed; anything else can be sent by number.

pub const HOME: u32 = 3;
pub const BACK: u32 = 4;
pub const TAB: u32 = 61;
pub const ENTER: u32 = 66;
pub const DEL: u32 = 67;
pub const PASTE: u32 = 279;

/// (name without the `KEYCODE_` prefix, code).
const NAMED: &[(&str, u32)] = &[
    ("UNKNOWN", 0),
    ("SOFT_LEFT", 1),
    ("SOFT_RIGHT", 2),
    ("HOME", 3),
    ("BACK", 4),
    ("CALL", 5),
    ("ENDCALL", 6),
    ("STAR", 17),
    ("POUND", 18),
    ("DPAD_UP", 19),
    ("DPAD_DOWN", 20),
    ("DPAD_LEFT", 21),
    ("DPAD_RIGHT", 22),
    ("DPAD_CENTER", 23),
    ("VOLUME_UP", 24),
    ("VOLUME_DOWN", 25),
    ("POWER", 26),
    ("CAMERA", 27),
    ("CLEAR", 28),
    ("COMMA", 55),
    ("PERIOD", 56),
    ("ALT_LEFT", 57),
    ("ALT_RIGHT", 58),
    ("SHIFT_LEFT", 59),
    ("SHIFT_RIGHT", 60),
    ("TAB", 61),
    ("SPACE", 62),
    ("SYM", 63),
    ("EXPLORER", 64),
    ("ENVELOPE", 65),
    ("ENTER", 66),
    ("DEL", 67),
    ("GRAVE", 68),
    ("MINUS", 69),
    ("EQUALS", 70),
    ("LEFT_BRACKET", 71),
    ("RIGHT_BRACKET", 72),
    ("BACKSLASH", 73),
    ("SEMICOLON", 74),
    ("APOSTROPHE", 75),
    ("SLASH", 76),
    ("AT", 77),
    ("NUM", 78),
    ("HEADSETHOOK", 79),
    ("FOCUS", 80),
    ("PLUS", 81),
    ("MENU", 82),
    ("NOTIFICATION", 83),
    ("SEARCH", 84),
    ("MEDIA_PLAY_PAUSE", 85),
    ("MEDIA_STOP", 86),
    ("MEDIA_NEXT", 87),
    ("MEDIA_PREVIOUS", 88),
    ("PAGE_UP", 92),
    ("PAGE_DOWN", 93),
    ("ESCAPE", 111),
    ("FORWARD_DEL", 112),
    ("CTRL_LEFT", 113),
    ("MOVE_HOME", 122),
    ("MOVE_END", 123),
    ("VOLUME_MUTE", 164),
    ("APP_SWITCH", 187),
    ("SLEEP", 223),
    ("WAKEUP", 224),
    ("PASTE", 279),
    ("ALL_APPS", 284),
];

/// Codes of `KEYCODE_0`..`KEYCODE_9` and `KEYCODE_A`..`KEYCODE_Z`.
const DIGIT_0: u32 = 7;
const LETTER_A: u32 = 29;

/// `KEYCODE_BACK`, `BACK`, `back` or `4` → 4. `None` for unknown names.
pub fn parse(name: &str) -> Option<u32> {
    if let Ok(code) = name.parse::<u32>() {
        return Some(code);
    }
    let upper = name.to_ascii_uppercase();
    let bare = upper.strip_prefix("KEYCODE_").unwrap_or(&upper);
    if let Some((_, code)) = NAMED.iter().find(|(n, _)| *n == bare) {
        return Some(*code);
    }
    let mut chars = bare.chars();
    match (chars.next(), chars.next()) {
        (Some(c @ '0'..='9'), None) => Some(DIGIT_0 + (c as u32 - '0' as u32)),
        (Some(c @ 'A'..='Z'), None) => Some(LETTER_A + (c as u32 - 'A' as u32)),
        _ => None,
    }
}

/// What people call a key, for the keys a script presses most: `back`, `home`,
/// `enter`/`return`, `delete`/`backspace`, `tab`, `space`, `recents`, `esc`... Falls
/// back to [`parse`] (Android's own names and numbers).
pub fn from_friendly_name(name: &str) -> Option<u32> {
    let code = match name.to_ascii_lowercase().as_str() {
        "back" => BACK,
        "home" => HOME,
        "enter" | "return" => ENTER,
        "delete" | "del" | "backspace" => DEL,
        "forward_delete" => 112,
        "tab" => 61,
        "space" => 62,
        "menu" => 82,
        "recents" | "app_switch" | "overview" => 187,
        "power" => 26,
        "volume_up" => 24,
        "volume_down" => 25,
        "search" => 84,
        "escape" | "esc" => 111,
        _ => return parse(name),
    };
    Some(code)
}

/// 4 → `KEYCODE_BACK`; codes without a name print as their number.
pub fn name(code: u32) -> String {
    if let Some((n, _)) = NAMED.iter().find(|(_, c)| *c == code) {
        return format!("KEYCODE_{n}");
    }
    match char_of(code) {
        Some(c) => format!("KEYCODE_{}", c.to_ascii_uppercase()),
        None => code.to_string(),
    }
}

/// The character a key types without modifiers (`KEYCODE_A` → `a`, `SPACE` → ` `).
pub fn char_of(code: u32) -> Option<char> {
    match code {
        c if (DIGIT_0..DIGIT_0 + 10).contains(&c) => char::from_digit(c - DIGIT_0, 10),
        c if (LETTER_A..LETTER_A + 26).contains(&c) => char::from_u32('a' as u32 + (c - LETTER_A)),
        62 => Some(' '),
        17 => Some('*'),
        18 => Some('#'),
        68 => Some('`'),
        71 => Some('['),
        72 => Some(']'),
        73 => Some('\\'),
        74 => Some(';'),
        75 => Some('\''),
        81 => Some('+'),
        55 => Some(','),
        56 => Some('.'),
        69 => Some('-'),
        70 => Some('='),
        76 => Some('/'),
        77 => Some('@'),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_and_codes() {
        assert_eq!(parse("KEYCODE_BACK"), Some(4));
        assert_eq!(parse("back"), Some(4));
        assert_eq!(parse("66"), Some(66));
        assert_eq!(parse("KEYCODE_A"), Some(29));
        assert_eq!(parse("KEYCODE_9"), Some(16));
        assert_eq!(parse("NOPE"), None);
        assert_eq!(name(3), "KEYCODE_HOME");
        assert_eq!(name(30), "KEYCODE_B");
        assert_eq!(char_of(29), Some('a'));
        assert_eq!(char_of(62), Some(' '));
        assert_eq!(from_friendly_name("Back"), Some(4));
        assert_eq!(from_friendly_name("backspace"), Some(67));
        assert_eq!(from_friendly_name("KEYCODE_ENTER"), Some(66));
        assert_eq!(from_friendly_name("187"), Some(187));
        assert_eq!(from_friendly_name("nope"), None);
        assert_eq!(parse("backspace"), None, "Android's own names only");
    }
}
