//! A streamed reply (`[llm] stream = true`, `--stream`) folded into what a whole one
//! holds: the text, the function calls assembled from their pieces by index, and the
//! usage when the server sends it (`stream_options.include_usage`). Reading stops
//! as soon as the reply is past its bounds — the connection is dropped, so the
//! server stops writing. Not the request nor its errors (`client.rs`).

use std::collections::BTreeMap;

use async_openai::error::OpenAIError;
use async_openai::types::chat::{ChatCompletionResponseStream, CompletionUsage};
use futures_util::StreamExt as _;

use super::tool_calls::{MAX_ARGUMENT_BYTES, MAX_CALLS_PER_REPLY};

/// The most of a reply that is kept: a snippet is a few KiB; a model that runs
/// away (or a provider that answers garbage) does not fill the run directory.
pub const MAX_REPLY_BYTES: usize = 256 * 1024;

/// A streamed reply, whole.
#[derive(Debug, Default)]
pub(super) struct Folded {
    pub text: String,
    /// (id, name, arguments), in the order the server numbered them.
    pub calls: Vec<(String, String, String)>,
    pub usage: Option<CompletionUsage>,
    /// Reading stopped at a bound before the server ended the reply.
    pub cut: bool,
}

/// The most of a streamed call's name and id kept (they come whole in practice).
const NAME_BYTES: usize = 256;

/// Reads `stream` to its end or to a bound: the first choice's text and calls.
pub(super) async fn fold(mut stream: ChatCompletionResponseStream) -> Result<Folded, OpenAIError> {
    let mut folded = Folded::default();
    let mut calls: BTreeMap<u32, (String, String, String)> = BTreeMap::new();
    while let Some(chunk) = stream.next().await {
        let chunk = chunk?;
        if let Some(usage) = chunk.usage {
            folded.usage = Some(usage);
        }
        for choice in chunk.choices.iter().filter(|c| c.index == 0) {
            if let Some(text) = &choice.delta.content {
                folded.text.push_str(text);
            }
            for piece in choice.delta.tool_calls.iter().flatten() {
                if !calls.contains_key(&piece.index) && calls.len() >= MAX_CALLS_PER_REPLY {
                    folded.cut = true;
                    continue;
                }
                let call = calls.entry(piece.index).or_default();
                if let Some(id) = &piece.id {
                    push_bounded(&mut call.0, id, NAME_BYTES);
                }
                if let Some(function) = &piece.function {
                    if let Some(name) = &function.name {
                        push_bounded(&mut call.1, name, NAME_BYTES);
                    }
                    if let Some(arguments) = &function.arguments {
                        push_bounded(&mut call.2, arguments, MAX_ARGUMENT_BYTES + 1);
                    }
                }
            }
        }
        let arguments: usize = calls.values().map(|c| c.2.len()).sum();
        if folded.text.len() > MAX_REPLY_BYTES || arguments > MAX_REPLY_BYTES || folded.cut {
            folded.cut = true;
            break;
        }
    }
    folded.calls = calls.into_values().collect();
    Ok(folded)
}

/// Appends `piece` to `to`, keeping `to` within about `max` bytes.
fn push_bounded(to: &mut String, piece: &str, max: usize) {
    if to.len() < max {
        let room = max - to.len();
        to.push_str(&piece[..piece.floor_char_boundary(room.min(piece.len()))]);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pieces_stay_bounded() {
        let mut s = String::new();
        push_bounded(&mut s, "héllo", 2);
        assert_eq!(s, "h", "cut on a character boundary");
        push_bounded(&mut s, "x", 2);
        assert_eq!(s, "hx");
        push_bounded(&mut s, "more", 2);
        assert_eq!(s, "hx");
    }
}
