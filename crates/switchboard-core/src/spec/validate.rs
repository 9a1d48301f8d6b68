//! The rules a [`ServerSpec`] must follow before Switchboard will try to use it.
//!
//! Validation happens once, on the way in (API, CLI, config import), so the layers below can
//! trust a spec: a stdio spec has a command, an HTTP spec has an http(s) URL, and every header
//! can be sent as given. Each failure is a [`SpecError`] that names the field at fault
//! ([`SpecError::field`]) and says what to change, and never echoes a secret: header values,
//! env values and credentials are described, not quoted. Rules that only matter for one
//! transport (`url`, `command`) are checked only for that transport, so a form that switched
//! transport and left the other field filled in does not fail for a field that is not used.

use thiserror::Error;

use super::{Auth, SamplingPolicy, ServerSpec, TransportKind};

/// Why a [`ServerSpec`] cannot be used.
///
/// `field` is the spec field at fault as it is named in JSON (`url`, `auth.token`), followed by
/// `.key` for one entry of a map (`headers.X-Api-Key`, `env.GITHUB_TOKEN`) or `[i]` for one
/// element of a list (`args[2]`).
#[derive(Debug, Clone, PartialEq, Eq, Error)]
#[non_exhaustive]
pub enum SpecError {
    /// A field that must hold text is empty or only whitespace.
    #[error("{field} must not be empty")]
    Empty { field: String },
    /// A field the transport needs is absent.
    #[error("a {transport} server needs a {field}")]
    Missing {
        field: String,
        transport: TransportKind,
    },
    /// The URL does not parse.
    #[error("{field} is not a valid URL ({reason}); write it like https://example.com/mcp")]
    InvalidUrl {
        field: String,
        reason: url::ParseError,
    },
    /// The URL parses but is not http or https (seed 002, property 2).
    #[error("{field} must be an http:// or https:// URL, not a {scheme}: URL")]
    UnsupportedScheme { field: String, scheme: String },
    /// Not an HTTP header name (RFC 9110 token).
    #[error(
        "{field}: {name:?} is not a valid HTTP header name \
         (use ASCII letters, digits and !#$%&'*+-.^_`|~, no spaces)"
    )]
    InvalidHeaderName { field: String, name: String },
    /// A header the HTTP client sets itself: the framing and hop-by-hop headers and `Host`.
    /// Sent as given they could make the upstream read a request's body wrongly, or hold a
    /// connection others share, or reach another virtual host.
    #[error("{field}: {name:?} is set by Switchboard's HTTP client and cannot be configured")]
    ReservedHeader { field: String, name: String },
    /// A header value (or a credential sent in one) holds a byte HTTP does not allow.
    #[error(
        "{field} cannot be sent in an HTTP header: it contains a control character \
         such as a line break (CR/LF)"
    )]
    InvalidHeaderValue { field: String },
    /// Not a name a process environment can hold.
    #[error(
        "{field}: {name:?} is not a valid environment variable name \
         (it must be non-empty and contain no `=` or NUL)"
    )]
    InvalidEnvName { field: String, name: String },
    /// A NUL byte, which no process command line or environment can carry.
    #[error("{field} contains a NUL byte, which a process cannot receive")]
    NulByte { field: String },
    /// The id holds characters that are not safe in a URL path segment, or is only dots
    /// (`.`, `..`), which a URL path reads as "this" or "the parent".
    #[error(
        "{field}: {id:?} may only contain ASCII letters, digits and `-`, `_`, `.`, `~`, \
         and not only dots (it appears in URLs)"
    )]
    InvalidId { field: String, id: String },
    /// A zero timeout would fail every call at once.
    #[error("{field} must be greater than zero seconds")]
    ZeroTimeout { field: String },
    /// Longer than a day, or finer than a millisecond (which no clock here honours and the
    /// store does not keep).
    #[error("{field} must be a whole number of milliseconds, at most 86400 seconds")]
    TimeoutOutOfRange { field: String },
    /// `secret_env` names a variable that `env` does not set.
    #[error("{field}: {name:?} is marked secret but is not set in env")]
    UnknownSecretEnv { field: String, name: String },
    /// Text longer than its limit, in characters (a server's name).
    #[error("{field} must be at most {max} characters long")]
    TooLong { field: String, max: usize },
    /// A number above its limit (a tool node's `maxRetries`).
    #[error("{field} must be at most {max}")]
    TooLarge { field: String, max: u64 },
    /// A name given twice where each must be unique (a selected tool, a declared variable).
    #[error("{field}: {name:?} is given more than once")]
    Duplicate { field: String, name: String },
    /// Not a name a variable can be declared under.
    #[error(
        "{field}: {name:?} is not a variable name (ASCII letters, digits, `_` and `-`, \
         starting with a letter or `_`)"
    )]
    InvalidVariableName { field: String, name: String },
    /// A built-in variable (`now`, `user.id`, ...), which Switchboard fills itself.
    #[error("{field}: {name:?} is a built-in variable and cannot be declared")]
    ReservedVariable { field: String, name: String },
    /// A declared variable's default is not of its declared type.
    #[error("{field} must be a value of type {expected}")]
    DefaultType { field: String, expected: String },
    /// A field that means nothing without another one (an OAuth client secret without its
    /// client id).
    #[error("{field} needs {needs}")]
    Needs { field: String, needs: String },
    /// A root folder that is neither an absolute path nor a `file:` URI.
    #[error("{field}: {root:?} must be an absolute path or a file: URI")]
    InvalidRoot { field: String, root: String },
    /// Not an OAuth scope token (RFC 6749 section 3.3).
    #[error(
        "{field}: {scope:?} is not an OAuth scope (printable ASCII, no spaces, quotes or backslashes)"
    )]
    InvalidScope { field: String, scope: String },
    /// A number outside its range (a sampling token cap).
    #[error("{field} must be between {min} and {max}")]
    OutOfRange { field: String, min: u64, max: u64 },
}

