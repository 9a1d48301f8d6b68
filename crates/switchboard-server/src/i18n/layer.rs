//! The layer that words each error answer in its request's language.
//!
//! [`ApiError::into_response`](crate::ApiError) writes the English body and leaves an
//! [`ErrorText`] in the response's extensions; [`localize`] reads it, picks the locale and
//! writes the body again: `{code, message, timestamp, hint}`. The locale is the user's
//! preference when the request was authenticated as a user who set one (the [`Caller`]
//! extractor puts it in a slot this layer gave the request, [`remember_preference`]), else
//! the request's `Accept-Language`.
//!
//! [`Caller`]: crate::auth::Caller

use std::sync::{Arc, OnceLock};

use axum::extract::{Request, State};
use axum::http::{HeaderValue, Method, header};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use switchboard_core::{ErrorCode, Locale};
use switchboard_store::User;

use super::LocaleTexts;
use crate::error::{ErrorBody, Param};
use crate::state::AppState;

/// What an error answer says, before it is put in a language.
#[derive(Debug, Clone)]
pub struct ErrorText {
    pub code: ErrorCode,
    /// The English message, and the `{detail}` of the code's template.
    pub message: String,
    /// A key of the locale files for the whole message, with its parameters.
    pub key: Option<&'static str>,
    pub params: Vec<(&'static str, Param)>,
    pub timestamp: String,
    /// The message itself says what to do (a missing program, a name that does not
    /// resolve): the code's general hint would only say something else.
    pub says_what_to_do: bool,
    /// With `TASK_PENDING`: the tasks it lists.
    pub tasks: Option<Vec<crate::error::PendingTaskBody>>,
}

impl ErrorText {
    /// The body in `locale`; English (the code's own words) where the locale texts have nothing.
    pub fn body(&self, texts: &LocaleTexts, locale: Locale) -> ErrorBody {
        let message = self
            .key
            .and_then(|key| texts.render(locale, key, &self.params_in(texts, locale)))
            .or_else(|| {
                let template = format!("error.{}.message", self.code.as_str());
                texts.render(locale, &template, &[("detail", self.message.clone())])
            })
            .unwrap_or_else(|| self.message.clone());
        let hint = (!self.says_what_to_do)
            .then(|| texts.render(locale, &format!("error.{}.hint", self.code.as_str()), &[]))
            .flatten();
        ErrorBody {
            code: self.code.as_str(),
            message,
            timestamp: self.timestamp.clone(),
            hint,
            tasks: self.tasks.clone(),
        }
    }
}

impl ErrorText {
    /// The parameters as text of `locale`; worded ones fall back to English, then to their key.
    fn params_in(&self, texts: &LocaleTexts, locale: Locale) -> Vec<(&'static str, String)> {
        self.params
            .iter()
            .map(|(name, value)| {
                let text = match value {
                    Param::Text(text) => text.clone(),
                    Param::Words(words) => texts
                        .render(locale, words.key, &words.params)
                        .or_else(|| texts.render(Locale::EnUs, words.key, &words.params))
                        .unwrap_or_else(|| words.key.to_owned()),
                };
                (*name, text)
            })
            .collect()
    }
}

/// The signed-in user's preferred locale, once known (set by the [`Caller`] extractor).
///
/// [`Caller`]: crate::auth::Caller
#[derive(Debug, Clone, Default)]
struct Preference(Arc<OnceLock<Locale>>);

/// Records the locale `user` chose, if any, for the error answers of this request.
pub fn remember_preference(extensions: &axum::http::Extensions, user: &User) {
    if let (Some(slot), Some(locale)) = (extensions.get::<Preference>(), user.locale) {
        let _ = slot.0.set(locale);
    }
}

/// Rewrites error answers in the request's language (see the module's docs).
pub async fn localize(State(state): State<AppState>, mut request: Request, next: Next) -> Response {
    // Kept, not parsed: only an error answer needs the language.
    let accept_language = request.headers().get(header::ACCEPT_LANGUAGE).cloned();
    let head = request.method() == Method::HEAD;
    let preference = Preference::default();
    request.extensions_mut().insert(preference.clone());
    let mut response = next.run(request).await;
    let Some(text) = response.extensions_mut().remove::<ErrorText>() else {
        return response;
    };
    let locale = preference.0.get().copied().unwrap_or_else(|| {
        super::negotiate(accept_language.as_ref().and_then(|v| v.to_str().ok()))
    });
    let (mut parts, _english) = response.into_parts();
    // The status, `Retry-After` and the JSON content type stay; the body is written again.
    parts.headers.remove(header::CONTENT_LENGTH);
    parts.headers.insert(
        header::CONTENT_LANGUAGE,
        HeaderValue::from_static(locale.as_str()),
    );
    let body = if head {
        axum::body::Body::empty()
    } else {
        axum::Json(text.body(&state.locales, locale))
            .into_response()
            .into_body()
    };
    Response::from_parts(parts, body)
}
