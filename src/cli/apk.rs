//! `codeact apk info`: what an APK declares — from a file, or pulled from a phone
//! for an installed package.

use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::bail;
use codeact::apk::{Activity, ApkInfo};

use super::args::DeviceArgs;

/// Read an app's APK: package, version, label, the launcher activity, every
/// activity with its exported flag and intent filters, and the permissions.
///
///   codeact apk info app-release.apk
///   codeact apk info --device sim --package com.example.notes
///   codeact apk info app.apk --json
///
/// With --package the APK is pulled from the phone (`pm path`, then the sync
/// service, as `adb pull` does); Android phones and the virtual one only.
#[derive(clap::Args, Debug)]
#[command(verbatim_doc_comment)]
pub struct ApkArgs {
    #[command(subcommand)]
    action: Action,
}

#[derive(clap::Subcommand, Debug)]
enum Action {
    /// What the APK declares (a file, or --package on a device).
    Info {
        /// The APK file (or give --package to pull an installed app's).
        #[arg(value_name = "FILE.apk", required_unless_present = "package", conflicts_with = "package")]
        file: Option<PathBuf>,
        /// An installed app's package: its APK is pulled from the device.
        #[arg(long, short = 'p')]
        package: Option<String>,
        /// One JSON object instead of text.
        #[arg(long)]
        json: bool,
        #[command(flatten)]
        device: DeviceArgs,
    },
}

impl ApkArgs {
    pub fn inspect(self) -> anyhow::Result<ExitCode> {
        let Action::Info { file, package, json, device } = self.action;
        let (info, from) = match (file, package) {
            (Some(file), _) => {
                if device.device.is_some() {
                    bail!("--device is for --package (an installed app); a FILE.apk is read here");
                }
                (codeact::apk::read_file(&file)?, file.display().to_string())
            }
            (None, Some(package)) => {
                let mut phone = device.open()?;
                let pulled = codeact::apk::pull::from_device(phone.as_mut(), &package)?;
                (pulled.info, format!("{}:{} ({} bytes)", phone.name(), pulled.path, pulled.bytes))
            }
            (None, None) => bail!("give an APK file, or --package PACKAGE (with --device) for an installed app"),
        };
        if json {
            codeact::outln!("{}", serde_json::to_string_pretty(&info)?);
        } else {
            print_info(&info, &from);
        }
        Ok(ExitCode::SUCCESS)
    }
}

/// APK text is the APK author's: made safe for a terminal and kept on one line.
fn safe(text: &str) -> String {
    codeact::terminal::clean(text).replace('\n', "\\n")
}

fn or_dash(value: &Option<String>) -> String {
    safe(value.as_deref().unwrap_or("-"))
}

/// `MAIN/LAUNCHER`, `VIEW sms://`: an activity's filters in a few words.
fn filters(activity: &Activity) -> String {
    let short = |s: &str| safe(s.rsplit('.').next().unwrap_or(s));
    activity
        .intent_filters
        .iter()
        .map(|f| {
            let mut words: Vec<String> = f.actions.iter().map(|a| short(a)).collect();
            words.extend(f.categories.iter().filter(|c| !c.ends_with(".DEFAULT")).map(|c| short(c)));
            let mut text = words.join("/");
            if !f.data.is_empty() {
                text.push(' ');
                text.push_str(&safe(&f.data.join(" ")));
            }
            text
        })
        .collect::<Vec<_>>()
        .join("; ")
}

fn print_info(info: &ApkInfo, from: &str) {
    let version = match (&info.version_name, &info.version_code) {
        (Some(n), Some(c)) => format!("{n} ({c})"),
        (n, c) => format!("{}{}", or_dash(n), c.as_ref().map(|c| format!(" ({c})")).unwrap_or_default()),
    };
    let version = safe(&version);
    codeact::outln!("apk          {}", safe(from));
    codeact::outln!("package      {}", safe(&info.package));
    codeact::outln!("version      {version}");
    codeact::outln!("label        {}", or_dash(&info.label));
    codeact::outln!("main         {}", or_dash(&info.main_activity));
    codeact::outln!("sdk          min {}, target {}", or_dash(&info.min_sdk), or_dash(&info.target_sdk));
    let exported = info.activities.iter().filter(|a| a.exported).count();
    codeact::outln!("activities   {} ({exported} exported)", info.activities.len());
    let width = info.activities.iter().chain(&info.aliases).map(|a| a.name.len()).max().unwrap_or(0);
    for a in &info.activities {
        let flags = [a.exported.then_some("exported"), (!a.enabled).then_some("disabled")];
        let flags: Vec<&str> = flags.into_iter().flatten().collect();
        codeact::outln!("  {:width$}  {:19}{}", safe(&a.name), flags.join(", "), filters(a));
    }
    if !info.aliases.is_empty() {
        codeact::outln!("aliases      {}", info.aliases.len());
        for a in &info.aliases {
            codeact::outln!("  {:width$}  → {}  {}", safe(&a.name), or_dash(&a.target), filters(a));
        }
    }
    codeact::outln!("permissions  {}", info.permissions.len());
    for p in &info.permissions {
        codeact::outln!("  {}", safe(p));
    }
    if !info.anomalies.is_empty() {
        codeact::outln!("anomalies    {} (defects the parser read past)", info.anomalies.len());
        for a in info.anomalies.iter().take(20) {
            codeact::outln!("  {}", safe(a));
        }
    }
}
