//! The REPL's meta-commands (`:help`, `:state`, ...) and what each does, as one
//! table that `:help` prints and Tab completion offers. Not what a command does
//! when it runs (`mod.rs`) nor how lines are completed (`helper.rs`).

/// The meta-commands, with what they do (`:help` prints this).
pub const META: &[(&str, &str)] = &[
    (":help", "this help: meta-commands and the session's tools"),
    (":tools", "the tools this session has, with their docs"),
    (":state", "read the screen and show it as the LLM sees it (indices match ui_state)"),
    (":screenshot [FILE]", "save a screenshot as PNG (default screenshot-N.png)"),
    (":vars", "the variables this session holds"),
    (":reset", "forget variables, functions and remembered facts"),
    (":load FILE", "run a script file here (its functions and variables stay; its imports come from its folder)"),
    (
        ":inspect X Y",
        "the element at that point (pixels, or fractions 0..1): what it is and the selectors that find it",
    ),
    (":pick N", "the same for ui_state's element N (the index :state shows)"),
    (":save FILE", "write this session's snippets that ran without an error as a script (:save! FILE replaces a file)"),
    (":quit", "leave (also Ctrl-D)"),
];
