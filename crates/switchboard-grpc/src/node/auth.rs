//! The node token: every request carries `authorization: Bearer <token>`.
//!
//! The token is compared in constant time, as SHA-256 digests so that its length does not
//! leak either, and only its digest is kept. A refusal never echoes what was sent.

use sha2::{Digest, Sha256};
use subtle::ConstantTimeEq;
use tonic::service::Interceptor;
use tonic::{Request, Status};

/// Admits requests that carry the node's token.
#[derive(Clone)]
pub(crate) struct TokenCheck {
    digest: [u8; 32],
}

impl std::fmt::Debug for TokenCheck {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("TokenCheck(..)")
    }
}

impl TokenCheck {
    pub(crate) fn new(token: &str) -> Self {
        Self {
            digest: Sha256::digest(token.as_bytes()).into(),
        }
    }

    fn admits(&self, sent: &[u8]) -> bool {
        let digest: [u8; 32] = Sha256::digest(sent).into();
        digest.ct_eq(&self.digest).into()
    }
}

impl Interceptor for TokenCheck {
    fn call(&mut self, request: Request<()>) -> Result<Request<()>, Status> {
        let sent = request
            .metadata()
            .get("authorization")
            .map(|value| value.as_bytes())
            .and_then(|value| {
                value
                    .strip_prefix(b"Bearer ")
                    .or_else(|| value.strip_prefix(b"bearer "))
            });
        match sent {
            Some(token) if self.admits(token) => Ok(request),
            _ => Err(Status::unauthenticated(
                "the node token is missing or wrong",
            )),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn with(value: Option<&str>) -> Request<()> {
        let mut request = Request::new(());
        if let Some(value) = value {
            request
                .metadata_mut()
                .insert("authorization", value.parse().expect("ascii"));
        }
        request
    }

    #[test]
    fn only_the_token_is_admitted() {
        let mut check = TokenCheck::new("s3cret-token");
        assert!(check.call(with(Some("Bearer s3cret-token"))).is_ok());
        for refused in [
            None,
            Some("Bearer wrong"),
            Some("Bearer s3cret-token "),
            Some("s3cret-token"),
            Some("Basic s3cret-token"),
            Some("Bearer "),
        ] {
            let status = check.call(with(refused)).expect_err("refused");
            assert_eq!(status.code(), tonic::Code::Unauthenticated);
            assert_eq!(status.message(), "the node token is missing or wrong");
        }
        assert!(!format!("{check:?}").contains("s3cret"));
    }
}
