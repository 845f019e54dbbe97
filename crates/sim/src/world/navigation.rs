//! Moving between screens: tasks and their back stacks, the home screen, `am start`,
//! an app opening a screen, what a screen does when it shows, back, finishing and
//! force-stopping. Not what an input or an item's action does (`input`, `actions`).

use std::time::Instant;

use super::model::{DialogInstance, FaultDialog, Focus, ScreenInstance, Task, World};
use super::names::{LAUNCHER_PACKAGE, short_component};

/// What `am start` did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum ActivityStart {
    Launched,
    /// The activity is the root of an existing task, which came to the front.
    BroughtToFront,
    NotFound,
}

impl World {
    /// Marks a visible change: arms slow-ui animation and the fault dialog.
    pub(crate) fn screen_changed(&mut self) {
        self.changed_at = Some(Instant::now());
        if let Some(kind) = self.fault_dialog_armed.take() {
            let (package, label) = match (kind, self.top()) {
                (FaultDialog::Anr, _) => ("com.android.systemui".to_string(), "System UI".to_string()),
                (FaultDialog::Crash, _) => ("com.google.android.gms".to_string(), "Google Play services".to_string()),
                (_, Some((app, _, _))) => (app.package.clone(), app.label.clone()),
                (_, None) => ("com.android.vending".to_string(), "Google Play Store".to_string()),
            };
            self.dialogs.push(DialogInstance::Fault { kind, package, label });
        }
    }

    fn leave_screen(&mut self) {
        self.focus = None;
        self.keyboard_shown = false;
        // App dialogs belong to the screen; the injected system dialog stays.
        self.dialogs.retain(|d| matches!(d, DialogInstance::Fault { .. }));
    }

    fn new_task(&mut self, app: usize, first: ScreenInstance) {
        let id = self.next_task_id;
        self.next_task_id += 1;
        self.tasks.push(Task { id, app, stack: vec![first] });
    }

    /// Shows the home screen (the launcher task in front).
    pub(crate) fn go_home(&mut self) {
        let Some(launcher) = self.catalog.app_index(LAUNCHER_PACKAGE) else { return };
        self.leave_screen();
        if let Some(pos) = self.tasks.iter().position(|t| t.app == launcher) {
            let task = self.tasks.remove(pos);
            self.tasks.push(task);
        } else if let Some(activity) = self.catalog.apps[launcher].launcher.clone()
            && let Some((screen, _)) = self.catalog.apps[launcher].screen(&activity)
        {
            self.new_task(launcher, ScreenInstance { app: launcher, screen, param: String::new(), scroll: 0 });
        }
        self.screen_changed();
    }

    /// Brings the app's task to the front, starting it at its launcher activity when
    /// it has none. Returns false when the app has no launcher activity.
    pub(crate) fn launch(&mut self, app: usize) -> bool {
        if let Some(pos) = self.tasks.iter().position(|t| t.app == app) {
            self.leave_screen();
            let task = self.tasks.remove(pos);
            self.tasks.push(task);
            self.screen_changed();
            self.arrive(false);
            return true;
        }
        let Some(activity) = self.catalog.apps.get(app).and_then(|a| a.launcher.clone()) else { return false };
        self.start_activity(app, &activity, String::new()) != ActivityStart::NotFound
    }

    /// `am start -n`: the activity in its app's task (created if needed); an activity
    /// that is already its task's root brings that task to the front instead.
    pub(crate) fn start_activity(&mut self, app: usize, activity: &str, param: String) -> ActivityStart {
        let Some(screen) = self.catalog.apps.get(app).and_then(|a| a.screen(activity)).map(|(i, _)| i) else {
            return ActivityStart::NotFound;
        };
        let inst = ScreenInstance { app, screen, param, scroll: 0 };
        match self.tasks.iter().position(|t| t.app == app) {
            Some(pos) if self.tasks[pos].stack.first().is_some_and(|root| root.screen == screen && root.app == app) => {
                self.launch(app);
                return ActivityStart::BroughtToFront;
            }
            Some(pos) => {
                self.leave_screen();
                let mut task = self.tasks.remove(pos);
                task.stack.push(inst);
                self.tasks.push(task);
            }
            None => {
                self.leave_screen();
                self.new_task(app, inst);
            }
        }
        self.screen_changed();
        self.arrive(true);
        ActivityStart::Launched
    }

