//! YAML written from data (Maestro flows): double-quoted scalars that every YAML
//! reader — 1.2 as codeact reads flows, 1.1 as Maestro's Java parser does — reads
//! back as exactly the text, on one line; and comments that stay one line (no
//! character either version takes as a line break survives in them). Not here:
//! which commands a flow holds (`maestro/export.rs`).

use super::{COMMENT_BYTES, double_quoted, visible_line};

/// `text` as a YAML double-quoted scalar on one line.
pub fn string(text: &str) -> String {
    double_quoted(text, |c| match c as u32 {
        n @ 0..=0xffff => format!("\\u{n:04x}"),
        n => format!("\\U{n:08x}"),
    })
}

/// `text` as a YAML comment: `# ` and the text on one line (line breaks shown as
/// `\n`, hidden characters as `\u{..}`, cut at 1,000 bytes); no trailing break.
pub fn comment(text: &str) -> String {
    format!("# {}", visible_line(text, COMMENT_BYTES))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::emit::{hostile, is_hidden};
    use saphyr::{LoadableYamlNode, Yaml};

    #[test]
    fn a_scalar_reads_back_as_its_text_and_a_comment_stays_one() {
        for (i, text) in hostile::texts(5, 4_000, 24).iter().enumerate() {
            let s = string(text);
            let c = comment(text);
            for out in [&s, &c] {
                assert!(!out.chars().any(|c| is_hidden(c) || c == '\n'), "case {i}: {out:?}");
            }
            let doc = format!("{c}\n- k: {s}\n{c}\n- end\n");
            let docs = Yaml::load_from_str(&doc).unwrap_or_else(|e| panic!("case {i}: {doc:?}: {e}"));
            let items = docs.first().and_then(|d| d.as_sequence()).unwrap_or_else(|| panic!("case {i}: {doc:?}"));
            assert_eq!(items.len(), 2, "case {i}: {doc:?}");
            let k = items[0].as_mapping_get("k").and_then(|v| v.as_str());
            assert_eq!(k, Some(text.as_str()), "case {i}: {doc:?}");
        }
    }
}
