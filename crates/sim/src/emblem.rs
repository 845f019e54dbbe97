//! The pictures the virtual phone can draw where a real phone has artwork: what an
//! app icon shows (a gear, an envelope, a clock face…) and a game's sprites (a star,
//! a heart, a bomb…). Only the names and their parsing live here; `render/emblems.rs`
//! draws them. They exist so that a reference picture recorded on one screen has
//! something distinctive to be found by on another (letters on coloured shapes look
//! alike to a matcher).

/// One drawable picture. Names are the lower-case variant names (`"gear"`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Emblem {
    Gear,
    Bubble,
    Person,
    Calendar,
    Clock,
    Folder,
    Note,
    Card,
    Gamepad,
    Star,
    Heart,
    Diamond,
    Bomb,
    Coin,
    Bolt,
    Play,
    Pause,
    Trophy,
    Moon,
    Key,
    Bag,
    Globe,
    Music,
    Pin,
    Check,
    Cup,
    Tree,
    Bed,
}

impl Emblem {
    /// Every emblem, in the order `names()` lists them.
    pub(crate) const ALL: [Emblem; 28] = [
        Self::Gear,
        Self::Bubble,
        Self::Person,
        Self::Calendar,
        Self::Clock,
        Self::Folder,
        Self::Note,
        Self::Card,
        Self::Gamepad,
        Self::Star,
        Self::Heart,
        Self::Diamond,
        Self::Bomb,
        Self::Coin,
        Self::Bolt,
        Self::Play,
        Self::Pause,
        Self::Trophy,
        Self::Moon,
        Self::Key,
        Self::Bag,
        Self::Globe,
        Self::Music,
        Self::Pin,
        Self::Check,
        Self::Cup,
        Self::Tree,
        Self::Bed,
    ];

    pub(crate) fn name(self) -> &'static str {
        match self {
            Self::Gear => "gear",
            Self::Bubble => "bubble",
            Self::Person => "person",
            Self::Calendar => "calendar",
            Self::Clock => "clock",
            Self::Folder => "folder",
            Self::Note => "note",
            Self::Card => "card",
            Self::Gamepad => "gamepad",
            Self::Star => "star",
            Self::Heart => "heart",
            Self::Diamond => "diamond",
            Self::Bomb => "bomb",
            Self::Coin => "coin",
            Self::Bolt => "bolt",
            Self::Play => "play",
            Self::Pause => "pause",
            Self::Trophy => "trophy",
            Self::Moon => "moon",
            Self::Key => "key",
            Self::Bag => "bag",
            Self::Globe => "globe",
            Self::Music => "music",
            Self::Pin => "pin",
            Self::Check => "check",
            Self::Cup => "cup",
            Self::Tree => "tree",
            Self::Bed => "bed",
        }
    }

    pub(crate) fn parse(name: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|e| e.name() == name)
    }

    /// The known names, comma-separated (for error messages).
    pub(crate) fn names() -> String {
        Self::ALL.map(Self::name).join(", ")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_name_parses_back() {
        for e in Emblem::ALL {
            assert_eq!(Emblem::parse(e.name()), Some(e));
        }
        assert_eq!(Emblem::parse("Gear"), None);
        assert!(Emblem::names().starts_with("gear, bubble"));
    }
}