    /// An app opening a screen (its own or another app's) on the current task.
    pub(crate) fn push_screen(&mut self, app: usize, activity: &str, param: String) -> bool {
        let Some(screen) = self.catalog.apps.get(app).and_then(|a| a.screen(activity)).map(|(i, _)| i) else {
            return false;
        };
        let Some(task) = self.tasks.last_mut() else { return false };
        task.stack.push(ScreenInstance { app, screen, param, scroll: 0 });
        self.leave_screen();
        self.screen_changed();
        self.arrive(true);
        true
    }

    /// What a screen does when it shows: on first arrival its `on_open` actions and
    /// autofocus; every time, its one-time dialog while the condition holds.
    fn arrive(&mut self, fresh: bool) {
        let Some((app, screen, _)) = self.top() else { return };
        if fresh {
            let shown = format!(
                "Displayed {} for user 0: +180ms",
                short_component(&app.package, &app.full_activity(&screen.activity))
            );
            self.log(1000, 'I', "ActivityTaskManager", &shown);
        }
        let Some((app, screen, _)) = self.top() else { return };
        let on_open = screen.on_open.clone();
        let autofocus = screen.autofocus.clone();
        let dialog = match (&screen.dialog, &screen.dialog_when) {
            (Some(name), Some(cond)) if self.scope(None, None).holds(cond) => app.dialog_index(name),
            (Some(name), None) => app.dialog_index(name),
            _ => None,
        };
        let app_index = self.top_app().unwrap_or(0);
        if fresh && let Some(script) = on_open {
            self.run_actions(&script, None);
        }
        if let Some(dialog) = dialog {
            self.dialogs.push(DialogInstance::App { app: app_index, dialog, record: None });
        }
        if fresh
            && let Some(id) = autofocus
            && let Some((_, screen, _)) = self.top()
            && let Some(item) = screen.items.iter().position(|i| i.id == id)
        {
            self.focus = Some(Focus { item });
            self.keyboard_shown = true;
        }
    }

    /// KEYCODE_BACK: hide the keyboard, else close a dialog, else pop the stack; a
    /// root activity goes to the home screen (its task stays, as on Android 12+).
    pub(crate) fn back(&mut self) {
        if self.keyboard_shown {
            self.keyboard_shown = false;
            self.screen_changed();
            return;
        }
        if self.dialogs.pop().is_some() {
            self.screen_changed();
            return;
        }
        self.finish_activity();
    }

    /// Closes the top activity (what an app's own "back"/"up"/"save" does); the root
    /// activity of a task leaves for the home screen (the task stays, as on Android 12+).
    pub(crate) fn finish_activity(&mut self) {
        let launcher = self.catalog.app_index(LAUNCHER_PACKAGE);
        let Some(task) = self.tasks.last_mut() else { return };
        if task.stack.len() > 1 {
            task.stack.pop();
            self.leave_screen();
            self.screen_changed();
            self.arrive(false);
        } else if Some(task.app) != launcher {
            self.go_home();
        }
    }

    /// `am force-stop`: the app's task and its screens in other tasks are gone.
    pub(crate) fn force_stop(&mut self, app: usize) {
        let was_front = self.top_app() == Some(app);
        self.tasks.retain(|t| t.app != app);
        for task in &mut self.tasks {
            task.stack.retain(|i| i.app != app);
        }
        self.tasks.retain(|t| !t.stack.is_empty());
        if was_front {
            self.go_home();
        }
    }
}
