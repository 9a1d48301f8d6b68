//! Asking the downstream person, by elicitation, before a tool that is not auto-approved runs.
//!
//! A server's `autoApprovedTools` run at once. Any other tool is put to the person at the
//! client as a form elicitation naming the server and tool and showing the arguments (the
//! server's secrets masked), with one boolean, `approve`:
//! - over a session (2025-11-25 and older), the gateway sends `elicitation/create` and waits;
//! - in the stateless 2026-07-28 revision, where a server may not send requests, the call is
//!   answered with an `InputRequiredResult` holding the same elicitation and a `requestState`
//!   sealed with a key of this process (rmcp's HMAC codec) that binds the person, the view,
//!   the exported tool name and a digest of the arguments; the client's retry carries the
//!   answer, and only a state this process sealed for that very call lets it run.
//!
//! Accepting with `approve: true` runs the call; anything else (declining, cancelling,
//! `false`) answers with a tool error saying the user rejected it. A client that did not
//! declare elicitation cannot be asked: [`Unapproved`] chooses between a tool error saying
//! how to auto-approve the tool, and running it.
//!
//! In the stateless revision an upstream server may itself ask for input during an approved
//! call (`crate::relay`); its `requestState` is then wrapped in ours, marked approved, so the
//! rounds that follow keep the approval without asking again.

use std::time::{SystemTime, UNIX_EPOCH};

use aes_gcm::aead::OsRng;
use aes_gcm::aead::rand_core::RngCore;
use rmcp::model::{
    BooleanSchema, CallToolRequestParams, CallToolResponse, CallToolResult, ContentBlock,
    ElicitRequest, ElicitRequestParams, ElicitResult, ElicitationAction, ElicitationSchema,
    InputRequest, InputRequests, InputRequiredResult, JsonObject, RequestStateCodec,
};
use rmcp::service::RequestContext;
use rmcp::{ErrorData, RoleServer};
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};
use switchboard_agent::ApprovalPolicy;
use switchboard_agent::approval::{self, Needed};
use switchboard_core::ServerSpec;
use switchboard_core::upstream_text::short_text;

use crate::config::Unapproved;
use crate::handler::GatewayHandler;
use crate::session::Scope;

/// The key of the approval in `inputRequests` / `inputResponses`.
pub(crate) const INPUT_KEY: &str = "switchboard_approval";
/// How long a sealed approval state is accepted.
const STATE_TTL_SECS: u64 = 600;
/// JSON-RPC's "request cancelled" (MCP defines none; this is the code LSP and others use).
const REQUEST_CANCELLED: rmcp::model::ErrorCode = rmcp::model::ErrorCode(-32800);
/// The most characters of one argument's value shown in the question (the rest is cut, and
/// the question says how much).
const MAX_VALUE_SHOWN: usize = 300;
/// The most characters of the whole question. Every argument's name is always shown, so a
/// call whose arguments cannot be shown within this is refused rather than half shown.
const MAX_QUESTION: usize = 8000;
/// The most characters of an upstream tool's name quoted in the question.
const MAX_NAME_SHOWN: usize = 128;

/// The per-process key sealing approval state handed to stateless clients. A restart makes
/// pending states invalid, which only means the person is asked again.
pub(crate) struct Approvals {
    codec: RequestStateCodec,
}

impl std::fmt::Debug for Approvals {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Approvals").finish_non_exhaustive()
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
enum Phase {
    /// The person was asked; the retry carries the answer.
    Asked,
    /// The person approved; `inner` is the upstream's own state for its round.
    Approved,
}

/// What a sealed state says.
#[derive(Debug, Serialize, Deserialize)]
struct Sealed {
    phase: Phase,
    owner: String,
    view: Option<String>,
    /// The exported name the client called.
    tool: String,
    /// The server and upstream tool that name resolved to when approval was given: a retry
    /// that now resolves elsewhere (the view or names changed) is not approved.
    server: String,
    upstream: String,
    arguments: String,
    issued: u64,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    inner: Option<String>,
}

fn now_secs() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_secs())
}

