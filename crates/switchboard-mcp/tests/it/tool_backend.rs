//! The `ToolBackend` view of the manager: the enabled tools of the enabled servers, one
//! server's failure reported beside the others' tools.

use crate::common;

use common::{manager, owner, stdio_spec};
use switchboard_core::ServerSpec;
use switchboard_mcp::{McpError, ToolBackend};
use switchboard_testkit::{Peers, PyGen};

#[tokio::test]
async fn tools_of_a_set_of_servers() {
    let mut good = stdio_spec("py1", &Peers::locate().python_stdio(PyGen::V1));
    good.disabled_tools.insert("counter".into());
    let broken = ServerSpec::stdio("broken", "/nonexistent/server", Vec::<String>::new());
    let mut off = stdio_spec("off", &Peers::locate().python_stdio(PyGen::V2));
    off.enabled = false;

    let m = manager();
    let backend: &dyn ToolBackend = &m;
    let servers = [good.clone(), broken, off];
    let listed = backend.tools(&owner(), &servers).await;
    assert_eq!(listed.len(), 2, "the disabled server is not asked");
    let (_, tools) = listed.iter().find(|(s, _)| s.name == "py1").expect("py1");
    let tools = tools.as_ref().expect("py1 tools");
    assert!(tools.iter().any(|t| t.name == "echo"));
    assert!(
        !tools.iter().any(|t| t.name == "counter"),
        "disabled tool left out"
    );
    let (_, failed) = listed
        .iter()
        .find(|(s, _)| s.name == "broken")
        .expect("broken");
    let failed = failed.as_ref().expect_err("broken fails");
    assert!(
        matches!(failed.underlying(), McpError::Spawn { .. }),
        "{failed:?}"
    );

    let error = backend
        .call(&owner(), &good, "counter", None, Default::default())
        .await
        .expect_err("a disabled tool cannot be called");
    assert_eq!(error.code(), switchboard_core::ErrorCode::McpToolNotFound);
    m.shutdown().await;
}
