//! Task parameters: the generators a task file names
//! (`choice`, `int`, `gen = "person"`, ...), so every instance of a suite is the same
//! on every machine (the seeded source is `codeact_base::rng`). Not for judging: that is `judge.rs`.

use serde_json::{Value, json};

use super::task::ParamSpec;

pub use codeact_base::rng::Rng;

/// The seed of one instance: FNV-1a of (suite seed, template id, instance number), so
/// adding a template or an instance never changes the others.
pub fn instance_seed(suite_seed: u64, template: &str, instance: usize) -> u64 {
    let mut hash: u64 = 0xcbf2_9ce4_8422_2325;
    for byte in format!("{suite_seed}/{template}/{instance}").bytes() {
        hash ^= u64::from(byte);
        hash = hash.wrapping_mul(0x0000_0100_0000_01B3);
    }
    hash
}

const FIRST: &[&str] = &[
    "Adrian", "Beatrice", "Caleb", "Dalia", "Elliot", "Freya", "Gabriel", "Helena", "Ivan", "Jasmine", "Kofi", "Leona",
    "Marco", "Nadia", "Oscar", "Paloma", "Quentin", "Rosa", "Samir", "Talia", "Umar", "Vera", "Wesley", "Ximena",
    "Yusuf", "Zara",
];
const LAST: &[&str] = &[
    "Alvarez",
    "Brennan",
    "Castillo",
    "Dubois",
    "Eriksen",
    "Fontaine",
    "Gallo",
    "Haddad",
    "Ibarra",
    "Jensen",
    "Kowalski",
    "Lindqvist",
    "Moreau",
    "Nakamura",
    "Okonkwo",
    "Pereira",
    "Quinn",
    "Rahman",
    "Sato",
    "Torres",
    "Varga",
    "Whitaker",
];
const WORDS: &[&str] = &[
    "apple", "harbor", "violet", "summit", "copper", "meadow", "lantern", "pepper", "canyon", "falcon", "garden",
    "island", "jigsaw", "kettle", "lemon", "marble", "nectar", "orbit", "pebble", "quartz", "ribbon", "saddle",
    "tulip", "umbrella", "velvet", "walnut", "yonder", "zephyr",
];
const SENTENCES: &[&str] = &[
    "Running ten minutes late",
    "Can you pick up milk on the way home",
    "The meeting moved to Thursday",
    "Happy birthday, have a great day",
    "Dinner is at seven tonight",
    "Please call me when you land",
    "I left the keys at the front desk",
    "The tickets are booked for Friday",
    "Let us meet at the north entrance",
    "Thanks for the help yesterday",
    "The package arrived this morning",
    "Bring the blue folder to the office",
];
const CJK: &[&str] = &[
    "明天见",
    "周末一起去爬山吧",
    "会议改到下午三点",
    "我已经到了门口",
    "生日快乐",
    "晚上一起吃饭吗",
    "记得带伞",
    "谢谢你的帮助",
];
const CATEGORIES: &[&str] = &["Food", "Transport", "Shopping", "Bills", "Health", "Entertainment"];
const EXPENSE_NAMES: &[&str] = &[
    "Lunch",
    "Taxi",
    "Groceries",
    "Movie tickets",
    "Electricity",
    "Pharmacy",
    "Coffee",
    "Bus pass",
    "Books",
    "Gym",
    "Phone bill",
    "Dinner",
];
const HOSTS: &[&str] =
    &["dns.google", "one.one.one.one", "dns.quad9.net", "dns.adguard-dns.com", "security.cloudflare-dns.com"];
const EVENT_TITLES: &[&str] = &[
    "Dentist appointment",
    "Project review",
    "Lunch with Sam",
    "Yoga class",
    "Budget planning",
    "Car service",
    "Book club",
    "Team offsite",
    "Parent meeting",
    "Piano lesson",
];
const PLACES: &[&str] = &["Room 12", "Main library", "City hall", "Cafe Luna", "Studio B", "Online"];
const FOLDERS: &[&str] = &["Documents", "Music", "Podcasts", "Receipts", "Travel", "Work"];
const EXTENSIONS: &[&str] = &["txt", "pdf", "jpg", "mp3", "csv"];

