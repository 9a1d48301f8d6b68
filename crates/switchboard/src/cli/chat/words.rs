//! The chat's notices in the terminal's language, in the words the page uses (the locale
//! files' `ui.*` texts): the language is the POSIX locale's (`LC_ALL`, else `LC_MESSAGES`,
//! else `LANG`), read as the server reads `Accept-Language`; English when it names neither
//! of Switchboard's languages.

use switchboard_agent::left_out::{LeftOutBecause, LeftOutServer};
use switchboard_core::Locale;
use switchboard_server::i18n::{LocaleTexts, negotiate};

pub struct Words {
    texts: LocaleTexts,
    locale: Locale,
}

impl Words {
    /// The words of the language `env` (an environment lookup) names.
    pub fn from_env(env: &dyn Fn(&str) -> Option<String>) -> Self {
        Self {
            texts: LocaleTexts::embedded_or_empty(),
            locale: terminal_locale(env),
        }
    }

    /// "GitHub is unreachable: its tools are left out", and the like.
    pub fn left_out(&self, server: &LeftOutServer) -> String {
        let key = match server.because {
            LeftOutBecause::Unreachable => "ui.chat.left_out_unreachable",
            LeftOutBecause::SignIn => "ui.chat.left_out_sign_in",
            _ => "ui.chat.left_out_failed",
        };
        let params = [("server", server.name.clone())];
        self.texts
            .render(self.locale, key, &params)
            .or_else(|| self.texts.render(Locale::EnUs, key, &params))
            // The locale files are embedded; without them the notice still names the server.
            .unwrap_or_else(|| format!("{}: {}", server.name, server.code))
    }
}

/// The language of the POSIX locale variables, the first one set winning.
fn terminal_locale(env: &dyn Fn(&str) -> Option<String>) -> Locale {
    let tag = ["LC_ALL", "LC_MESSAGES", "LANG"]
        .into_iter()
        .find_map(|name| env(name).filter(|value| !value.is_empty()));
    negotiate(tag.as_deref())
}

#[cfg(test)]
mod tests {
    use switchboard_core::{ErrorCode, ServerId};

    use super::*;

    fn env(pairs: &'static [(&'static str, &'static str)]) -> impl Fn(&str) -> Option<String> {
        move |name| {
            pairs
                .iter()
                .find(|(n, _)| *n == name)
                .map(|(_, v)| (*v).to_owned())
        }
    }

    fn github(because: LeftOutBecause) -> LeftOutServer {
        LeftOutServer {
            server_id: ServerId("gh".into()),
            name: "GitHub".into(),
            code: ErrorCode::McpUnreachable,
            because,
        }
    }

    #[test]
    fn the_first_locale_variable_set_names_the_language() {
        assert_eq!(terminal_locale(&env(&[])), Locale::EnUs);
        assert_eq!(terminal_locale(&env(&[("LANG", "C.UTF-8")])), Locale::EnUs);
        assert_eq!(
            terminal_locale(&env(&[("LANG", "zh_CN.UTF-8")])),
            Locale::ZhHans
        );
        assert_eq!(
            terminal_locale(&env(&[("LC_ALL", "en_US.UTF-8"), ("LANG", "zh_CN.UTF-8")])),
            Locale::EnUs
        );
        assert_eq!(
            terminal_locale(&env(&[("LC_ALL", ""), ("LC_MESSAGES", "zh_CN.UTF-8")])),
            Locale::ZhHans
        );
    }

    #[test]
    fn a_left_out_server_is_named_with_why_in_either_language() {
        let english = Words::from_env(&env(&[]));
        assert_eq!(
            english.left_out(&github(LeftOutBecause::Unreachable)),
            "GitHub is unreachable: its tools are left out"
        );
        let chinese = Words::from_env(&env(&[("LANG", "zh_CN.UTF-8")]));
        for because in [
            LeftOutBecause::Unreachable,
            LeftOutBecause::SignIn,
            LeftOutBecause::Failed,
        ] {
            let text = chinese.left_out(&github(because));
            assert!(
                text.contains("GitHub")
                    && text.chars().any(|c| ('\u{4e00}'..='\u{9fff}').contains(&c)),
                "{text}"
            );
        }
    }
}
