//! The names tools are given when offered to a model: `mcp__{server}__{tool}`.
//!
//! LLM providers accept function names matching `^[a-zA-Z0-9_-]{1,64}$` (OpenAI, Anthropic),
//! and Gemini also wants the first character to be a letter or `_`; MCP servers name their
//! tools freely, and two servers may well both have a `search`. So a tool is offered as
//! `mcp__{server}__{tool}` (seed 001) with every character outside `[A-Za-z0-9_-]` turned
//! into `_` and the whole kept to [`MAX_NAME_LEN`] (63) characters. The `mcp__` prefix makes
//! every name start with a letter.
//!
//! Sanitizing loses information (`a.b` and `a_b` both become `a_b`) and so does truncation, so
//! names are never parsed back: a [`NameTable`] built for the set of tools offered in one
//! request maps each (server, tool) pair to its name and back. When a name would be too long,
//! or when several pairs of the set would get the same name, each of them gets a suffix `_` +
//! 6 hex digits of a SHA-256 over its original server and tool names instead (all of them, so
//! which one keeps the plain name never depends on input order). If a suffixed name still
//! clashes, the suffixes of the clashing names grow two digits at a time until nothing clashes.
//!
//! A table depends only on the *set* of pairs: the same tools always get the same names, in any
//! order, across runs and versions (the golden tests pin the algorithm). Adding a tool whose
//! name clashes with an existing one renames both, which is the price of not letting
//! whichever came first win.
//!
//! ```
//! use switchboard_core::naming::{NameTable, mangle_one};
//!
//! let table = NameTable::new([("github", "search"), ("files", "read.file"), ("files", "read_file")]);
//! assert_eq!(table.mangled("github", "search"), Some("mcp__github__search"));
//! let clashing = table.mangled("files", "read.file").unwrap();
//! assert!(clashing.starts_with("mcp__files__read_file_") && clashing.len() == 28);
//! assert_eq!(table.resolve(clashing), Some(("files", "read.file")));
//! assert_eq!(mangle_one("my server", "get-weather"), "mcp__my_server__get-weather");
//! ```

use std::collections::{BTreeMap, BTreeSet};

use sha2::{Digest, Sha256};

/// The longest name produced (seed 001; one under the providers' 64 for safety).
pub const MAX_NAME_LEN: usize = 63;
/// What every mangled name starts with.
pub const PREFIX: &str = "mcp__";
/// Between the server and the tool part.
const SEPARATOR: &str = "__";
/// Hex digits of the suffix a too-long or clashing name gets first.
const HASH_HEX: usize = 6;
/// The most hex digits a suffix can have and still leave room for `mcp__` and the `_`.
const MAX_HASH_HEX: usize = MAX_NAME_LEN - PREFIX.len() - 1;

/// One part of a name with every character outside `[A-Za-z0-9_-]` replaced by `_`
/// (one `_` per character, however many bytes it takes).
pub fn sanitize(part: &str) -> String {
    part.chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '_' || c == '-' {
                c
            } else {
                '_'
            }
        })
        .collect()
}

/// The name of one tool when no other tool of the set clashes with it: the plain
/// `mcp__{server}__{tool}`, or its hashed form when that is too long. Equal to what a
/// [`NameTable`] of this one pair gives.
pub fn mangle_one(server: &str, tool: &str) -> String {
    let base = base_name(server, tool);
    if base.len() <= MAX_NAME_LEN {
        base
    } else {
        with_suffix(&base, &digest_hex(server, tool), HASH_HEX)
    }
}

/// Whether `name` is acceptable as a function name by every provider we target: 1 to
/// [`MAX_NAME_LEN`] characters from `[A-Za-z0-9_-]`, starting with a letter or `_`.
pub fn is_valid_tool_name(name: &str) -> bool {
    let allowed = |b: u8| b.is_ascii_alphanumeric() || b == b'_' || b == b'-';
    let starts_well = name
        .bytes()
        .next()
        .is_some_and(|b| b.is_ascii_alphabetic() || b == b'_');
    starts_well && name.len() <= MAX_NAME_LEN && name.bytes().all(allowed)
}

/// The names of one set of tools, both ways. See the module docs for the rules.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct NameTable {
    /// server -> tool -> name.
    by_pair: BTreeMap<String, BTreeMap<String, String>>,
    /// name -> (server, tool).
    by_name: BTreeMap<String, (String, String)>,
}

impl NameTable {
    /// Names every distinct (server, tool) pair; duplicates in the input count once, and the
    /// input order does not matter.
    pub fn new<I, S, T>(pairs: I) -> Self
    where
        I: IntoIterator<Item = (S, T)>,
        S: Into<String>,
        T: Into<String>,
    {
        let unique: BTreeSet<(String, String)> = pairs
            .into_iter()
            .map(|(server, tool)| (server.into(), tool.into()))
            .collect();
        let mut entries: Vec<Entry> = unique.into_iter().map(Entry::new).collect();
        let groups = resolve_clashes(&mut entries);

        let mut table = NameTable::default();
        for (name, members) in groups {
            // More than one member is left only if 57 hex digits of SHA-256 of two different
            // inputs agree; such pairs are left out rather than given an ambiguous name.
            let [index] = members[..] else { continue };
            let Some(entry) = entries.get(index) else {
                continue;
            };
            table
                .by_pair
                .entry(entry.server.clone())
                .or_default()
                .insert(entry.tool.clone(), name.clone());
            table
                .by_name
                .insert(name, (entry.server.clone(), entry.tool.clone()));
        }
        table
    }

