//! Where the encryption key comes from.
//!
//! `SWITCHBOARD_SECRET_KEY` wins when set (replicas sharing one Postgres must share it): 32
//! bytes written as base64 or as 64 hex digits. Otherwise the key file `secret.key` in the
//! data directory is used, and created on first run: 32 random bytes in base64, mode 0600,
//! created exclusively so two processes starting at once cannot each write their own. A key
//! file is never created for a database that already holds secrets (that would only hide the
//! real problem, a lost key, behind a "wrong key" error later).

use std::io::Write;
use std::path::{Path, PathBuf};

use aes_gcm::aead::OsRng;
use aes_gcm::aead::rand_core::RngCore;
use base64::Engine;
use base64::alphabet;
use base64::engine::general_purpose::STANDARD;
use base64::engine::{DecodePaddingMode, GeneralPurpose, GeneralPurposeConfig};

use super::SecretError;

const KEY_LEN: usize = 32;

/// Keys are pasted by people: padding is optional and either base64 alphabet is fine.
const LENIENT: GeneralPurposeConfig =
    GeneralPurposeConfig::new().with_decode_padding_mode(DecodePaddingMode::Indifferent);
const LENIENT_STANDARD: GeneralPurpose = GeneralPurpose::new(&alphabet::STANDARD, LENIENT);
const LENIENT_URL_SAFE: GeneralPurpose = GeneralPurpose::new(&alphabet::URL_SAFE, LENIENT);

/// The file name of the key inside the data directory.
pub const KEY_FILE: &str = "secret.key";

/// A 256-bit key. `Debug` never shows it.
#[derive(Clone)]
pub struct SecretKey([u8; KEY_LEN]);

impl std::fmt::Debug for SecretKey {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("SecretKey(***)")
    }
}

/// Where the key in use came from, for error messages.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum KeySource {
    Env,
    File(PathBuf),
}

impl KeySource {
    pub fn describe(&self) -> String {
        match self {
            KeySource::Env => "SWITCHBOARD_SECRET_KEY".to_owned(),
            KeySource::File(path) => path.display().to_string(),
        }
    }
}

impl SecretKey {
    /// A fresh random key.
    pub fn generate() -> Self {
        let mut bytes = [0u8; KEY_LEN];
        OsRng.fill_bytes(&mut bytes);
        Self(bytes)
    }

    pub(crate) fn bytes(&self) -> &[u8; KEY_LEN] {
        &self.0
    }

    /// The key written as base64 (what the key file holds and `SWITCHBOARD_SECRET_KEY` takes).
    pub fn to_base64(&self) -> String {
        STANDARD.encode(self.0)
    }

    /// Reads a key written as base64 (standard or URL-safe, padded or not) or as hex.
    pub fn parse(text: &str, source: &KeySource) -> Result<Self, SecretError> {
        let text = text.trim();
        let bad = |reason: &str| SecretError::BadKey {
            source_name: source.describe(),
            reason: reason.to_owned(),
        };
        let bytes = if text.len() == 2 * KEY_LEN && text.bytes().all(|b| b.is_ascii_hexdigit()) {
            (0..KEY_LEN)
                .map(|i| u8::from_str_radix(&text[2 * i..2 * i + 2], 16))
                .collect::<Result<Vec<u8>, _>>()
                .map_err(|_| bad("not hex"))?
        } else {
            LENIENT_STANDARD
                .decode(text)
                .or_else(|_| LENIENT_URL_SAFE.decode(text))
                .map_err(|_| {
                    bad("write 32 bytes as base64 (openssl rand -base64 32) or 64 hex digits")
                })?
        };
        let bytes: [u8; KEY_LEN] = bytes
            .try_into()
            .map_err(|_| bad("it must be exactly 32 bytes (256 bits)"))?;
        Ok(Self(bytes))
    }

