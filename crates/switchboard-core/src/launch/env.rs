//! Environment variables no member may set, whatever a template says.
//!
//! They change which program runs, what it loads before its own code, or where it fetches code
//! from: the dynamic loader (`LD_PRELOAD`), interpreters (`NODE_OPTIONS=--require`,
//! `PYTHONSTARTUP`, `PERL5OPT`, `RUBYOPT`, `BASH_ENV`, `JAVA_TOOL_OPTIONS`), package managers
//! (`NPM_CONFIG_*` sets npm's script shell, `UV_INDEX_URL` another index, `HOME` another
//! `.npmrc`), `PATH` (another `npx`), TLS trust and proxies (a forged registry), and
//! Switchboard's own secrets (`SWITCHBOARD_*`, `DATABASE_URL`, the provider variables), which a
//! child never inherits and a member has no business naming. Names are compared
//! case-insensitively: Windows and several tools (npm) read them without regard to case.
//!
//! A list cannot know every tool, so it is a second line: a member sets only the names an
//! admin's template lists, and this list stops a template from listing these.

/// Names refused whole.
const EXACT: &[&str] = &[
    "PATH",
    "HOME",
    "SHELL",
    "ENV",
    "BASH_ENV",
    "SHELLOPTS",
    "BASHOPTS",
    "PS4",
    "PROMPT_COMMAND",
    "IFS",
    "CDPATH",
    "TMPDIR",
    "GCONV_PATH",
    "GETCONF_DIR",
    "HOSTALIASES",
    "LOCPATH",
    "NLSPATH",
    "RESOLV_HOST_CONF",
    "GLIBC_TUNABLES",
    "PERLLIB",
    "RUBYOPT",
    "RUBYLIB",
    "CLASSPATH",
    "OPENSSL_CONF",
    "SSLKEYLOGFILE",
    "REQUESTS_CA_BUNDLE",
    "CURL_CA_BUNDLE",
    "PHPRC",
    "PHP_INI_SCAN_DIR",
    "TCLLIBPATH",
    "EDITOR",
    "VISUAL",
    "PAGER",
    "BROWSER",
    "LESSOPEN",
    "LESSCLOSE",
    "ELECTRON_RUN_AS_NODE",
    "VIRTUAL_ENV",
    "GOFLAGS",
    "GOPATH",
    "GOROOT",
    "GOPROXY",
    "GOTOOLCHAIN",
    "GOENV",
    "DATABASE_URL",
    "OPENAI_API_KEY",
    "OPENAI_BASE_URL",
    "OPENAI_MODEL",
    "ANTHROPIC_API_KEY",
    "ANTHROPIC_BASE_URL",
    "ANTHROPIC_MODEL",
];

/// Families refused by their start.
const PREFIXES: &[&str] = &[
    "LD_",
    "DYLD_",
    "NODE_",
    "NPM_",
    "YARN_",
    "PNPM_",
    "COREPACK_",
    "BUN_",
    "DENO_",
    "PYTHON",
    "PIP_",
    "UV_",
    "CONDA_",
    "PERL5",
    "PERL_",
    "RUBY",
    "GEM_",
    "BUNDLE_",
    "JAVA_",
    "_JAVA_",
    "JDK_",
    "DOTNET_",
    "CORECLR_",
    "COMPLUS_",
    "GIT_",
    "BASH_FUNC_",
    "MALLOC_",
    "SSL_",
    "OPENSSL_",
    "LUA_",
    "XDG_",
    "SWITCHBOARD_",
];

/// Families refused by their end: `HTTP_PROXY` and kin, `*_OPTIONS`/`*_OPTS` of runtimes
/// (`JAVA_TOOL_OPTIONS`, `MAVEN_OPTS`).
const SUFFIXES: &[&str] = &["_PROXY", "_OPTIONS", "_OPTS"];

/// Whether no member may set `name`, in any case.
pub fn is_forbidden_env(name: &str) -> bool {
    let upper = name.to_ascii_uppercase();
    EXACT.contains(&upper.as_str())
        || PREFIXES.iter().any(|p| upper.starts_with(p))
        || SUFFIXES.iter().any(|s| upper.ends_with(s))
}

/// A portable variable name: letters, digits and `_`, not starting with a digit. Anything else
/// (`=`, NUL, `%` as in `BASH_FUNC_f%%`) is refused rather than guessed at.
pub(super) fn is_valid_name(name: &str) -> bool {
    (1..=128).contains(&name.len())
        && name.starts_with(|c: char| c.is_ascii_alphabetic() || c == '_')
        && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
}
