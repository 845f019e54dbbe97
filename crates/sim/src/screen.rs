//! The laid-out screen: one tree of view nodes per window, with pixel bounds.
//!
//! The world builds a `Screen` from its app descriptions; the hierarchy dump and the
//! screenshot renderer both read it, so what a test reads in a dump is exactly what a
//! vision model sees. This module only holds the data; it does not lay anything out.

use crate::emblem::Emblem;

/// A rectangle in screen pixels, `[left,top][right,bottom]` as uiautomator prints it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub(crate) struct Rect {
    pub(crate) left: i32,
    pub(crate) top: i32,
    pub(crate) right: i32,
    pub(crate) bottom: i32,
}

impl Rect {
    pub(crate) fn new(left: i32, top: i32, right: i32, bottom: i32) -> Self {
        Self { left, top, right, bottom }
    }
    pub(crate) fn width(&self) -> i32 {
        self.right - self.left
    }
    pub(crate) fn height(&self) -> i32 {
        self.bottom - self.top
    }
    pub(crate) fn is_empty(&self) -> bool {
        self.width() <= 0 || self.height() <= 0
    }
    pub(crate) fn contains(&self, x: i32, y: i32) -> bool {
        x >= self.left && x < self.right && y >= self.top && y < self.bottom
    }
    /// The part of `self` inside `clip`; empty (zero-size at the clip edge) when disjoint.
    pub(crate) fn intersect(&self, clip: &Rect) -> Rect {
        let left = self.left.max(clip.left);
        let top = self.top.max(clip.top);
        let right = self.right.min(clip.right).max(left);
        let bottom = self.bottom.min(clip.bottom).max(top);
        Rect { left, top, right, bottom }
    }
    pub(crate) fn offset(&self, dx: i32, dy: i32) -> Rect {
        Rect::new(self.left + dx, self.top + dy, self.right + dx, self.bottom + dy)
    }
}

/// How the renderer draws a node. The dump ignores it (it prints `class` instead).
#[derive(Debug, Clone, PartialEq, Default)]
pub(crate) enum Role {
    /// Draws nothing itself; only its children.
    #[default]
    Container,
    /// A solid background filling the bounds (window backgrounds, app bars, cards).
    Surface { color: u32 },
    /// Half-transparent black over everything drawn before (behind dialogs).
    Scrim,
    /// The status bar with clock and battery.
    StatusBar,
    /// A line of text; `size_dp` is the font size, `bold` picks the medium weight.
    Label { size_dp: f32, color: u32, bold: bool },
    /// A two-state switch; reads `checked` and `enabled` from the node.
    Switch,
    /// An editable text field: shows `text`, or `hint` in grey when `text` is empty;
    /// a focused field gets an accent underline and a caret.
    Field,
    /// A filled button with its `text` (or `content_desc`) centred.
    Button { color: u32 },
    /// A round floating button showing a glyph (`+`, `✎`, ...).
    Fab { color: u32, glyph: String },
    /// An app icon: a coloured shape with its emblem in white (else the label's first
    /// letter) and the label below.
    Icon { shape: IconShape, color: u32, emblem: Option<Emblem> },
    /// A picture: the emblem in `color` filling the bounds, drawn over `backdrop`
    /// (what its cut-outs show; a game's canvas, or a page's background).
    Sprite { emblem: Emblem, color: u32, backdrop: u32 },
    /// A horizontal slider with a filled part `value / max`.
    Slider { value: i64, max: i64 },
    /// A toolbar button drawn as a glyph (`←` for Navigate up, `⋮`, `✓`, ...).
    ToolButton { glyph: String },
    /// The on-screen keyboard (its keys are drawn by the renderer).
    Keyboard,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub(crate) enum IconShape {
    #[default]
    Circle,
    Square,
    Squircle,
    Triangle,
    Hexagon,
}

impl IconShape {
    pub(crate) fn parse(name: &str) -> Option<Self> {
        Some(match name {
            "circle" => Self::Circle,
            "square" => Self::Square,
            "squircle" => Self::Squircle,
            "triangle" => Self::Triangle,
            "hexagon" => Self::Hexagon,
            _ => return None,
        })
    }
}

/// One view, as uiautomator reports it, plus how to draw it.
#[derive(Debug, Clone, Default)]
pub(crate) struct Node {
    pub(crate) class: String,
    pub(crate) text: String,
    pub(crate) resource_id: String,
    pub(crate) package: String,
    pub(crate) content_desc: String,
    /// The EditText hint; the dump reports it as `text` while the field is empty.
    pub(crate) hint: String,
    pub(crate) checkable: bool,
    pub(crate) checked: bool,
    pub(crate) clickable: bool,
    pub(crate) enabled: bool,
    pub(crate) focusable: bool,
    pub(crate) focused: bool,
    pub(crate) scrollable: bool,
    pub(crate) long_clickable: bool,
    pub(crate) password: bool,
    pub(crate) selected: bool,
    /// Visible bounds, already clipped to the scroll viewport and the screen.
    pub(crate) bounds: Rect,
    pub(crate) role: Role,
    pub(crate) children: Vec<Node>,
    /// What a tap, long press or typed text on this node does (world-private key).
    pub(crate) hook: Option<Hook>,
    /// Drawn and touchable but in no page source (a game's sprites on its canvas),
    /// as when an app paints controls itself.
    pub(crate) drawn_only: bool,
}

impl Node {
    /// Whether page sources (uiautomator, WebDriverAgent, uitest) list this node:
    /// scrims and drawn-only nodes are left out, with their children.
    pub(crate) fn in_page_source(&self) -> bool {
        self.role != Role::Scrim && !self.drawn_only
    }

