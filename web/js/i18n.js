// The UI's words in the reader's language, zh-Hans or en-US. Every visible string is a key
// of the locale files at the repository root (locales/<tag>.json, keys `ui.*`), which the
// server serves at /api/locales/<tag>; nothing here is written in one language.
//
// The language: the signed-in user's stored choice (PATCH /api/me) when there is one, else
// the choice made in this browser (localStorage), else the browser's own languages
// (navigator.languages), else English. The server picks error messages the same way, and
// api.js sends the UI's language as Accept-Language so both agree.

export const LOCALES = ["en-US", "zh-Hans"];
export const DEFAULT_LOCALE = "en-US";
const STORAGE_KEY = "switchboard.locale";

/** The locale for a list of BCP 47 tags, best first (the server's rules: simplified Chinese is zh-Hans). */
export function pickLocale(languages) {
  for (const tag of languages || []) {
    const [language, ...rest] = String(tag).toLowerCase().split(/[-_]/);
    if (language === "en" || language === "*") return "en-US";
    if (language === "zh" && !rest.some((s) => ["hant", "tw", "hk", "mo"].includes(s))) return "zh-Hans";
  }
  return DEFAULT_LOCALE;
}

/** `template` with each `{name}` of `params` filled in; unknown names are left as they are. */
export function format(template, params) {
  return template.replace(/\{(\w+)\}/g, (whole, name) =>
    params && Object.prototype.hasOwnProperty.call(params, name) ? String(params[name]) : whole,
  );
}

/**
 * A translator. `load(locale)` answers that locale's texts (key → text); `storage` is where
 * an anonymous choice is kept (localStorage); `remember(locale)` stores a signed-in user's
 * choice (PATCH /api/me).
 */
export function createI18n({ load, storage, remember }) {
  let locale = DEFAULT_LOCALE;
  let texts = {};
  const listeners = new Set();

  const use = async (next) => {
    const wanted = LOCALES.includes(next) ? next : DEFAULT_LOCALE;
    texts = (await load(wanted)) || {};
    locale = wanted;
    listeners.forEach((listener) => listener(locale));
    return locale;
  };

  return {
    locale: () => locale,
    /** The text of `key` in the current language; the key itself when it has none. */
    t: (key, params) => format(texts[key] ?? key, params),
    /** Starts in the stored choice, else the browser's languages. */
    start: (languages) => use(stored(storage) || pickLocale(languages)),
    /** The signed-in user's stored choice, when they made one, wins over this browser's. */
    adopt: (preference) => (LOCALES.includes(preference) && preference !== locale ? use(preference) : locale),
    /** The reader switches: kept for them (through the API when signed in) and shown at once. */
    choose: async (next, signedIn) => {
      if (!LOCALES.includes(next)) return locale;
      storage?.setItem(STORAGE_KEY, next);
      if (signedIn) await remember(next);
      return use(next);
    },
    onChange: (listener) => {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
  };
}

function stored(storage) {
  const value = storage?.getItem(STORAGE_KEY);
  return LOCALES.includes(value) ? value : null;
}

// The page's translator, set up by main.js before the first render.
let current = createI18n({ load: async () => ({}), storage: null, remember: async () => {} });

export function install(i18n) {
  current = i18n;
}

export const t = (key, params) => current.t(key, params);
export const locale = () => current.locale();
export const chooseLocale = (next, signedIn) => current.choose(next, signedIn);
export const adoptLocale = (preference) => current.adopt(preference);
export const onLocaleChange = (listener) => current.onChange(listener);
