//! The tool a mistyped name is a slip of ("did you mean `tap`?"), for the check of
//! a script's calls (`calls.rs`) and for the error a run ends in (`snippet_end.rs`).
//! Not here: finding the calls nothing defines (`calls.rs`).

/// The tool `name` is a slip of: one or two letters off (one for a name of four
/// letters or fewer), the closest first.
pub fn near<'a>(name: &str, tools: impl IntoIterator<Item = &'a str>) -> Option<&'a str> {
    let allowed = if name.chars().count() <= 4 { 1 } else { 2 };
    tools
        .into_iter()
        .filter(|tool| *tool != name)
        .map(|tool| (strsim::damerau_levenshtein(name, tool), tool))
        .filter(|(distance, _)| *distance <= allowed)
        .min()
        .map(|(_, tool)| tool)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_slip_of_a_tool_name_is_found_and_others_are_not() {
        let tools = ["tap", "tap_by_index", "swipe", "wait_for", "complete"];
        assert_eq!(near("tapp", tools), Some("tap"));
        assert_eq!(near("tap_by_indx", tools), Some("tap_by_index"));
        assert_eq!(near("wiat_for", tools), Some("wait_for"));
        assert_eq!(near("tap", tools), None, "a tool is not a slip of itself");
        assert_eq!(near("zoom", tools), None);
        assert_eq!(near("go", tools), None);
    }
}