    /// A boolean attribute by its page-source name (`checkable`, `long-clickable`...);
    /// false for a name no page source has.
    pub(crate) fn flag(&self, name: &str) -> bool {
        match name {
            "checkable" => self.checkable,
            "checked" => self.checked,
            "clickable" => self.clickable,
            "enabled" => self.enabled,
            "focusable" => self.focusable,
            "focused" => self.focused,
            "scrollable" => self.scrollable,
            "long-clickable" => self.long_clickable,
            "password" => self.password,
            "selected" => self.selected,
            _ => false,
        }
    }

    /// Whether this window is the on-screen keyboard (any input method's): the iOS
    /// and HarmonyOS doors show their platform's own keyboard in its place.
    pub(crate) fn is_keyboard_window(&self) -> bool {
        self.role == Role::Keyboard
            || self.hook == Some(Hook::Keyboard)
            || self.package == "com.android.adbkeyboard"
            || self.package == "com.droidrun.portal"
            || self.package.contains("inputmethod")
    }
}

/// Links a node back to the world so that input can act on it (never dumped).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Hook {
    /// An item of the screen's description; `record` for rows made from a collection.
    Item {
        item: usize,
        record: Option<usize>,
    },
    /// A button of the dialog on top.
    DialogButton(usize),
    /// A launcher icon of the app with this index.
    AppIcon(usize),
    /// The on-screen keyboard (which key is decided by the renderer's key geometry).
    Keyboard,
    /// The app bar's "Navigate up" button.
    NavUp,
    /// The navigation bar's buttons.
    NavBack,
    NavHome,
    NavRecents,
}

/// All windows on screen, bottom-most first (the app, then dialogs, then the keyboard).
#[derive(Debug, Clone, Default)]
pub(crate) struct Screen {
    pub(crate) width: u32,
    pub(crate) height: u32,
    pub(crate) density: u32,
    pub(crate) windows: Vec<Node>,
    /// The window with input focus (the top dialog, else the app): what a plain
    /// `uiautomator dump` prints.
    pub(crate) active: usize,
    /// The theme and font scale it is drawn with.
    pub(crate) look: Look,
}

/// How the phone is set to look (drawing only; layout and page sources are alike).
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct Look {
    /// The dark theme: light text on dark surfaces (brand colours stay).
    pub(crate) dark: bool,
    /// Text size multiplier (Android's `font_scale`), 0.5..=2.0.
    pub(crate) font_scale: f32,
}

impl Default for Look {
    fn default() -> Self {
        Self { dark: false, font_scale: 1.0 }
    }
}

impl Screen {
    /// Device-independent pixels to screen pixels at this density.
    pub(crate) fn dp(&self, dp: f32) -> i32 {
        (dp * self.density as f32 / 160.0).round() as i32
    }
}
