//! How much of an app an exploration reached: activities reached ÷ declared (the
//! APK's manifest says which there are), distinct screens, widgets acted on — and
//! how each grew, action by action, for the report's chart.

use std::collections::{BTreeMap, HashSet};

use serde::Serialize;

/// One point of the growth curve.
#[derive(Debug, Clone, Copy, Serialize, PartialEq)]
pub struct Sample {
    pub actions: usize,
    pub seconds: f64,
    pub activities: usize,
    pub screens: usize,
    pub widgets: usize,
}

/// The growth curve keeps at most this many points (then every other is dropped).
const MAX_SAMPLES: usize = 2000;

#[derive(Debug, Clone, Default, Serialize)]
pub struct Coverage {
    /// The app's activities as its manifest declares them (empty when unknown:
    /// not Android, or the APK could not be read).
    pub declared: Vec<String>,
    /// Each activity reached, with the action count when it first showed.
    pub reached: BTreeMap<String, usize>,
    pub screens: usize,
    pub widgets: usize,
    #[serde(skip)]
    widget_set: HashSet<u64>,
    pub timeline: Vec<Sample>,
}

impl Coverage {
    pub fn new(declared: Vec<String>) -> Self {
        Self { declared, ..Self::default() }
    }

    /// An activity of the app showed (after `actions` actions).
    pub fn reach(&mut self, activity: &str, actions: usize) {
        if !activity.is_empty() {
            self.reached.entry(activity.to_string()).or_insert(actions);
        }
    }

    pub fn exercised(&mut self, widget: u64) {
        if widget != 0 && self.widget_set.insert(widget) {
            self.widgets = self.widget_set.len();
        }
    }

    /// Reached declared activities (activities the manifest does not declare, such
    /// as another app's, are not counted).
    pub fn reached_declared(&self) -> usize {
        if self.declared.is_empty() {
            return self.reached.len();
        }
        self.declared.iter().filter(|a| self.reached.contains_key(*a)).count()
    }

    /// Activities reached ÷ declared, when the manifest is known.
    pub fn ratio(&self) -> Option<f64> {
        (!self.declared.is_empty()).then(|| self.reached_declared() as f64 / self.declared.len() as f64)
    }

    /// Declared activities never reached.
    pub fn missed(&self) -> Vec<&str> {
        self.declared.iter().filter(|a| !self.reached.contains_key(*a)).map(String::as_str).collect()
    }

    pub fn sample(&mut self, actions: usize, seconds: f64) {
        let point = Sample {
            actions,
            seconds,
            activities: self.reached_declared(),
            screens: self.screens,
            widgets: self.widgets,
        };
        if self.timeline.last().is_some_and(|p| p.actions == actions) {
            self.timeline.pop();
        }
        self.timeline.push(point);
        if self.timeline.len() > MAX_SAMPLES {
            let mut keep = false;
            let last = self.timeline.len() - 1;
            let mut i = 0;
            self.timeline.retain(|_| {
                keep = !keep || i == last;
                i += 1;
                keep
            });
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_declared_activities_count_and_the_curve_stays_bounded() {
        let mut c = Coverage::new(vec!["a.Main".into(), "a.Edit".into()]);
        c.reach("a.Main", 0);
        c.reach("b.Other", 3);
        c.reach("a.Main", 5);
        assert_eq!(c.reached["a.Main"], 0, "first reached");
        assert_eq!(c.ratio(), Some(0.5));
        assert_eq!(c.missed(), ["a.Edit"]);
        c.exercised(7);
        c.exercised(7);
        c.exercised(0);
        assert_eq!(c.widgets, 1);
        for n in 0..5000 {
            c.sample(n, n as f64);
        }
        assert!(c.timeline.len() <= MAX_SAMPLES);
        assert_eq!(c.timeline.last().unwrap().actions, 4999, "the newest point is kept");
        assert_eq!(Coverage::new(vec![]).ratio(), None);
    }
}