impl SpecError {
    /// The field at fault, as described on [`SpecError`] (`url`, `headers.X-Api-Key`).
    pub fn field(&self) -> &str {
        match self {
            SpecError::Empty { field }
            | SpecError::Missing { field, .. }
            | SpecError::InvalidUrl { field, .. }
            | SpecError::UnsupportedScheme { field, .. }
            | SpecError::InvalidHeaderName { field, .. }
            | SpecError::ReservedHeader { field, .. }
            | SpecError::InvalidHeaderValue { field }
            | SpecError::InvalidEnvName { field, .. }
            | SpecError::NulByte { field }
            | SpecError::InvalidId { field, .. }
            | SpecError::ZeroTimeout { field }
            | SpecError::TimeoutOutOfRange { field }
            | SpecError::UnknownSecretEnv { field, .. }
            | SpecError::TooLarge { field, .. }
            | SpecError::TooLong { field, .. }
            | SpecError::Duplicate { field, .. }
            | SpecError::InvalidVariableName { field, .. }
            | SpecError::ReservedVariable { field, .. }
            | SpecError::DefaultType { field, .. }
            | SpecError::Needs { field, .. }
            | SpecError::InvalidRoot { field, .. }
            | SpecError::InvalidScope { field, .. }
            | SpecError::OutOfRange { field, .. } => field,
        }
    }
}

impl ServerSpec {
    /// Checks every rule and returns the first broken one, in field order.
    pub fn validate(&self) -> Result<(), SpecError> {
        check_id(&self.id.0)?;
        non_blank("name", &self.name)?;
        at_most_chars("name", &self.name, MAX_NAME_CHARS)?;
        match self.transport {
            TransportKind::Stdio => self.check_process()?,
            TransportKind::StreamableHttp | TransportKind::Sse => {
                let url = self.url.as_deref().ok_or_else(|| SpecError::Missing {
                    field: "url".into(),
                    transport: self.transport,
                })?;
                non_blank("url", url)?;
                parse_http_url(url)?;
            }
        }
        for (name, value) in &self.headers {
            check_header_name("headers", name)?;
            check_header_value(&format!("headers.{name}"), value)?;
        }
        check_auth(&self.auth)?;
        if let Some(timeout) = self.timeout {
            check_timeout("timeout", timeout)?;
        }
        if let Some(name) = self.secret_env.iter().find(|k| !self.env.contains_key(*k)) {
            return Err(SpecError::UnknownSecretEnv {
                field: "secretEnv".into(),
                name: name.clone(),
            });
        }
        for (i, root) in self.roots.iter().enumerate() {
            check_root(&format!("roots[{i}]"), root)?;
        }
        if self.roots.len() > MAX_ROOTS {
            return Err(SpecError::TooLarge {
                field: "roots".into(),
                max: MAX_ROOTS as u64,
            });
        }
        if let Some(sampling) = &self.sampling
            && !(1..=SamplingPolicy::MAX_TOKENS_LIMIT).contains(&sampling.max_tokens)
        {
            return Err(SpecError::OutOfRange {
                field: "sampling.maxTokens".into(),
                min: 1,
                max: SamplingPolicy::MAX_TOKENS_LIMIT.into(),
            });
        }
        Ok(())
    }

