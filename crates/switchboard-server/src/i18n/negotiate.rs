//! Which [`Locale`] a request gets: the user's stored preference when they set one, else the
//! best of `Accept-Language` (RFC 9110 §12.5.4: q-values honoured, `q=0` means "not this"),
//! else en-US.
//!
//! Tags are matched by language: any `zh` that is written in simplified characters (`zh`,
//! `zh-CN`, `zh-SG`, `zh-Hans`, `zh-Hans-CN`, ...) is zh-Hans; `zh-TW`, `zh-HK`, `zh-MO` and
//! `zh-Hant` are not (they read traditional characters) and, like every language we do not
//! have, are skipped in favour of the next choice; `en-*` and `*` are en-US.

use switchboard_core::Locale;

/// The locale for a request with this `Accept-Language` value (none: en-US).
pub fn negotiate(accept_language: Option<&str>) -> Locale {
    let Some(header) = accept_language else {
        return Locale::default();
    };
    let mut ranges: Vec<(u16, usize, Locale)> = header
        .split(',')
        .enumerate()
        .filter_map(|(position, range)| {
            let mut parts = range.split(';');
            let tag = parts.next()?.trim();
            let quality = parts
                .find_map(|p| p.trim().strip_prefix("q=").or(p.trim().strip_prefix("Q=")))
                .map_or(Some(1000), quality)?;
            let locale = supported(tag)?;
            (quality > 0).then_some((quality, position, locale))
        })
        .collect();
    // Highest quality first; the header's own order among equals.
    ranges.sort_by(|a, b| b.0.cmp(&a.0).then(a.1.cmp(&b.1)));
    ranges
        .first()
        .map_or(Locale::default(), |&(_, _, locale)| locale)
}

/// A q-value in thousandths (`0.5` → 500); `None` when malformed (the range is ignored).
fn quality(text: &str) -> Option<u16> {
    let value: f32 = text.trim().parse().ok()?;
    (0.0..=1.0)
        .contains(&value)
        .then(|| (value * 1000.0).round() as u16)
}

/// The locale a language tag asks for, if we have it.
fn supported(tag: &str) -> Option<Locale> {
    let lower = tag.to_ascii_lowercase();
    let mut subtags = lower.split(['-', '_']);
    match subtags.next()? {
        "*" | "en" => Some(Locale::EnUs),
        "zh" => {
            let traditional = subtags.any(|s| matches!(s, "hant" | "tw" | "hk" | "mo"));
            (!traditional).then_some(Locale::ZhHans)
        }
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn simplified_chinese_tags_are_zh_hans() {
        for tag in [
            "zh",
            "zh-CN",
            "zh-Hans",
            "zh-SG",
            "zh-Hans-CN",
            "ZH-cn",
            "zh_CN",
        ] {
            assert_eq!(negotiate(Some(tag)), Locale::ZhHans, "{tag}");
        }
        for tag in [
            "zh-TW",
            "zh-Hant",
            "zh-HK",
            "en",
            "en-GB",
            "fr",
            "*",
            "",
            "garbage;;",
        ] {
            assert_eq!(negotiate(Some(tag)), Locale::EnUs, "{tag}");
        }
        assert_eq!(negotiate(None), Locale::EnUs);
    }

    #[test]
    fn q_values_choose_among_the_languages_we_have() {
        assert_eq!(negotiate(Some("en;q=0.5, zh-CN;q=0.9")), Locale::ZhHans);
        assert_eq!(negotiate(Some("zh-CN;q=0.4, en-US")), Locale::EnUs);
        assert_eq!(
            negotiate(Some("fr-FR, fr;q=0.9, zh;q=0.8, en;q=0.7")),
            Locale::ZhHans
        );
        assert_eq!(negotiate(Some("zh-TW, zh;q=0.8, en;q=0.6")), Locale::ZhHans);
        assert_eq!(negotiate(Some("zh;q=0, en")), Locale::EnUs);
        assert_eq!(negotiate(Some("zh;q=0")), Locale::EnUs);
        assert_eq!(
            negotiate(Some("en, zh")),
            Locale::EnUs,
            "the header's order among equals"
        );
        assert_eq!(negotiate(Some("zh;q=oops, en;q=0.1")), Locale::EnUs);
    }
}
