//! The specs hosts send with every request, parsed once per version.
//!
//! A request names its server by owner, spec JSON and spec version (a digest of the JSON). The
//! node keeps the parsed spec of the latest version of each (owner, server), so a call whose
//! spec did not change costs a map lookup, not a JSON parse. Which process runs it is the
//! manager's business: its pool is keyed by (owner, server) and restarts a server whose way
//! of connecting changed, so hosts sending the same spec share one process.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, PoisonError};

use switchboard_core::{OwnerId, ServerId, ServerSpec};
use switchboard_mcp::Admission;
use tonic::Status;

use super::policy::NodePolicy;
use crate::{pb, wire};

/// A request's server: whose, and which spec.
pub(crate) struct Resolved {
    pub(crate) owner: OwnerId,
    pub(crate) spec: Arc<ServerSpec>,
}

pub(crate) struct SpecCache {
    inner: Mutex<Specs>,
}

#[derive(Default)]
struct Specs {
    /// (owner, spec version) -> the parsed spec and the admission last sent with it.
    by_version: HashMap<(OwnerId, String), Cached>,
    /// (owner, server) -> its latest version; an older one is forgotten, so the cache holds
    /// one spec per server.
    latest: HashMap<(OwnerId, ServerId), String>,
}

struct Cached {
    spec: Arc<ServerSpec>,
    admission: Admission,
}

impl SpecCache {
    pub(crate) fn new() -> Self {
        Self {
            inner: Mutex::new(Specs::default()),
        }
    }

    /// The owner and spec `server` names, its admission remembered by `policy` before the
    /// manager can ask. A missing server or a spec that cannot be read is the host's mistake:
    /// `invalid_argument`, without echoing the spec (it holds secrets).
    pub(crate) fn resolve(
        &self,
        server: Option<pb::ServerRef>,
        policy: &NodePolicy,
    ) -> Result<Resolved, Status> {
        let server =
            server.ok_or_else(|| Status::invalid_argument("the request names no server"))?;
        if server.owner.is_empty() {
            return Err(Status::invalid_argument("the server's owner is empty"));
        }
        let admission = wire::admission_from_pb(server.admission.as_ref());
        let version = if server.spec_version.is_empty() {
            wire::spec_version(&server.spec_json)
        } else {
            server.spec_version
        };
        let key = (OwnerId(server.owner), version);
        if let Some(spec) = self.cached(&key, admission, policy) {
            return Ok(Resolved { owner: key.0, spec });
        }
        let spec: ServerSpec = serde_json::from_slice(&server.spec_json).map_err(|error| {
            // The position only: serde's message may quote a value of the spec.
            Status::invalid_argument(format!(
                "the server spec is not a Switchboard server spec as JSON (line {}, column {})",
                error.line(),
                error.column()
            ))
        })?;
        let spec = Arc::new(spec);
        policy.remember(&key.0, &spec.id, admission);
        let mut specs = self.inner.lock().unwrap_or_else(PoisonError::into_inner);
        let replaced = specs
            .latest
            .insert((key.0.clone(), spec.id.clone()), key.1.clone());
        if let Some(old) = replaced.filter(|old| *old != key.1) {
            specs.by_version.remove(&(key.0.clone(), old));
        }
        specs.by_version.insert(
            key.clone(),
            Cached {
                spec: Arc::clone(&spec),
                admission,
            },
        );
        drop(specs);
        Ok(Resolved { owner: key.0, spec })
    }

    /// The spec of this version if it was parsed before; a changed admission is remembered.
    fn cached(
        &self,
        key: &(OwnerId, String),
        admission: Admission,
        policy: &NodePolicy,
    ) -> Option<Arc<ServerSpec>> {
        let mut specs = self.inner.lock().unwrap_or_else(PoisonError::into_inner);
        let cached = specs.by_version.get_mut(key)?;
        let spec = Arc::clone(&cached.spec);
        let changed = cached.admission != admission;
        cached.admission = admission;
        drop(specs);
        if changed {
            policy.remember(&key.0, &spec.id, admission);
        }
        Some(spec)
    }
}

#[cfg(test)]
mod tests {
    use switchboard_core::{DestinationRules, LaunchRules};

    use super::*;

    fn server(spec: &ServerSpec) -> pb::ServerRef {
        let admission = Admission {
            any_command: true,
            guard_destinations: false,
        };
        wire::server_ref(&OwnerId("alice".into()), spec, admission).expect("server ref")
    }

    fn policy() -> NodePolicy {
        NodePolicy::new(LaunchRules::default(), DestinationRules::default())
    }

    #[test]
    fn a_spec_is_parsed_once_per_version() {
        let cache = SpecCache::new();
        let policy = policy();
        let spec = ServerSpec::stdio("one", "echo", ["a"]);
        let first = cache.resolve(Some(server(&spec)), &policy).expect("first");
        let again = cache.resolve(Some(server(&spec)), &policy).expect("again");
        assert!(Arc::ptr_eq(&first.spec, &again.spec));
        let mut changed = spec.clone();
        changed.args = vec!["b".into()];
        let third = cache
            .resolve(Some(server(&changed)), &policy)
            .expect("changed");
        assert_eq!(third.spec.args, vec!["b".to_owned()]);
        let specs = cache.inner.lock().expect("lock");
        assert_eq!(specs.by_version.len(), 1, "the old version is forgotten");
    }

    #[test]
    fn a_bad_spec_is_refused_without_echoing_it() {
        let cache = SpecCache::new();
        let mut bad = server(&ServerSpec::stdio("one", "echo", ["a"]));
        bad.spec_json = br#"{"name": "sk-secret-value", "transport": 5}"#.to_vec();
        bad.spec_version = String::new();
        let status = cache.resolve(Some(bad), &policy()).err().expect("refused");
        assert_eq!(status.code(), tonic::Code::InvalidArgument);
        assert!(
            !status.message().contains("sk-secret"),
            "{}",
            status.message()
        );
        let none = cache.resolve(None, &policy()).err().expect("refused");
        assert_eq!(none.code(), tonic::Code::InvalidArgument);
    }
}