    fn check_process(&self) -> Result<(), SpecError> {
        let command = self.command.as_deref().ok_or_else(|| SpecError::Missing {
            field: "command".into(),
            transport: self.transport,
        })?;
        non_blank("command", command)?;
        no_nul("command", command)?;
        for (i, arg) in self.args.iter().enumerate() {
            no_nul(&format!("args[{i}]"), arg)?;
        }
        for (key, value) in &self.env {
            if key.is_empty() || key.contains(['=', '\0']) {
                return Err(SpecError::InvalidEnvName {
                    field: "env".into(),
                    name: key.clone(),
                });
            }
            no_nul(&format!("env.{key}"), value)?;
        }
        Ok(())
    }
}

/// Parses `url` and accepts it only when it is an http or https URL (seed 002, property 2:
/// `ftp:`, `file:`, `javascript:` and the rest are refused). The error names the field `url`.
pub fn parse_http_url(url: &str) -> Result<url::Url, SpecError> {
    let parsed = url::Url::parse(url).map_err(|reason| SpecError::InvalidUrl {
        field: "url".into(),
        reason,
    })?;
    match parsed.scheme() {
        "http" | "https" => Ok(parsed),
        other => Err(SpecError::UnsupportedScheme {
            field: "url".into(),
            scheme: other.to_owned(),
        }),
    }
}

/// Roots a server may be given; a handful in practice.
const MAX_ROOTS: usize = 64;

/// A root is an absolute path or a `file:` URI (MCP roots are `file:` URIs).
fn check_root(field: &str, root: &str) -> Result<(), SpecError> {
    non_blank(field, root)?;
    if root.contains('\0') {
        return Err(SpecError::NulByte {
            field: field.to_owned(),
        });
    }
    let fits = if root.starts_with("file:") {
        url::Url::parse(root).is_ok_and(|url| url.scheme() == "file")
    } else {
        std::path::Path::new(root).is_absolute()
    };
    if fits {
        Ok(())
    } else {
        Err(SpecError::InvalidRoot {
            field: field.to_owned(),
            root: root.to_owned(),
        })
    }
}

fn check_auth(auth: &Auth) -> Result<(), SpecError> {
    match auth {
        Auth::None => Ok(()),
        Auth::ApiKey { header, key } => {
            non_blank("auth.header", header)?;
            check_header_name("auth.header", header)?;
            non_blank("auth.key", key)?;
            check_header_value("auth.key", key)
        }
        Auth::Bearer { token } => {
            non_blank("auth.token", token)?;
            check_header_value("auth.token", token)
        }
        Auth::OAuth {
            client_id,
            client_secret,
            scopes,
        } => {
            if let Some(id) = client_id {
                non_blank("auth.clientId", id)?;
            }
            if let Some(secret) = client_secret {
                if client_id.is_none() {
                    return Err(SpecError::Needs {
                        field: "auth.clientSecret".into(),
                        needs: "auth.clientId".into(),
                    });
                }
                non_blank("auth.clientSecret", secret)?;
            }
            for scope in scopes {
                // RFC 6749 3.3: scope tokens are printable ASCII without space, `"` or `\`.
                let token = |c: char| c.is_ascii_graphic() && c != '"' && c != '\\';
                if scope.is_empty() || !scope.chars().all(token) {
                    return Err(SpecError::InvalidScope {
                        field: "auth.scopes".into(),
                        scope: scope.clone(),
                    });
                }
            }
            Ok(())
        }
    }
}

