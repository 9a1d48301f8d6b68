//! The browser's part of an OAuth sign-in, for authorization servers that approve at once
//! (the conformance suite's, the test servers' with auto-approval): the authorization URL's
//! redirects are followed until one leads to the client's `redirect_uri`, whose query is the
//! callback (`code`, `state`, and `iss` per RFC 9207).

use anyhow::{Context, Result, bail};

/// What the authorization server sent back to the client.
#[derive(Debug, Clone)]
pub struct Callback {
    pub code: String,
    pub state: String,
    pub iss: Option<String>,
}

/// Follows `auth_url` (at most ten hops, no cookies) to the redirect to `redirect_uri`.
pub async fn follow_to_callback(auth_url: &str, redirect_uri: &str) -> Result<Callback> {
    let client = reqwest::Client::builder()
        .redirect(reqwest::redirect::Policy::none())
        .timeout(std::time::Duration::from_secs(10))
        .build()?;
    let mut at = url::Url::parse(auth_url).context("the authorization URL does not parse")?;
    for _ in 0..10 {
        let response = client.get(at.clone()).send().await?;
        let Some(location) = response.headers().get(reqwest::header::LOCATION) else {
            bail!(
                "the authorization server answered {} without a redirect",
                response.status()
            );
        };
        let next = at.join(location.to_str()?)?;
        if next.as_str().starts_with(redirect_uri) {
            return callback_of(&next);
        }
        at = next;
    }
    bail!("more than ten redirects from the authorization URL")
}

fn callback_of(url: &url::Url) -> Result<Callback> {
    let query = |name: &str| {
        url.query_pairs()
            .find(|(key, _)| key == name)
            .map(|(_, value)| value.into_owned())
    };
    if let Some(error) = query("error") {
        bail!("the authorization server refused: {error}");
    }
    Ok(Callback {
        code: query("code").context("the callback has no code")?,
        state: query("state").context("the callback has no state")?,
        iss: query("iss"),
    })
}
