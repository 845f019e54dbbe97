//! The memory database's schema: the version this build writes, and the
//! migrations that take an older database forward, one version each. Not the
//! queries (`mod.rs`, `candidates.rs`).

/// The schema version this build writes.
pub(super) const SCHEMA: i64 = 3;

/// Each migration takes the database from the version before it to its index + 1.
pub(super) const MIGRATIONS: &[&str] = &[
    // 1: experiences (with full-text search), widget knowledge, reflections, app cards.
    "CREATE TABLE experiences (
        id INTEGER PRIMARY KEY,
        task TEXT NOT NULL,
        task_key TEXT NOT NULL,
        apps TEXT NOT NULL,
        steps TEXT NOT NULL,
        created TEXT NOT NULL,
        healed INTEGER NOT NULL DEFAULT 0,
        replays INTEGER NOT NULL DEFAULT 0
     );
     CREATE INDEX experiences_by_key ON experiences(task_key);
     CREATE VIRTUAL TABLE experiences_fts USING fts5(task, apps, content='experiences', content_rowid='id');
     CREATE VIRTUAL TABLE experiences_vocab USING fts5vocab(experiences_fts, row);
     CREATE TRIGGER experiences_ai AFTER INSERT ON experiences BEGIN
        INSERT INTO experiences_fts(rowid, task, apps) VALUES (new.id, new.task, new.apps);
     END;
     CREATE TRIGGER experiences_ad AFTER DELETE ON experiences BEGIN
        INSERT INTO experiences_fts(experiences_fts, rowid, task, apps) VALUES ('delete', old.id, old.task, old.apps);
     END;
     CREATE TABLE widget_knowledge (
        app TEXT NOT NULL, screen TEXT NOT NULL, element TEXT NOT NULL, effect TEXT NOT NULL,
        seen INTEGER NOT NULL DEFAULT 1, PRIMARY KEY (app, screen, element)
     );
     CREATE TABLE reflections (id INTEGER PRIMARY KEY, task TEXT NOT NULL, text TEXT NOT NULL, created TEXT NOT NULL);
     CREATE TABLE app_cards (package TEXT PRIMARY KEY, markdown TEXT NOT NULL, updated TEXT NOT NULL);",
    // 2: embeddings of experiences' tasks (`--embeddings MODEL`), little-endian f32s.
    "CREATE TABLE embeddings (
        experience INTEGER PRIMARY KEY, model TEXT NOT NULL, vector BLOB NOT NULL
     );",
    // 3: what a run left changed (JSON; NULL for experiences kept before), and heals
    // that did not reproduce it, kept aside unverified until a person accepts one.
    "ALTER TABLE experiences ADD COLUMN effects TEXT;
     CREATE TABLE heal_candidates (
        id INTEGER PRIMARY KEY,
        experience INTEGER NOT NULL,
        steps TEXT NOT NULL,
        effects TEXT,
        missing TEXT NOT NULL,
        created TEXT NOT NULL
     );
     CREATE INDEX heal_candidates_by_experience ON heal_candidates(experience);",
];
