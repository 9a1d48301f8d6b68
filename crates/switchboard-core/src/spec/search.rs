//! Finding servers among many by what a person remembers of them.

use super::{ServerSpec, mask_url};

impl ServerSpec {
    /// Whether every word of `query` appears, whatever its case, in the server's id, name,
    /// URL (its secrets masked, so a search cannot probe them), command or arguments. An
    /// empty query matches every server.
    pub fn matches(&self, query: &str) -> bool {
        let haystack = [
            self.id.0.as_str(),
            self.name.as_str(),
            &self.url.as_deref().map(mask_url).unwrap_or_default(),
            self.command.as_deref().unwrap_or_default(),
            &self.args.join(" "),
        ]
        .join("\n")
        .to_lowercase();
        query
            .split_whitespace()
            .all(|word| haystack.contains(&word.to_lowercase()))
    }
}

#[cfg(test)]
mod tests {
    use crate::ServerSpec;

    #[test]
    fn every_word_must_appear_in_some_field_whatever_its_case() {
        let spec = ServerSpec::stdio("GitHub Tools", "npx", ["-y", "@acme/server-github"]);
        assert!(spec.matches(""));
        assert!(spec.matches("github"));
        assert!(spec.matches("TOOLS npx"));
        assert!(spec.matches("acme/server"));
        assert!(!spec.matches("github gitlab"));
    }

    #[test]
    fn a_secret_in_the_url_is_not_searched() {
        let spec = ServerSpec::http(
            "remote",
            "https://mcp.example.com/mcp?api_key=hunter2",
            None,
        );
        assert!(spec.matches("example.com"));
        assert!(!spec.matches("hunter2"));
    }
}
