//! The languages Switchboard speaks to people (seed 003 "localisation"): messages,
//! hints and the web UI come in each of these, from the locale files at the repository root
//! (`locales/<tag>.json`). A user may store one as their preference; the server otherwise
//! follows the request's `Accept-Language`.
//!
//! ```
//! use switchboard_core::Locale;
//!
//! assert_eq!("zh-Hans".parse::<Locale>(), Ok(Locale::ZhHans));
//! assert_eq!(Locale::default(), Locale::EnUs);
//! assert_eq!(Locale::EnUs.as_str(), "en-US");
//! ```

use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Serialize};
use thiserror::Error;

/// A language the messages and the UI are written in, named by its BCP 47 tag.
#[derive(
    Debug, Clone, Copy, Default, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize,
)]
#[non_exhaustive]
pub enum Locale {
    /// English (United States): the default, when nothing asks for another.
    #[default]
    #[serde(rename = "en-US")]
    EnUs,
    /// Chinese in simplified characters.
    #[serde(rename = "zh-Hans")]
    ZhHans,
}

impl Locale {
    /// Every locale, the default first.
    pub const ALL: &'static [Locale] = &[Locale::EnUs, Locale::ZhHans];

    /// The tag, as the locale files are named and as the API sends it.
    pub fn as_str(self) -> &'static str {
        match self {
            Locale::EnUs => "en-US",
            Locale::ZhHans => "zh-Hans",
        }
    }
}

impl fmt::Display for Locale {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A tag that is not exactly one of the [`Locale`]s.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
#[error("unknown locale {0:?}; the locales are en-US and zh-Hans")]
pub struct UnknownLocale(pub String);

impl FromStr for Locale {
    type Err = UnknownLocale;

    /// Exactly a locale's tag (stored preferences, API fields); for what a browser sends,
    /// the server negotiates from `Accept-Language` instead.
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Locale::ALL
            .iter()
            .copied()
            .find(|locale| locale.as_str() == s)
            .ok_or_else(|| UnknownLocale(s.to_owned()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tags_round_trip_through_serde_and_from_str() {
        for &locale in Locale::ALL {
            let json = serde_json::to_string(&locale).unwrap();
            assert_eq!(json, format!("\"{}\"", locale.as_str()));
            assert_eq!(serde_json::from_str::<Locale>(&json).unwrap(), locale);
            assert_eq!(locale.as_str().parse::<Locale>(), Ok(locale));
        }
        assert!("zh-CN".parse::<Locale>().is_err());
        assert!(serde_json::from_str::<Locale>("\"fr\"").is_err());
    }
}
