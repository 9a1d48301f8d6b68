//! What every handler can reach: the application (built once, by whoever serves) and the few
//! things only HTTP needs, nothing mutable of its own.

use std::sync::Arc;

use switchboard_app::App;
use switchboard_core::OwnerId;

use crate::config::ServerConfig;
use crate::limits::Gate;
use crate::live::EventLog;

/// How callers are identified.
#[derive(Debug, Clone)]
pub enum AuthMode {
    /// Every request carries `Authorization: Bearer <token>` of a user.
    Tokens,
    /// No tokens: every request acts as this user (a person on their own machine).
    SingleUser(OwnerId),
}

/// What every handler can reach, behind one `Arc`: axum clones the state for each extractor
/// and middleware of each request, so a clone is one reference count. Fields read through
/// [`Deref`](std::ops::Deref), the application's services through [`Services`]' own.
#[derive(Clone)]
pub struct AppState(Arc<Services>);

impl std::ops::Deref for AppState {
    type Target = Services;

    fn deref(&self) -> &Services {
        &self.0
    }
}

/// The services of [`AppState`]: the application's, and the HTTP side's.
pub struct Services {
    pub app: Arc<App>,
    pub auth: AuthMode,
    pub config: Arc<ServerConfig>,
    /// The numbered live events (`GET /api/events`).
    pub events: Arc<EventLog>,
    /// Rate limits and open-stream slots ([`crate::limits`]).
    pub gate: Arc<Gate>,
    /// The locale files, for error answers and the web UI ([`crate::i18n`]).
    pub locales: Arc<crate::i18n::LocaleTexts>,
}

impl std::ops::Deref for Services {
    type Target = App;

    fn deref(&self) -> &App {
        &self.app
    }
}

impl AppState {
    /// The HTTP side of `app`, configured by `config`, callers identified by `auth`. Starts
    /// the event log's feed, so it must be called inside a Tokio runtime; the feed ends with
    /// the agent and the pool.
    pub fn new(app: Arc<App>, config: ServerConfig, auth: AuthMode) -> Self {
        let events = EventLog::start(app.agent.events(), app.pool.as_ref());
        // A front end that stays up follows the tasks kept in the store, its own and those
        // of a replica that went away.
        app.tasks.start();
        Self(Arc::new(Services {
            gate: Arc::new(Gate::new(&app.limits)),
            app,
            auth,
            config: Arc::new(config),
            events,
            locales: Arc::new(crate::i18n::LocaleTexts::embedded_or_empty()),
        }))
    }
}