    /// The names of a set of servers' tools, each server by its id: the id, not the name a
    /// person may change or write with spaces, is what every exported name is made of (a
    /// chat, the REST API, the gateway and the command line all build their tables here).
    pub fn of_servers<'a, I>(tools: I) -> Self
    where
        I: IntoIterator<Item = (&'a crate::ServerSpec, &'a str)>,
    {
        Self::new(
            tools
                .into_iter()
                .map(|(spec, tool)| (spec.id.0.as_str(), tool)),
        )
    }

    /// The name given to `tool` of the server `spec`, if it is in the set.
    pub fn name_of(&self, spec: &crate::ServerSpec, tool: &str) -> Option<&str> {
        self.mangled(&spec.id.0, tool)
    }

    /// The name given to `tool` of `server`, if the pair is in the set.
    pub fn mangled(&self, server: &str, tool: &str) -> Option<&str> {
        self.by_pair.get(server)?.get(tool).map(String::as_str)
    }

    /// The original (server, tool) of a name this table gave out.
    pub fn resolve(&self, mangled: &str) -> Option<(&str, &str)> {
        self.by_name
            .get(mangled)
            .map(|(server, tool)| (server.as_str(), tool.as_str()))
    }

    /// `(name, server, tool)` for every tool, sorted by name.
    pub fn iter(&self) -> impl Iterator<Item = (&str, &str, &str)> {
        self.by_name
            .iter()
            .map(|(name, (server, tool))| (name.as_str(), server.as_str(), tool.as_str()))
    }

    /// How many tools are named.
    pub fn len(&self) -> usize {
        self.by_name.len()
    }

    /// Whether no tool is named.
    pub fn is_empty(&self) -> bool {
        self.by_name.is_empty()
    }
}

impl<S: Into<String>, T: Into<String>> FromIterator<(S, T)> for NameTable {
    fn from_iter<I: IntoIterator<Item = (S, T)>>(iter: I) -> Self {
        NameTable::new(iter)
    }
}

/// One pair on its way to a name.
struct Entry {
    server: String,
    tool: String,
    base: String,
    digest: String,
    /// 0 for the plain name, otherwise the length of the hex suffix.
    hex_len: usize,
}

impl Entry {
    fn new((server, tool): (String, String)) -> Self {
        let base = base_name(&server, &tool);
        let digest = digest_hex(&server, &tool);
        let hex_len = if base.len() > MAX_NAME_LEN {
            HASH_HEX
        } else {
            0
        };
        Entry {
            server,
            tool,
            base,
            digest,
            hex_len,
        }
    }

    fn name(&self) -> String {
        if self.hex_len == 0 {
            self.base.clone()
        } else {
            with_suffix(&self.base, &self.digest, self.hex_len)
        }
    }

    /// Gives the entry a longer suffix; false when it cannot grow any more.
    fn grow_suffix(&mut self) -> bool {
        let next = match self.hex_len {
            0 => HASH_HEX,
            n => (n + 2).min(MAX_HASH_HEX),
        };
        let grew = next != self.hex_len;
        self.hex_len = next;
        grew
    }
}

/// Grows the suffixes of every entry whose name clashes, round after round, until no names
/// clash or the clashing ones cannot grow; returns the final names with the entries holding
/// them. Every decision depends only on the set of entries, never on their order, and every
/// round lengthens at least one suffix, so this ends.
fn resolve_clashes(entries: &mut [Entry]) -> BTreeMap<String, Vec<usize>> {
    loop {
        let mut groups: BTreeMap<String, Vec<usize>> = BTreeMap::new();
        for (index, entry) in entries.iter().enumerate() {
            groups.entry(entry.name()).or_default().push(index);
        }
        let mut grew = false;
        for members in groups.values().filter(|members| members.len() > 1) {
            for &index in members {
                if let Some(entry) = entries.get_mut(index) {
                    grew |= entry.grow_suffix();
                }
            }
        }
        if !grew {
            return groups;
        }
    }
}

fn base_name(server: &str, tool: &str) -> String {
    format!("{PREFIX}{}{SEPARATOR}{}", sanitize(server), sanitize(tool))
}

/// SHA-256 over the server name's length (8 bytes, big-endian), the server name and the tool
/// name, as lowercase hex. The length prefix keeps ("ab", "c") and ("a", "bc") apart.
fn digest_hex(server: &str, tool: &str) -> String {
    let mut hasher = Sha256::new();
    hasher.update((server.len() as u64).to_be_bytes());
    hasher.update(server.as_bytes());
    hasher.update(tool.as_bytes());
    hasher
        .finalize()
        .iter()
        .map(|byte| format!("{byte:02x}"))
        .collect()
}

/// `base`, cut so that `_` and `hex_len` digits of `digest` fit in [`MAX_NAME_LEN`], then the
/// suffix.
fn with_suffix(base: &str, digest: &str, hex_len: usize) -> String {
    let hex = digest.get(..hex_len).unwrap_or(digest);
    let keep = MAX_NAME_LEN - 1 - hex.len();
    // `base` is ASCII (sanitized), so every index is a character boundary.
    let head = base.get(..keep.min(base.len())).unwrap_or(PREFIX);
    format!("{head}_{hex}")
}

#[cfg(test)]
mod tests;
