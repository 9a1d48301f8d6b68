//! Secrets at rest: AES-256-GCM (RustCrypto's `aes-gcm`) under one key per installation.
//!
//! A sealed value reads `v1:` followed by base64 of a random 96-bit nonce and the ciphertext
//! with its tag. The name of the column it belongs to is bound in as associated data, so a
//! value copied into another column does not open. The key comes from `SWITCHBOARD_SECRET_KEY`
//! or from a key file created on first run ([`key`]); the store keeps a sealed check value
//! so a wrong key is refused when the store opens, before any secret is read or written.

pub mod key;

use aes_gcm::aead::{Aead, KeyInit, OsRng, Payload};
use aes_gcm::{AeadCore, Aes256Gcm, Nonce};
use base64::Engine;
use base64::engine::general_purpose::STANDARD_NO_PAD;
use thiserror::Error;

pub use key::{KeySource, SecretKey};

const PREFIX: &str = "v1:";
const NONCE_LEN: usize = 12;

/// Why a secret could not be used.
#[derive(Debug, Error)]
#[non_exhaustive]
pub enum SecretError {
    /// `SWITCHBOARD_SECRET_KEY` or the key file does not hold a usable key.
    #[error("the secret key from {source_name} is not usable: {reason}")]
    BadKey { source_name: String, reason: String },
    /// The key file could not be read or created.
    #[error("cannot use the key file {path}: {source}")]
    KeyFile {
        path: String,
        #[source]
        source: std::io::Error,
    },
    /// The database holds secrets but no key was given.
    #[error(
        "this database holds encrypted secrets but no key was found: set \
         SWITCHBOARD_SECRET_KEY or restore the key file {path}"
    )]
    MissingKey { path: String },
    /// The key opens nothing this database wrote.
    #[error(
        "the secret key ({source_name}) is not the one this database's secrets were \
         written with; use the original key"
    )]
    WrongKey { source_name: String },
    /// AES-GCM refused to encrypt (only possible beyond its 64 GiB message limit).
    #[error("the secret for {field} cannot be encrypted")]
    Unsealable { field: String },
    /// One stored value does not open under the key that opened the store.
    #[error("the stored secret in {field} cannot be decrypted: it was damaged or moved")]
    Undecryptable { field: String },
}

/// Seals and opens secret values with the installation's key.
pub struct Cipher {
    aead: Aes256Gcm,
}

impl std::fmt::Debug for Cipher {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Cipher { key: *** }")
    }
}

impl Cipher {
    pub fn new(key: &SecretKey) -> Self {
        Self {
            aead: Aes256Gcm::new(key.bytes().into()),
        }
    }

    /// `plain` encrypted for the column `field`.
    pub fn seal(&self, field: &str, plain: &str) -> Result<String, SecretError> {
        let nonce = Aes256Gcm::generate_nonce(&mut OsRng);
        let payload = Payload {
            msg: plain.as_bytes(),
            aad: field.as_bytes(),
        };
        let sealed = self
            .aead
            .encrypt(&nonce, payload)
            .map_err(|_| SecretError::Unsealable {
                field: field.to_owned(),
            })?;
        let mut bytes = Vec::with_capacity(NONCE_LEN + sealed.len());
        bytes.extend_from_slice(&nonce);
        bytes.extend_from_slice(&sealed);
        Ok(format!("{PREFIX}{}", STANDARD_NO_PAD.encode(bytes)))
    }

    /// A URL as stored in `field`: sealed when it carries credentials (a password or query
    /// values, see [`switchboard_core::spec::url_has_secrets`]), plain otherwise, so the
    /// destination of an ordinary URL stays readable in the database.
    pub fn seal_url(&self, field: &str, url: &str) -> Result<String, SecretError> {
        if switchboard_core::spec::url_has_secrets(url) {
            self.seal(field, url)
        } else {
            Ok(url.to_owned())
        }
    }

    /// A URL stored by [`Cipher::seal_url`]. A stored URL is always `http(s)://...` in clear,
    /// never `v1:...`, so the prefix tells the two apart; rows written before URLs were sealed
    /// read as they are.
    pub fn open_url(&self, field: &str, stored: &str) -> Result<String, SecretError> {
        if stored.starts_with(PREFIX) {
            self.open(field, stored)
        } else {
            Ok(stored.to_owned())
        }
    }

    /// The plain text of a value sealed for `field`.
    pub fn open(&self, field: &str, sealed: &str) -> Result<String, SecretError> {
        let undecryptable = || SecretError::Undecryptable {
            field: field.to_owned(),
        };
        let encoded = sealed.strip_prefix(PREFIX).ok_or_else(undecryptable)?;
        let bytes = STANDARD_NO_PAD
            .decode(encoded)
            .map_err(|_| undecryptable())?;
        if bytes.len() < NONCE_LEN {
            return Err(undecryptable());
        }
        let (nonce, ciphertext) = bytes.split_at(NONCE_LEN);
        let payload = Payload {
            msg: ciphertext,
            aad: field.as_bytes(),
        };
        let plain = self
            .aead
            .decrypt(Nonce::from_slice(nonce), payload)
            .map_err(|_| undecryptable())?;
        String::from_utf8(plain).map_err(|_| undecryptable())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cipher() -> Cipher {
        Cipher::new(&SecretKey::generate())
    }

    #[test]
    fn seal_then_open_gives_the_value_back() {
        let c = cipher();
        let sealed = c.seal("providers.api_key", "sk-123").unwrap();
        assert!(sealed.starts_with("v1:"));
        assert!(!sealed.contains("sk-123"));
        assert_eq!(c.open("providers.api_key", &sealed).unwrap(), "sk-123");
    }

    #[test]
    fn urls_with_credentials_are_sealed_and_old_plain_ones_still_read() {
        let c = cipher();
        let keyed = "https://h.example/mcp?api_key=k-123";
        let sealed = c.seal_url("u", keyed).unwrap();
        assert!(sealed.starts_with("v1:") && !sealed.contains("k-123"));
        assert_eq!(c.open_url("u", &sealed).unwrap(), keyed);
        let plain = "https://h.example/mcp";
        assert_eq!(c.seal_url("u", plain).unwrap(), plain);
        assert_eq!(c.open_url("u", keyed).unwrap(), keyed, "an old row");
    }

    #[test]
    fn two_seals_of_one_value_differ() {
        let c = cipher();
        assert_ne!(c.seal("f", "x").unwrap(), c.seal("f", "x").unwrap());
    }

    #[test]
    fn a_value_does_not_open_in_another_column_or_under_another_key() {
        let c = cipher();
        let sealed = c.seal("a", "x").unwrap();
        assert!(matches!(
            c.open("b", &sealed),
            Err(SecretError::Undecryptable { .. })
        ));
        assert!(cipher().open("a", &sealed).is_err());
        assert!(c.open("a", "v1:!!").is_err());
        assert!(c.open("a", "plain").is_err());
    }
}
