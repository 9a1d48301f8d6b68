//! The one approval policy: whether a call of a tool runs at once, waits for a person, or is
//! refused, for every way a call can need one (a chat's model, the gateway's downstream
//! client). How a person is asked stays with each caller (a chat's question block and
//! `tool-confirm`, the gateway's elicitation); what is asked, and when, is decided here. The
//! decision, once made, is stored with the call and wakes the waiting run
//! ([`crate::decisions`]).

use switchboard_core::ServerSpec;

use crate::agent::ApprovalPolicy;

/// What a call needs before it runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Needed {
    /// Nothing: its owner approved the tool for good (`autoApprovedTools`).
    Nothing,
    /// Nothing: the policy approves every call.
    ApprovedByPolicy,
    /// A person's decision.
    Person,
    /// It is refused: nobody can be asked, and the policy refuses what is not approved.
    Refused,
}

impl Needed {
    /// The decision as a tool-call record keeps it: approved, rejected, or waiting (`None`).
    pub fn decision(self) -> Option<bool> {
        match self {
            Needed::Nothing | Needed::ApprovedByPolicy => Some(true),
            Needed::Refused => Some(false),
            Needed::Person => None,
        }
    }
}

/// What a call of `tool` on `spec` needs under `policy`.
pub fn needed(spec: &ServerSpec, tool: &str, policy: ApprovalPolicy) -> Needed {
    if spec.auto_approves(tool) {
        return Needed::Nothing;
    }
    match policy {
        ApprovalPolicy::Ask => Needed::Person,
        ApprovalPolicy::ApproveAll => Needed::ApprovedByPolicy,
        ApprovalPolicy::RejectUnapproved => Needed::Refused,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn auto_approved_tools_need_nothing_whatever_the_policy() {
        let mut spec = ServerSpec::stdio("s", "server", Vec::<String>::new());
        spec.auto_approved_tools.insert("read".into());
        for policy in [
            ApprovalPolicy::Ask,
            ApprovalPolicy::ApproveAll,
            ApprovalPolicy::RejectUnapproved,
        ] {
            assert_eq!(needed(&spec, "read", policy), Needed::Nothing);
        }
        assert_eq!(needed(&spec, "write", ApprovalPolicy::Ask), Needed::Person);
        assert_eq!(
            needed(&spec, "write", ApprovalPolicy::ApproveAll).decision(),
            Some(true)
        );
        assert_eq!(
            needed(&spec, "write", ApprovalPolicy::RejectUnapproved).decision(),
            Some(false)
        );
        assert_eq!(needed(&spec, "write", ApprovalPolicy::Ask).decision(), None);
    }
}