/// A digest of the arguments the approval was given for; missing arguments are `{}`, as the
/// call runs with them.
fn digest(arguments: Option<&JsonObject>) -> String {
    let empty = JsonObject::new();
    let bytes = serde_json::to_vec(arguments.unwrap_or(&empty)).unwrap_or_default();
    Sha256::digest(&bytes)
        .iter()
        .take(16)
        .map(|b| format!("{b:02x}"))
        .collect()
}

impl Approvals {
    pub(crate) fn new() -> Self {
        let mut key = [0u8; 32];
        OsRng.fill_bytes(&mut key);
        Self {
            // 32 random bytes: the codec's minimum length, checked here by construction.
            codec: RequestStateCodec::new_unchecked(key.to_vec()),
        }
    }

    fn seal(
        &self,
        phase: Phase,
        scope: &Scope,
        target: Target<'_>,
        params: &CallToolRequestParams,
        inner: Option<String>,
    ) -> Result<String, ErrorData> {
        let sealed = Sealed {
            phase,
            owner: scope.user.id.0.clone(),
            view: scope.view.clone(),
            tool: params.name.to_string(),
            server: target.server.to_owned(),
            upstream: target.tool.to_owned(),
            arguments: digest(params.arguments.as_ref()),
            issued: now_secs(),
            inner,
        };
        self.codec.seal_json(&sealed).map_err(|e| {
            ErrorData::internal_error(format!("cannot seal approval state: {e}"), None)
        })
    }

    /// The state if this process sealed it for this very call and it has not expired.
    fn open(
        &self,
        state: &str,
        scope: &Scope,
        target: Target<'_>,
        params: &CallToolRequestParams,
    ) -> Option<Sealed> {
        let sealed: Sealed = self.codec.open_json(state).ok()?;
        let fits = sealed.owner == scope.user.id.0
            && sealed.view == scope.view
            && sealed.tool == params.name
            && sealed.server == target.server
            && sealed.upstream == target.tool
            && sealed.arguments == digest(params.arguments.as_ref())
            && now_secs().saturating_sub(sealed.issued) <= STATE_TTL_SECS;
        fits.then_some(sealed)
    }

    /// An upstream's input-required result during an approved stateless call, its state
    /// wrapped so the approval holds for the next round.
    pub(crate) fn carry(
        &self,
        scope: &Scope,
        target: Target<'_>,
        params: &CallToolRequestParams,
        mut result: InputRequiredResult,
    ) -> Result<InputRequiredResult, ErrorData> {
        let inner = result.request_state.take();
        result.request_state = Some(self.seal(Phase::Approved, scope, target, params, inner)?);
        Ok(result)
    }
}

/// The server id and upstream tool name an exported name resolved to.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Target<'a> {
    pub server: &'a str,
    pub tool: &'a str,
}

/// What to do with a call.
#[derive(Debug)]
pub(crate) enum Verdict {
    /// Run it. `sealed`: approval came through input-required rounds, so an upstream's own
    /// input-required result must be [`Approvals::carry`]-ed.
    Run { sealed: bool },
    /// Answer this and do not run.
    Answer(CallToolResponse),
}

