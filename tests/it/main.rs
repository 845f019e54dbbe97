//! The runtime's integration tests, in one binary (the runtime and the virtual device
//! are linked once): the agent over a scripted LLM (`agent_run`), the device layer
//! (`device_adb`), `exec` and the REPL (`exec_scripts`, `exec_repl`), hostile
//! snippets (`hostile`), the iOS and HarmonyOS doors (`wda_door`, `hdc_door`), a
//! person in the loop (`human_loop`), strategies and roles (`strategies`), memory
//! and replay (`memory`), real dumps (`ui_fixtures`) and APKs against androguard
//! (`apk_info`), exploration (`explore`, `explore_llm`). They drive the real binary and the virtual device over ADB, and
//! judge by `simctl state` and the files written.
#![cfg(feature = "sim")]

mod common;

mod agent_faults;
mod agent_json;
mod agent_run;
mod agent_secrets;
pub(crate) mod agents_door;
mod apk_info;
mod appium_grid;
pub(crate) mod appium_hostile;
pub(crate) mod appium_real;
mod assets;
mod book;
mod catalog;
mod device_adb;
mod eval_control_flow;
mod eval_suite;
mod exec_phone;
mod exec_repl;
mod exec_scripts;
mod exec_selectors;
mod exec_watchers;
mod explore;
mod explore_bench;
mod explore_llm;
mod first_attempts;
mod generators;
mod hdc_door;
mod hostile;
mod hostile_files;
mod house;
mod house_graph;
mod human_loop;
mod locate_ai;
mod maestro;
pub(crate) mod mcp;
mod memory;
mod observe_agents;
mod repl_sim;
mod report;
mod run_folders;
mod script_tools;
mod servers;
mod signals;
mod strategies;
mod studio;
mod suites;
mod tiny_model;
mod traces;
mod tree;
mod ui_fixtures;
mod untrusted;
mod untrusted_paths;
mod wda_door;
mod webdriver;
mod webdriver_bounds;
mod webdriver_secrets;
