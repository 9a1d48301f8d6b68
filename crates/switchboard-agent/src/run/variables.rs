//! The variables a tool node's mappings read during a chat run, from highest to
//! lowest: the built-ins (`user.id`, `user.name`, `conversation.id`, `now`), the
//! conversation's variables (seed 000's `ChatRequest.context` is merged into them by the
//! server, and `PUT /api/conversations/{id}/variables` sets them), then the declared defaults
//! of the node and of the assistant.
//!
//! They are read again for every call rather than once per run: a person who sets a
//! conversation variable while a call waits for approval expects the call to use it.

use switchboard_core::Variables;
use switchboard_store::StoredToolNode;

use super::Run;
use crate::error::AgentError;

impl Run<'_> {
    /// What a call through `node` may read.
    pub(super) async fn variables(&self, node: &StoredToolNode) -> Result<Variables, AgentError> {
        let user = self.agent.store.user(self.owner).await?;
        let conversation = self
            .agent
            .store
            .conversation(self.owner, self.conversation_id)
            .await?;
        let builtins =
            crate::tool_call::builtins_now(&self.owner.0, &user.name, Some(self.conversation_id));
        Ok(Variables::new(builtins)
            .with_layer(conversation.variables)
            .with_declared(&node.node.variables)
            .with_declared(&self.spec.variables))
    }
}