/// Decides whether the call of `tool` on `spec` may run, asking the person when needed.
/// `params` loses what belongs to the approval (its state and input response), and gets the
/// upstream's own state back in later rounds.
pub(crate) async fn decide(
    handler: &GatewayHandler,
    context: &RequestContext<RoleServer>,
    scope: &Scope,
    params: &mut CallToolRequestParams,
    spec: &ServerSpec,
    tool: &str,
) -> Result<Verdict, ErrorData> {
    if approval::needed(spec, tool, ApprovalPolicy::Ask) == Needed::Nothing {
        return Ok(Verdict::Run { sealed: false });
    }
    let approvals = &handler.gateway.approvals;
    let target = Target {
        server: &spec.id.0,
        tool,
    };
    if let Some(state) = params.request_state.take() {
        let Some(sealed) = approvals.open(&state, scope, target, params) else {
            return Err(ErrorData::invalid_params(
                "requestState was not issued by this gateway for this call, or has expired; \
                 call the tool again without it",
                None,
            ));
        };
        return Ok(match sealed.phase {
            Phase::Asked => {
                let answer = take_answer(params);
                if answer.as_ref().is_some_and(approves) {
                    Verdict::Run { sealed: true }
                } else {
                    Verdict::Answer(rejected(spec, tool))
                }
            }
            Phase::Approved => {
                params.request_state = sealed.inner;
                Verdict::Run { sealed: true }
            }
        });
    }
    if !can_elicit(context) {
        return Ok(unasked(
            handler.gateway.config.unapproved,
            stateless(context),
            spec,
            tool,
        ));
    }
    let Some(question) = question(spec, tool, params.arguments.as_ref()) else {
        return Ok(Verdict::Answer(too_large(spec, tool)));
    };
    if stateless(context) {
        let state = approvals.seal(Phase::Asked, scope, target, params, None)?;
        let mut requests = InputRequests::new();
        requests.insert(
            INPUT_KEY.to_owned(),
            InputRequest::Elicitation(ElicitRequest::new(question)),
        );
        let result = InputRequiredResult::new(Some(requests), Some(state));
        return Ok(Verdict::Answer(CallToolResponse::InputRequired(result)));
    }
    let answer = tokio::select! {
        answer = context.peer.create_elicitation(question) => answer,
        () = context.ct.cancelled() => {
            return Err(ErrorData::new(REQUEST_CANCELLED, "the call was cancelled", None));
        }
    };
    Ok(match answer {
        Ok(answer) if approves_result(&answer) => Verdict::Run { sealed: false },
        Ok(_) => Verdict::Answer(rejected(spec, tool)),
        Err(error) => {
            tracing::warn!(%error, "gateway: asking the client for approval failed");
            Verdict::Answer(tool_error(format!(
                "The tool {} of the server {} needs approval, and the client could not be asked.",
                quoted(tool),
                quoted(&spec.name)
            )))
        }
    })
}

/// What a client that cannot be asked gets: the approval policy's answer under the
/// configured [`Unapproved`].
fn unasked(unapproved: Unapproved, stateless: bool, spec: &ServerSpec, tool: &str) -> Verdict {
    let policy = match unapproved {
        Unapproved::Refuse => ApprovalPolicy::RejectUnapproved,
        Unapproved::Run => ApprovalPolicy::ApproveAll,
    };
    match approval::needed(spec, tool, policy) {
        Needed::Nothing => Verdict::Run { sealed: false },
        // Stateless: an upstream's input-required rounds come back through us, and the retry
        // only gets back to the upstream when its state is wrapped in ours.
        Needed::ApprovedByPolicy => Verdict::Run { sealed: stateless },
        Needed::Refused | Needed::Person => Verdict::Answer(needs_approval(spec, tool)),
    }
}

/// The client's answer to our question, taken out of the responses the upstream will see.
fn take_answer(params: &mut CallToolRequestParams) -> Option<serde_json::Value> {
    let responses = params.input_responses.as_mut()?;
    let answer = responses.remove(INPUT_KEY);
    if responses.is_empty() {
        params.input_responses = None;
    }
    answer
}

fn approves(answer: &serde_json::Value) -> bool {
    serde_json::from_value::<ElicitResult>(answer.clone()).is_ok_and(|r| approves_result(&r))
}

fn approves_result(answer: &ElicitResult) -> bool {
    answer.action == ElicitationAction::Accept
        && answer
            .content
            .as_ref()
            .and_then(|c| c.get("approve"))
            .and_then(serde_json::Value::as_bool)
            == Some(true)
}

