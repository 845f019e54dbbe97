//! An error and its causes as one line, `what failed: why: the root cause`, for the
//! places that show errors to a script, a model or a person in one string. Library
//! errors keep each cause in `source()` (their `Display` never repeats it).

/// `err`'s message followed by each of its sources, joined by ": ".
pub fn full_message(err: &dyn std::error::Error) -> String {
    let mut text = err.to_string();
    let mut cause = err.source();
    while let Some(c) = cause {
        let next = c.to_string();
        if !next.is_empty() {
            text.push_str(": ");
            text.push_str(&next);
        }
        cause = c.source();
    }
    text
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Debug, thiserror::Error)]
    #[error("cannot read the dump")]
    struct Outer(#[source] std::io::Error);

    #[test]
    fn causes_follow_the_message_once_each() {
        let e = Outer(std::io::Error::other("disk on fire"));
        assert_eq!(full_message(&e), "cannot read the dump: disk on fire");
    }
}