/// The rule for every configurable timeout: above zero, whole milliseconds, at most a day.
pub fn check_timeout(field: &str, timeout: std::time::Duration) -> Result<(), SpecError> {
    const MAX: std::time::Duration = std::time::Duration::from_secs(86_400);
    if timeout.is_zero() {
        return Err(SpecError::ZeroTimeout {
            field: field.to_owned(),
        });
    }
    if timeout > MAX || !timeout.subsec_nanos().is_multiple_of(1_000_000) {
        return Err(SpecError::TimeoutOutOfRange {
            field: field.to_owned(),
        });
    }
    Ok(())
}

fn check_id(id: &str) -> Result<(), SpecError> {
    non_blank("id", id)?;
    let url_safe = |c: char| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.' | '~');
    if id.chars().all(url_safe) && !id.chars().all(|c| c == '.') {
        Ok(())
    } else {
        Err(SpecError::InvalidId {
            field: "id".into(),
            id: id.to_owned(),
        })
    }
}

/// The longest name a server may have, in characters: names are shown in lists, logs and
/// tool descriptions, so a name of a megabyte would cost everyone who sees it.
pub const MAX_NAME_CHARS: usize = 200;

fn at_most_chars(field: &str, value: &str, max: usize) -> Result<(), SpecError> {
    if value.chars().nth(max).is_some() {
        Err(SpecError::TooLong {
            field: field.to_owned(),
            max,
        })
    } else {
        Ok(())
    }
}

fn non_blank(field: &str, value: &str) -> Result<(), SpecError> {
    if value.trim().is_empty() {
        Err(SpecError::Empty {
            field: field.to_owned(),
        })
    } else {
        Ok(())
    }
}

fn no_nul(field: &str, value: &str) -> Result<(), SpecError> {
    if value.contains('\0') {
        Err(SpecError::NulByte {
            field: field.to_owned(),
        })
    } else {
        Ok(())
    }
}

/// RFC 9110 `token`: what an HTTP client will accept as a header name.
fn check_header_name(field: &str, name: &str) -> Result<(), SpecError> {
    let tchar = |b: u8| b.is_ascii_alphanumeric() || b"!#$%&'*+-.^_`|~".contains(&b);
    if name.is_empty() || !name.bytes().all(tchar) {
        return Err(SpecError::InvalidHeaderName {
            field: field.to_owned(),
            name: name.to_owned(),
        });
    }
    if is_reserved_header(name) {
        return Err(SpecError::ReservedHeader {
            field: field.to_owned(),
            name: name.to_owned(),
        });
    }
    Ok(())
}

/// The headers the HTTP client owns: those that frame the message (`Content-Length`,
/// `Transfer-Encoding`, `Expect`, `Trailer`), the hop-by-hop ones of RFC 9110 section 7.6.1
/// (`Connection`, `Keep-Alive`, `TE`, `Upgrade`, `Proxy-*`) and `Host`.
fn is_reserved_header(name: &str) -> bool {
    const RESERVED: [&str; 9] = [
        "content-length",
        "transfer-encoding",
        "expect",
        "trailer",
        "connection",
        "keep-alive",
        "te",
        "upgrade",
        "host",
    ];
    let lower = name.to_ascii_lowercase();
    RESERVED.contains(&lower.as_str()) || lower.starts_with("proxy-")
}

/// Visible characters, spaces and tabs; no CR, LF, NUL or other control bytes, which would
/// let a value end its header early (header injection) or be refused by the HTTP client.
/// Bytes of non-ASCII UTF-8 are allowed, as the `http` crate allows them.
fn check_header_value(field: &str, value: &str) -> Result<(), SpecError> {
    let allowed = |b: u8| b == b'\t' || (b >= 0x20 && b != 0x7f);
    if value.bytes().all(allowed) {
        Ok(())
    } else {
        Err(SpecError::InvalidHeaderValue {
            field: field.to_owned(),
        })
    }
}

#[cfg(test)]
mod tests;