/// Why a parameter could not be made.
#[derive(Debug, thiserror::Error)]
pub enum ParamError {
    #[error("parameter {name}: unknown generator {generator:?} (use one of: {known})")]
    UnknownGenerator { name: String, generator: String, known: &'static str },
    #[error("parameter {name}: {why}")]
    Invalid { name: String, why: String },
}

pub(crate) const GENERATORS: &str = "person, phone, word, title, sentence, cjk, time, date, hour, minute, amount, \
category, expense, hostname, event, place, folder, filename, contact, device_name";

/// One value of `spec`, drawn from `rng`; `initial` is the phone's first state (for
/// `gen = "contact"`), `earlier` the parameters made so far (for `distinct_from`).
pub(crate) fn generate(
    spec: &ParamSpec,
    rng: &mut Rng,
    initial: &Value,
    earlier: &serde_json::Map<String, Value>,
) -> Result<Value, ParamError> {
    let invalid = |why: &str| ParamError::Invalid { name: spec.name.clone(), why: why.to_string() };
    let count = match spec.count {
        Some([min, max]) if min <= max && max <= 50 => Some(rng.between(min, max)),
        Some(_) => return Err(invalid("count must be [min, max] with min <= max <= 50")),
        None => None,
    };
    let one = |rng: &mut Rng| -> Result<Value, ParamError> {
        for _ in 0..32 {
            let value = draw(spec, rng, initial)?;
            let clash = spec.distinct_from.iter().any(|other| earlier.get(other).is_some_and(|v| same_pick(v, &value)));
            if !clash {
                return Ok(value);
            }
        }
        Err(invalid("cannot draw a value different from its distinct_from parameters"))
    };
    match count {
        None => one(rng),
        Some(n) => {
            let mut items: Vec<Value> = Vec::new();
            let mut tries = 0;
            while (items.len() as i64) < n && tries < 400 {
                tries += 1;
                let v = one(rng)?;
                // Lists are of different values (three notes with three titles).
                if !items.iter().any(|i| same_pick(i, &v)) {
                    items.push(v);
                }
            }
            Ok(Value::Array(items))
        }
    }
}

/// Two picks are the same when their names (for records) or values are.
fn same_pick(a: &Value, b: &Value) -> bool {
    match (a.get("name"), b.get("name")) {
        (Some(x), Some(y)) => x == y,
        _ => a == b,
    }
}

fn draw(spec: &ParamSpec, rng: &mut Rng, initial: &Value) -> Result<Value, ParamError> {
    let name = &spec.name;
    if let Some(choices) = &spec.choice {
        return rng
            .pick(choices)
            .cloned()
            .ok_or_else(|| ParamError::Invalid { name: name.clone(), why: "choice is empty".into() });
    }
    if let Some([min, max]) = spec.int {
        return Ok(json!(rng.between(min, max)));
    }
    let Some(generator) = spec.generator.as_deref() else {
        return Err(ParamError::Invalid { name: name.clone(), why: "needs choice, int, gen or expr".into() });
    };
    let word = |rng: &mut Rng| rng.pick(WORDS).copied().unwrap_or("apple");
    let capital = |w: &str| {
        let mut c = w.chars();
        c.next().map(|f| f.to_uppercase().collect::<String>() + c.as_str()).unwrap_or_default()
    };
    Ok(match generator {
        "person" => json!(format!("{} {}", rng.pick(FIRST).unwrap_or(&"Ada"), rng.pick(LAST).unwrap_or(&"Lovelace"))),
        "phone" => json!(format!("+1 415-555-{:04}", rng.between(1000, 9999))),
        "word" => json!(word(rng)),
        "title" => json!(format!("{} {}", capital(word(rng)), capital(word(rng)))),
        "sentence" => json!(rng.pick(SENTENCES).unwrap_or(&"Hello")),
        "cjk" => json!(rng.pick(CJK).unwrap_or(&"你好")),
        // Never on the hour or half hour: the phone's own alarms (07:00, 08:30) are.
        "time" => json!(format!(
            "{:02}:{:02}",
            rng.between(7, 21),
            rng.pick(&[5, 10, 15, 20, 25, 35, 40, 45, 50, 55]).unwrap_or(&5)
        )),
        "hour" => json!(rng.between(5, 22)),
        "minute" => json!(rng.between(0, 11) * 5),
        "date" => {
            let day = jiff::civil::date(2023, 10, 15).checked_add(jiff::Span::new().days(rng.between(1, 30)));
            json!(day.map(|d| d.to_string()).unwrap_or_else(|_| "2023-10-20".into()))
        }
        "amount" => json!(format!("{}.{:02}", rng.between(3, 180), rng.between(0, 3) * 25)),
        "category" => json!(rng.pick(CATEGORIES).unwrap_or(&"Food")),
        "expense" => json!(rng.pick(EXPENSE_NAMES).unwrap_or(&"Lunch")),
        "hostname" => json!(rng.pick(HOSTS).unwrap_or(&"dns.google")),
        "event" => json!(rng.pick(EVENT_TITLES).unwrap_or(&"Meeting")),
        "place" => json!(rng.pick(PLACES).unwrap_or(&"Online")),
        "folder" => json!(rng.pick(FOLDERS).unwrap_or(&"Documents")),
        "filename" => json!(format!("{}_{}.{}", word(rng), rng.between(1, 99), rng.pick(EXTENSIONS).unwrap_or(&"txt"))),
        "device_name" => json!(format!("{} {}", capital(word(rng)), rng.between(2, 99))),
        "contact" => {
            let contacts = initial.get("contacts").and_then(Value::as_array).cloned().unwrap_or_default();
            // Latin names only: a goal says "text Bob Smith", and the CJK names are
            // covered by the cjk generator and the contacts' own tasks.
            let latin: Vec<Value> =
                contacts.into_iter().filter(|c| c["name"].as_str().is_some_and(|n| n.is_ascii())).collect();
            rng.pick(&latin).cloned().ok_or_else(|| ParamError::Invalid {
                name: name.clone(),
                why: "the phone has no contacts to pick from".into(),
            })?
        }
        other => {
            return Err(ParamError::UnknownGenerator {
                name: name.clone(),
                generator: other.to_string(),
                known: GENERATORS,
            });
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn seeds_are_stable_and_spread() {
        assert_eq!(instance_seed(1, "wifi", 0), instance_seed(1, "wifi", 0));
        assert_ne!(instance_seed(1, "wifi", 0), instance_seed(1, "wifi", 1));
        assert_ne!(instance_seed(1, "wifi", 0), instance_seed(2, "wifi", 0));
        let mut rng = Rng::new(7);
        let draws: Vec<i64> = (0..200).map(|_| rng.between(1, 3)).collect();
        assert!((1..=3).all(|n| draws.contains(&n)) && draws.iter().all(|n| (1..=3).contains(n)));
        // The stream is fixed: a changed constant would change every suite.
        assert_eq!(Rng::new(0).next_u64(), 0xE220_A839_7B1D_CDAF);
    }
}
