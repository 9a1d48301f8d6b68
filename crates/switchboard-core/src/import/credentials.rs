//! Which environment variables of an imported server hold credentials.
//!
//! Other clients' files (and the servers file of earlier versions) keep every env value in
//! one map, with no word on which are secrets. A variable whose name says it is one
//! (`GITHUB_PERSONAL_ACCESS_TOKEN`, `OPENAI_API_KEY`, `DB_PASSWORD`) is marked secret, so the
//! store encrypts it and listings mask it. Names are matched loosely on purpose: marking a
//! harmless value secret only hides it, missing a credential shows it.

use crate::ServerSpec;

/// Words that, anywhere in a variable's name (any case), make its value a secret.
const CREDENTIAL_WORDS: [&str; 7] = [
    "KEY",
    "TOKEN",
    "SECRET",
    "PASSWORD",
    "PASS",
    "AUTH",
    "CREDENTIAL",
];

/// Whether an environment variable called `name` looks like it holds a credential.
pub fn looks_like_credential(name: &str) -> bool {
    let upper = name.to_ascii_uppercase();
    CREDENTIAL_WORDS.iter().any(|word| upper.contains(word))
}

/// Marks every env variable of `spec` whose name looks like a credential as secret.
pub fn mark_secret_env(spec: &mut ServerSpec) {
    let secret = spec.env.keys().filter(|name| looks_like_credential(name));
    spec.secret_env.extend(secret.cloned());
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn credential_names_are_recognised_in_any_case() {
        for name in [
            "GITHUB_PERSONAL_ACCESS_TOKEN",
            "OPENAI_API_KEY",
            "db_password",
            "PGPASS",
            "Auth_Header",
            "GOOGLE_APPLICATION_CREDENTIALS",
            "client_secret",
        ] {
            assert!(looks_like_credential(name), "{name}");
        }
        for name in ["DEBUG", "LOG_LEVEL", "PATH", "HOME"] {
            assert!(!looks_like_credential(name), "{name}");
        }
    }

    #[test]
    fn only_credentials_are_marked() {
        let mut spec = ServerSpec::stdio("gh", "docker", ["run"])
            .with_env("GITHUB_TOKEN", "ghp_x")
            .with_env("DEBUG", "1");
        mark_secret_env(&mut spec);
        assert_eq!(spec.secret_env.iter().collect::<Vec<_>>(), ["GITHUB_TOKEN"]);
        assert!(spec.validate().is_ok());
    }
}