/// Whether the client declared form elicitation (an empty `elicitation: {}` means form).
fn can_elicit(context: &RequestContext<RoleServer>) -> bool {
    context
        .client_capabilities()
        .and_then(|c| c.elicitation)
        .is_some_and(|e| e.form.is_some() || e.url.is_none())
}

/// The stateless revision: the server cannot send requests, only input-required results.
fn stateless(context: &RequestContext<RoleServer>) -> bool {
    context
        .protocol_version()
        .is_some_and(|version| !version.has_initialize())
}

/// `name` (an upstream's words) on one line, cut short, in backticks it cannot close.
fn quoted(name: &str) -> String {
    format!("`{}`", short_text(name, MAX_NAME_SHOWN).replace('`', "'"))
}

/// The arguments as the person sees them: every name, each value (secrets masked) cut on its
/// own with a note of what was cut. `None` when even so they exceed [`MAX_QUESTION`]: the
/// person is then not asked, since approving a partial picture would approve the unseen rest.
fn shown_arguments(spec: &ServerSpec, arguments: Option<&JsonObject>) -> Option<String> {
    let Some(arguments) = arguments.filter(|a| !a.is_empty()) else {
        return Some("(no arguments)".to_owned());
    };
    let redactor = spec.redactor();
    let mut shown = String::new();
    for (key, value) in arguments {
        let key = redactor.redact(&serde_json::to_string(key).unwrap_or_default());
        let value = redactor.redact(&serde_json::to_string(value).unwrap_or_default());
        let length = value.chars().count();
        shown.push_str(&key);
        shown.push_str(": ");
        if length > MAX_VALUE_SHOWN {
            shown.extend(value.chars().take(MAX_VALUE_SHOWN));
            shown.push_str(&format!(
                "... ({} more characters not shown)",
                length - MAX_VALUE_SHOWN
            ));
        } else {
            shown.push_str(&value);
        }
        shown.push('\n');
        if shown.chars().count() > MAX_QUESTION {
            return None;
        }
    }
    Some(shown)
}

fn question(
    spec: &ServerSpec,
    tool: &str,
    arguments: Option<&JsonObject>,
) -> Option<ElicitRequestParams> {
    let shown = shown_arguments(spec, arguments)?;
    let message = format!(
        "Allow the tool {} of the server {} to run with these arguments?\n{shown}",
        quoted(tool),
        quoted(&spec.name)
    );
    let mut properties = std::collections::BTreeMap::new();
    properties.insert(
        "approve".to_owned(),
        rmcp::model::PrimitiveSchemaDefinition::Boolean(
            BooleanSchema::new()
                .title("Approve")
                .description("Run the tool with these arguments"),
        ),
    );
    let mut requested_schema = ElicitationSchema::new(properties);
    requested_schema.required = Some(vec!["approve".to_owned()]);
    Some(ElicitRequestParams::FormElicitationParams {
        meta: None,
        message,
        requested_schema,
    })
}

fn tool_error(text: String) -> CallToolResponse {
    CallToolResponse::Complete(CallToolResult::error(vec![ContentBlock::text(text)]))
}

fn rejected(spec: &ServerSpec, tool: &str) -> CallToolResponse {
    tool_error(format!(
        "The call of the tool {} of the server {} was rejected by the user.",
        quoted(tool),
        quoted(&spec.name)
    ))
}

fn too_large(spec: &ServerSpec, tool: &str) -> CallToolResponse {
    tool_error(format!(
        "The tool {} of the server {} needs approval, and its arguments are too large to be \
         shown to the user in full, so approval was not asked. Call it with smaller arguments, \
         or auto-approve the tool in the server's settings (autoApprovedTools).",
        quoted(tool),
        quoted(&spec.name)
    ))
}