    /// The key from `env_value` if given, else from the key file in `data_dir`, creating the
    /// file when `may_create` and it does not exist yet.
    pub fn resolve(
        env_value: Option<&str>,
        data_dir: &Path,
        may_create: bool,
    ) -> Result<(Self, KeySource), SecretError> {
        if let Some(value) = env_value.filter(|v| !v.trim().is_empty()) {
            return Ok((Self::parse(value, &KeySource::Env)?, KeySource::Env));
        }
        let path = data_dir.join(KEY_FILE);
        let source = KeySource::File(path.clone());
        let file_error = |source: std::io::Error| SecretError::KeyFile {
            path: path.display().to_string(),
            source,
        };
        match std::fs::read_to_string(&path) {
            Ok(text) => return Ok((Self::parse(&text, &source)?, source)),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
            Err(e) => return Err(file_error(e)),
        }
        if !may_create {
            return Err(SecretError::MissingKey {
                path: path.display().to_string(),
            });
        }
        let key = Self::generate();
        match create_private(&path, &key) {
            Ok(()) => Ok((key, source)),
            // Another process created it first: use theirs.
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => {
                let text = std::fs::read_to_string(&path).map_err(file_error)?;
                Ok((Self::parse(&text, &source)?, source))
            }
            Err(e) => Err(file_error(e)),
        }
    }
}

/// Makes `path` hold `key`, readable by its owner only, unless it exists. The key is written
/// and synced to a temporary file first and then hard-linked into place, so no process ever
/// sees a half-written key file and a crash leaves either no key file or a whole one; the link
/// fails if another process got there first (`AlreadyExists`).
fn create_private(path: &Path, key: &SecretKey) -> std::io::Result<()> {
    let dir = path.parent().unwrap_or_else(|| Path::new("."));
    let temp = dir.join(format!(".{KEY_FILE}.{}.tmp", std::process::id()));
    let mut options = std::fs::OpenOptions::new();
    options.write(true).create(true).truncate(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        options.mode(0o600);
    }
    let written = (|| {
        let mut file = options.open(&temp)?;
        writeln!(file, "{}", key.to_base64())?;
        file.sync_all()?;
        std::fs::hard_link(&temp, path)
    })();
    let _ = std::fs::remove_file(&temp);
    written
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn base64_and_hex_are_read() {
        let key = SecretKey::generate();
        let source = KeySource::Env;
        let from_b64 = SecretKey::parse(&key.to_base64(), &source).unwrap();
        assert_eq!(from_b64.0, key.0);
        let hex: String = key.0.iter().map(|b| format!("{b:02x}")).collect();
        assert_eq!(SecretKey::parse(&hex, &source).unwrap().0, key.0);
    }

    #[test]
    fn short_or_garbled_keys_are_refused_with_the_source_named() {
        let err = SecretKey::parse("c2hvcnQ=", &KeySource::Env).unwrap_err();
        assert!(err.to_string().contains("SWITCHBOARD_SECRET_KEY"), "{err}");
        assert!(err.to_string().contains("32 bytes"), "{err}");
        assert!(SecretKey::parse("not base64 at all!", &KeySource::Env).is_err());
    }

    #[test]
    fn the_key_file_is_created_once_with_mode_0600() {
        let dir = tempfile::tempdir().unwrap();
        let (first, source) = SecretKey::resolve(None, dir.path(), true).unwrap();
        assert_eq!(source, KeySource::File(dir.path().join(KEY_FILE)));
        let (second, _) = SecretKey::resolve(None, dir.path(), true).unwrap();
        assert_eq!(first.0, second.0);
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            let mode = std::fs::metadata(dir.path().join(KEY_FILE))
                .unwrap()
                .permissions()
                .mode();
            assert_eq!(mode & 0o777, 0o600);
        }
    }

    #[test]
    fn no_key_file_is_made_when_creation_is_not_allowed() {
        let dir = tempfile::tempdir().unwrap();
        let err = SecretKey::resolve(None, dir.path(), false).unwrap_err();
        assert!(matches!(err, SecretError::MissingKey { .. }));
        assert!(!dir.path().join(KEY_FILE).exists());
    }

    #[test]
    fn the_environment_wins_over_the_file() {
        let dir = tempfile::tempdir().unwrap();
        let (file_key, _) = SecretKey::resolve(None, dir.path(), true).unwrap();
        let env_key = SecretKey::generate();
        let (used, source) =
            SecretKey::resolve(Some(&env_key.to_base64()), dir.path(), true).unwrap();
        assert_eq!(source, KeySource::Env);
        assert_eq!(used.0, env_key.0);
        assert_ne!(used.0, file_key.0);
    }
}
