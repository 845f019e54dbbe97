//! Every tool, declared once as a [`ToolSpec`]: grouped by what it works on, listed
//! here in the order the prompt, `codeact tools` and the book show them. Beside the
//! tools: what a spec is (`spec.rs`, `declaration.rs`) and how one registers in the
//! engine (`registry.rs`). Not what the tools share while they run (`context/`).

pub(crate) mod registry;
pub(crate) mod spec;

mod apps;
mod asserts;
mod device;
mod finish;
mod gestures;
mod human;
mod keys;
mod locate;
mod memory;
mod screen;
pub(crate) mod script_watchers;
mod selectors;
mod watch;

use spec::ToolSpec;

/// The catalog, in the order the prompt lists it.
pub const CATALOG: &[ToolSpec] = &[
    gestures::TAP_BY_INDEX,
    gestures::LONG_PRESS_BY_INDEX,
    gestures::TAP_POINT,
    gestures::LONG_PRESS_POINT,
    gestures::SWIPE,
    gestures::DRAG,
    keys::INPUT_TEXT,
    keys::CLEAR_TEXT,
    keys::ERASE,
    keys::PRESS_KEY,
    keys::BACK,
    keys::HOME,
    keys::GO_HOME,
    apps::START_APP,
    apps::OPEN_APP,
    apps::LIST_PACKAGES,
    device::STOP_APP,
    apps::CLEAR_APP_DATA,
    apps::OPEN_URL,
    device::HIDE_KEYBOARD,
    device::GET_CLIPBOARD,
    device::SET_CLIPBOARD,
    memory::REMEMBER,
    memory::MEMORY,
    screen::WAIT,
    screen::REFRESH,
    screen::SCREENSHOT,
    selectors::FIND,
    selectors::FIND_ALL,
    selectors::TAP_SELECTOR,
    selectors::LONG_PRESS_SELECTOR,
    selectors::SET_TEXT,
    selectors::WAIT_FOR,
    selectors::WAIT_GONE,
    asserts::ASSERT_VISIBLE,
    asserts::ASSERT_NOT_VISIBLE,
    selectors::SCROLL_UNTIL_VISIBLE,
    selectors::SCROLL,
    selectors::SWIPE_ON,
    locate::LOCATE,
    watch::WATCH,
    watch::WATCH_NAMED,
    watch::UNWATCH,
    device::SHELL,
    memory::ANSWER,
    human::ASK_USER,
    human::TAKE_OVER,
    human::TYPE_SECRET,
    finish::COMPLETE,
];