fn needs_approval(spec: &ServerSpec, tool: &str) -> CallToolResponse {
    tool_error(format!(
        "The tool {} of the server {} needs approval, and this client cannot be asked \
         (it did not declare elicitation). Auto-approve the tool in the server's settings \
         (autoApprovedTools), or use a client that supports elicitation.",
        quoted(tool),
        quoted(&spec.name)
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_accept_with_approve_true_approves() {
        let accept = |content| serde_json::json!({"action": "accept", "content": content});
        assert!(approves(&accept(serde_json::json!({"approve": true}))));
        assert!(!approves(&accept(serde_json::json!({"approve": false}))));
        assert!(!approves(&accept(serde_json::json!({}))));
        assert!(!approves(&serde_json::json!({"action": "decline"})));
        assert!(!approves(&serde_json::json!({"action": "cancel"})));
        assert!(!approves(&serde_json::json!("yes")));
    }

    fn scope(owner: &str, view: Option<&str>) -> Scope {
        Scope {
            user: switchboard_store::User {
                id: switchboard_core::OwnerId(owner.into()),
                name: owner.into(),
                role: switchboard_store::Role::Member,
                created_at: switchboard_store::Timestamp(0),
                locale: None,
            },
            view: view.map(str::to_owned),
        }
    }

    fn params(name: &str, arguments: serde_json::Value) -> CallToolRequestParams {
        let mut params = CallToolRequestParams::new(name.to_owned());
        params.arguments = arguments.as_object().cloned();
        params
    }

    #[test]
    fn a_sealed_state_opens_only_for_the_same_person_view_tool_and_arguments() {
        let approvals = Approvals::new();
        let alice = scope("alice", None);
        let call = params("mcp__a__x", serde_json::json!({"n": 1}));
        let state = approvals
            .seal(Phase::Asked, &alice, TARGET, &call, None)
            .unwrap_or_default();
        assert!(approvals.open(&state, &alice, TARGET, &call).is_some());
        assert!(
            approvals
                .open(&state, &scope("bob", None), TARGET, &call)
                .is_none()
        );
        assert!(
            approvals
                .open(&state, &scope("alice", Some("v")), TARGET, &call)
                .is_none()
        );
        let other_tool = params("mcp__a__y", serde_json::json!({"n": 1}));
        assert!(
            approvals
                .open(&state, &alice, TARGET, &other_tool)
                .is_none()
        );
        let other_arguments = params("mcp__a__x", serde_json::json!({"n": 2}));
        assert!(
            approvals
                .open(&state, &alice, TARGET, &other_arguments)
                .is_none()
        );
        // Another process's key (a restart) or a forged value does not open.
        assert!(
            Approvals::new()
                .open(&state, &alice, TARGET, &call)
                .is_none()
        );
        assert!(approvals.open("forged", &alice, TARGET, &call).is_none());
    }

    #[test]
    fn a_carried_state_keeps_the_upstreams_inside_an_approved_one() {
        let approvals = Approvals::new();
        let alice = scope("alice", None);
        let call = params("mcp__a__x", serde_json::json!({}));
        let upstream = InputRequiredResult::new(None, Some("upstream-state".into()));
        let carried = approvals.carry(&alice, TARGET, &call, upstream);
        let Some(state) = carried.ok().and_then(|r| r.request_state) else {
            panic!("a state")
        };
        let opened = approvals.open(&state, &alice, TARGET, &call);
        assert!(opened.as_ref().is_some_and(|s| s.phase == Phase::Approved));
        assert_eq!(
            opened.and_then(|s| s.inner).as_deref(),
            Some("upstream-state")
        );
    }

    const TARGET: Target<'static> = Target {
        server: "a",
        tool: "x",
    };

    #[test]
    fn a_sealed_state_does_not_open_once_the_name_leads_elsewhere() {
        let approvals = Approvals::new();
        let alice = scope("alice", None);
        let call = params("x", serde_json::json!({"n": 1}));
        let state = approvals
            .seal(Phase::Asked, &alice, TARGET, &call, None)
            .unwrap_or_default();
        assert!(approvals.open(&state, &alice, TARGET, &call).is_some());
        let other_server = Target {
            server: "b",
            tool: "x",
        };
        assert!(
            approvals
                .open(&state, &alice, other_server, &call)
                .is_none()
        );
        let other_tool = Target {
            server: "a",
            tool: "delete",
        };
        assert!(approvals.open(&state, &alice, other_tool, &call).is_none());
    }

    #[test]
    fn running_unasked_wraps_upstream_state_for_stateless_clients() {
        let spec = ServerSpec::stdio("files", "cmd", Vec::<String>::new());
        assert!(matches!(
            unasked(Unapproved::Run, true, &spec, "x"),
            Verdict::Run { sealed: true }
        ));
        assert!(matches!(
            unasked(Unapproved::Run, false, &spec, "x"),
            Verdict::Run { sealed: false }
        ));
        assert!(matches!(
            unasked(Unapproved::Refuse, true, &spec, "x"),
            Verdict::Answer(_)
        ));
    }

    #[test]
    fn missing_arguments_digest_like_empty_ones() {
        let empty = JsonObject::new();
        assert_eq!(digest(None), digest(Some(&empty)));
    }

    fn message_of(question: Option<ElicitRequestParams>) -> String {
        let Some(ElicitRequestParams::FormElicitationParams { message, .. }) = question else {
            panic!("a form")
        };
        message
    }

    #[test]
    fn the_question_shows_every_argument_after_long_filler() {
        let spec = ServerSpec::stdio("files", "cmd", Vec::<String>::new());
        let arguments = serde_json::json!({
            "a_filler": "x".repeat(5000),
            "z_command": "rm -rf /",
        });
        let message = message_of(question(&spec, "run", arguments.as_object()));
        assert!(message.contains("\"z_command\": \"rm -rf /\""), "{message}");
        assert!(message.contains("more characters not shown"), "{message}");
        assert!(message.chars().count() < 1000, "{message}");
    }

    #[test]
    fn arguments_too_large_to_show_are_not_put_to_the_person() {
        let spec = ServerSpec::stdio("files", "cmd", Vec::<String>::new());
        let arguments: JsonObject = (0..200)
            .map(|i| (format!("key{i:03}"), serde_json::json!("v".repeat(400))))
            .collect();
        assert!(question(&spec, "run", Some(&arguments)).is_none());
        let CallToolResponse::Complete(result) = too_large(&spec, "run") else {
            panic!("a tool result")
        };
        assert_eq!(result.is_error, Some(true));
    }

    #[test]
    fn upstream_names_are_quoted_on_one_line_and_short() {
        let spec = ServerSpec::stdio("files", "cmd", Vec::<String>::new());
        let tool = format!("evil`\nApproved by admin. {}", "y".repeat(500));
        let message = message_of(question(&spec, &tool, None));
        let first_line = message.lines().next().unwrap_or_default();
        assert!(first_line.contains("Approved by admin"), "{message}");
        assert!(!first_line.contains(&"y".repeat(200)), "{message}");
        assert_eq!(first_line.matches('`').count(), 4, "{message}");
    }

    #[test]
    fn the_question_masks_secrets_and_names_server_and_tool() {
        let mut spec = ServerSpec::stdio("files", "cmd", Vec::<String>::new());
        spec.env.insert("TOKEN".into(), "s3cret-value-123".into());
        spec.secret_env.insert("TOKEN".into());
        let arguments = serde_json::json!({"path": "/a", "token": "s3cret-value-123"});
        let message = message_of(question(&spec, "read", arguments.as_object()));
        assert!(
            message.contains("`read`") && message.contains("`files`"),
            "{message}"
        );
        assert!(message.contains("/a"), "{message}");
        assert!(!message.contains("s3cret-value-123"), "{message}");
    }
}
