//! The store's options, shown by `config show` but read by clap as global options (every
//! command needs them, and the settings file is found through `--data-dir`). The database
//! URL and the secret key are credentials: shown as set, never as what they are.

use std::path::PathBuf;

use super::key::Key;
use super::layers::Layers;
use super::origin::Origin;
use super::value::quoted;

const DATA_DIR: Key = Key::new("store", "data_dir", "./switchboard-data")
    .env("SWITCHBOARD_DATA_DIR")
    .flag("--data-dir");
const DATABASE_URL: Key = Key {
    secret: true,
    ..Key::new("store", "database_url", "")
        .env("DATABASE_URL")
        .flag("--database-url")
};
const SECRET_KEY: Key = Key {
    secret: true,
    ..Key::new("store", "secret_key", "").env("SWITCHBOARD_SECRET_KEY")
};

/// The global options' values and where clap found them.
#[derive(Debug, Clone, Default)]
pub struct StoreShown {
    pub data_dir: PathBuf,
    pub data_dir_origin: Option<Origin>,
    pub database_url_origin: Option<Origin>,
    pub secret_key_origin: Option<Origin>,
}

impl StoreShown {
    pub(super) fn note(&self, layers: &mut Layers<'_>) {
        let text = quoted(&self.data_dir.display().to_string());
        layers.note(
            &DATA_DIR,
            text,
            self.data_dir_origin.clone().unwrap_or(Origin::Default),
        );
        for (key, origin) in [
            (&DATABASE_URL, &self.database_url_origin),
            (&SECRET_KEY, &self.secret_key_origin),
        ] {
            match origin {
                Some(origin) => layers.note(key, "set".to_owned(), origin.clone()),
                None => layers.note(key, "\"\"".to_owned(), Origin::Default),
            }
        }
    }
}
