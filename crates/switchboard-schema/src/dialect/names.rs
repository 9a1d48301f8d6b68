//! A tool's own name made valid for a provider.
//!
//! - OpenAI: "Must be a-z, A-Z, 0-9, or contain underscores and dashes, with a maximum length of
//!   64" (function `name`, API reference).
//! - Anthropic: `^[a-zA-Z0-9_-]{1,64}$` (tool `name`, Messages API reference).
//! - Gemini: the Gemini API reference says "Must be a-z, A-Z, 0-9, or contain underscores and
//!   dashes, with a maximum length of 63" (ai.google.dev/api/caching#FunctionDeclaration); the
//!   Vertex AI reference says "Must start with a letter or an underscore" and allows dots and
//!   colons up to 64 or 128. We take what both accept: `^[A-Za-z_][A-Za-z0-9_-]{0,62}$`.
//!
//! Every other character becomes `_` (one per character, so the name stays recognisable); a
//! Gemini name that starts with a digit or `-` gets a leading `_`; an empty name becomes `tool`.
//! A name still too long keeps its head and ends in `_` and eight hex digits of a stable hash
//! of the original name, so two long names sharing a head stay apart. The result is
//! deterministic. Two different names may still map to the same result (`a.b` and `a_b`):
//! callers holding a whole tool list detect that and keep a reverse map.

use super::Dialect;

/// The name `name` made valid for `dialect`'s tool names; never empty.
#[must_use]
pub fn tool_name(name: &str, dialect: Dialect) -> String {
    let max = match dialect {
        Dialect::Gemini | Dialect::GeminiJson => 63,
        Dialect::OpenAi | Dialect::OpenAiStrict | Dialect::Anthropic => 64,
    };
    let mut out: String = name
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '_' || c == '-' {
                c
            } else {
                '_'
            }
        })
        .collect();
    if out.is_empty() {
        out.push_str("tool");
    }
    if matches!(dialect, Dialect::Gemini | Dialect::GeminiJson)
        && !out.starts_with(|c: char| c.is_ascii_alphabetic() || c == '_')
    {
        out.insert(0, '_');
    }
    if out.len() > max {
        // Every character is ASCII here, so byte lengths are character counts.
        let suffix = format!("_{:08x}", fnv1a(name.as_bytes()) as u32);
        out.truncate(max - suffix.len());
        out.push_str(&suffix);
    }
    out
}

/// 64-bit FNV-1a: tiny, stable across platforms and releases, good enough to tell names apart.
fn fnv1a(bytes: &[u8]) -> u64 {
    let mut hash: u64 = 0xcbf2_9ce4_8422_2325;
    for byte in bytes {
        hash ^= u64::from(*byte);
        hash = hash.wrapping_mul(0x0000_0100_0000_01b3);
    }
    hash
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn valid_names_are_kept() {
        for d in Dialect::ALL {
            assert_eq!(tool_name("get_weather-v2", d), "get_weather-v2");
        }
    }

    #[test]
    fn other_characters_become_underscores() {
        assert_eq!(
            tool_name("files.read file/é", Dialect::OpenAi),
            "files_read_file__"
        );
    }

    #[test]
    fn gemini_names_start_with_a_letter_or_underscore() {
        assert_eq!(tool_name("3d-render", Dialect::Gemini), "_3d-render");
        assert_eq!(tool_name("-x", Dialect::GeminiJson), "_-x");
        assert_eq!(tool_name("3d-render", Dialect::Anthropic), "3d-render");
    }

    #[test]
    fn empty_names_get_a_name() {
        assert_eq!(tool_name("", Dialect::Anthropic), "tool");
    }

    #[test]
    fn long_names_keep_a_stable_distinct_suffix() {
        let a = "a".repeat(100);
        let b = format!("{}b", "a".repeat(99));
        let (na, nb) = (
            tool_name(&a, Dialect::OpenAi),
            tool_name(&b, Dialect::OpenAi),
        );
        assert_eq!(na.len(), 64);
        assert_ne!(na, nb);
        assert_eq!(na, tool_name(&a, Dialect::OpenAi));
        assert_eq!(tool_name(&a, Dialect::Gemini).len(), 63);
    }
}
