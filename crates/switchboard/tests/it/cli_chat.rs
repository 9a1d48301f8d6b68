//! `switchboard chat`, run as the real binary: the scripted model as the provider, the built-in
//! demo server for tools, messages and approval answers on standard input (and once through a
//! pseudo-terminal).

use crate::common;

use std::process::Stdio;

use common::{BIN, PROVIDER_VARS, Run, Switchboard};
use serde_json::{Value, json};
use switchboard_core::OwnerId;
use switchboard_store::{AssistantConfig, ProviderConfig, ProviderKind, Role, StoreConfig};
use switchboard_testkit::{ScriptedLlm, Turn};
use tokio::io::AsyncWriteExt;

/// A data directory with the demo server (this very binary) registered as `demo`.
fn with_demo() -> Switchboard {
    let sb = Switchboard::new();
    sb.run(&[
        "servers",
        "add",
        "demo",
        "--command",
        BIN,
        "--arg",
        "demo-server",
    ])
    .ok();
    sb
}

/// The environment that makes `llm` the provider.
fn scripted_env(llm: &ScriptedLlm) -> Vec<(&'static str, String)> {
    vec![
        ("OPENAI_BASE_URL", llm.openai_base_url()),
        ("OPENAI_API_KEY", "sk-test".to_owned()),
        ("OPENAI_MODEL", "scripted".to_owned()),
    ]
}

/// `switchboard --data-dir .. chat ARGS` as a child process, with a clean environment.
fn chat_command(
    sb: &Switchboard,
    args: &[&str],
    env: &[(&str, String)],
) -> tokio::process::Command {
    let mut command = tokio::process::Command::new(BIN);
    command
        .arg("--data-dir")
        .arg(sb.data_dir())
        .arg("chat")
        .args(args)
        .env_remove("SWITCHBOARD_DATA_DIR")
        .env_remove("DATABASE_URL")
        .env_remove("SWITCHBOARD_SECRET_KEY")
        .env_remove("RUST_LOG")
        .kill_on_drop(true);
    for var in PROVIDER_VARS {
        command.env_remove(var);
    }
    for (key, value) in env {
        command.env(key, value);
    }
    command
}

/// Runs `chat ARGS` with `stdin` as its whole standard input.
async fn chat(sb: &Switchboard, args: &[&str], env: &[(&str, String)], stdin: &str) -> Run {
    let mut child = chat_command(sb, args, env)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn switchboard chat");
    let mut input = child.stdin.take().expect("stdin");
    input
        .write_all(stdin.as_bytes())
        .await
        .expect("write stdin");
    drop(input);
    let output = child.wait_with_output().await.expect("wait for chat");
    Run {
        success: output.status.success(),
        stdout: String::from_utf8_lossy(&output.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&output.stderr).into_owned(),
    }
}

/// The messages of the `index`th request the model got.
fn messages(llm: &ScriptedLlm, index: usize) -> Vec<Value> {
    let requests = llm.requests();
    let request = requests
        .get(index)
        .unwrap_or_else(|| panic!("no request #{index}: {requests:#?}"));
    request.body["messages"]
        .as_array()
        .cloned()
        .expect("messages")
}

/// The content of the tool results in the `index`th request.
fn tool_results(llm: &ScriptedLlm, index: usize) -> Vec<String> {
    messages(llm, index)
        .iter()
        .filter(|m| m["role"] == "tool")
        .map(|m| m["content"].to_string())
        .collect()
}

fn calculate(expression: &str) -> Turn {
    Turn::tool_call("mcp__demo__calculate", json!({"expression": expression}))
}

/// What a terminal (or a stream) showed, read as far as needed.
struct Screen<R> {
    reader: R,
    text: String,
    /// Where the next [`Screen::wait_for`] starts looking.
    at: usize,
}

impl<R: tokio::io::AsyncRead + Unpin> Screen<R> {
    fn new(reader: R) -> Self {
        Self {
            reader,
            text: String::new(),
            at: 0,
        }
    }

    /// Reads until `marker` shows after what earlier waits found.
    async fn wait_for(&mut self, marker: &str) {
        let mut buffer = [0u8; 1024];
        loop {
            if let Some(found) = self.text[self.at..].find(marker) {
                self.at += found + marker.len();
                return;
            }
            let read = tokio::io::AsyncReadExt::read(&mut self.reader, &mut buffer)
                .await
                .expect("read the terminal");
            assert!(read > 0, "no {marker:?} on the screen: {}", self.text);
            self.text
                .push_str(&String::from_utf8_lossy(&buffer[..read]));
        }
    }
}

#[tokio::test]
async fn a_scripted_message_with_an_approved_tool_call() {
    let sb = with_demo();
    let llm = ScriptedLlm::start(vec![calculate("6*7"), Turn::text("6 times 7 is 42.")]).await;
    let run = chat(
        &sb,
        &["--approve", "ask"],
        &scripted_env(&llm),
        "What is 6*7?\ny\n",
    )
    .await
    .ok();
    assert!(
        run.stdout
            .contains("[tool] demo/calculate {\"expression\":\"6*7\"}\n"),
        "{run:#?}"
    );
    assert!(
        run.stdout.contains("[tool done] demo/calculate: 42\n"),
        "{run:#?}"
    );
    assert!(run.stdout.ends_with("6 times 7 is 42.\n"), "{run:#?}");
    assert!(
        run.stderr.contains(
            "Approve demo/calculate {\"expression\":\"6*7\"}? [y]es / [n]o / [a]lways: y"
        ),
        "{run:#?}"
    );

    let requests = llm.requests();
    assert_eq!(requests.len(), 2, "{requests:#?}");
    let tools = requests[0].body["tools"].to_string();
    assert!(tools.contains("mcp__demo__calculate"), "{tools}");
    let results = tool_results(&llm, 1);
    assert_eq!(results.len(), 1, "{results:?}");
    assert!(results[0].contains("42"), "{results:?}");
}

/// A chat whose servers include one that cannot be reached (a Streamable HTTP URL on a closed
/// loopback port): each turn names it on stderr as it starts, in the terminal's language, and
/// is answered with the other server's tools all the same.
#[tokio::test]
async fn a_server_that_cannot_be_reached_is_named_as_each_turn_starts() {
    let sb = with_demo();
    let closed = std::net::TcpListener::bind("127.0.0.1:0").expect("a port");
    let url = format!("http://{}/mcp", closed.local_addr().expect("its address"));
    drop(closed);
    sb.run(&["servers", "add", "GitHub", "--url", &url]).ok();

    let llm = ScriptedLlm::start(vec![Turn::text("First."), Turn::text("Second.")]).await;
    let mut env = scripted_env(&llm);
    env.push(("LC_ALL", "C.UTF-8".to_owned()));
    let run = chat(&sb, &[], &env, "Hello\nAgain\n").await.ok();
    let notice = "GitHub is unreachable: its tools are left out\n";
    assert_eq!(run.stderr.matches(notice).count(), 2, "{run:#?}");
    assert!(run.stdout.contains("First.\nSecond.\n"), "{run:#?}");
    for request in llm.requests() {
        let tools = request.body["tools"].to_string();
        assert!(tools.contains("mcp__demo__calculate"), "{tools}");
        assert!(!tools.contains("mcp__github__"), "{tools}");
    }

    let llm = ScriptedLlm::start(vec![Turn::text("你好。")]).await;
    let mut env = scripted_env(&llm);
    env.push(("LC_ALL", "zh_CN.UTF-8".to_owned()));
    let run = chat(&sb, &[], &env, "你好\n").await.ok();
    assert!(
        run.stderr.contains("无法连接 GitHub：已略过它的工具\n"),
        "{run:#?}"
    );
}

#[tokio::test]
async fn approve_never_rejects_and_the_model_hears_it() {
    let sb = with_demo();
    let llm = ScriptedLlm::start(vec![calculate("1+1"), Turn::text("I may not calculate.")]).await;
    let run = chat(
        &sb,
        &["--approve", "never"],
        &scripted_env(&llm),
        "What is 1+1?\n",
    )
    .await
    .ok();
    assert!(
        run.stdout.contains("[tool rejected] demo/calculate\n"),
        "{run:#?}"
    );
    assert!(run.stdout.contains("I may not calculate."), "{run:#?}");
    assert!(!run.stderr.contains("Approve"), "{run:#?}");
    let results = tool_results(&llm, 1);
    assert!(
        results.len() == 1 && results[0].contains("rejected"),
        "{results:?}"
    );
}

#[tokio::test]
async fn without_a_terminal_calls_are_rejected_unless_approve_says_otherwise() {
    let sb = with_demo();
    let llm = ScriptedLlm::start(vec![calculate("2+2"), Turn::text("Rejected.")]).await;
    let run = chat(&sb, &[], &scripted_env(&llm), "What is 2+2?\n")
        .await
        .ok();
    assert!(run.stdout.contains("[tool rejected]"), "{run:#?}");

    let llm = ScriptedLlm::start(vec![calculate("2+2"), Turn::text("Four.")]).await;
    let run = chat(
        &sb,
        &["--approve", "auto"],
        &scripted_env(&llm),
        "What is 2+2?\n",
    )
    .await
    .ok();
    assert!(
        run.stdout.contains("[tool done] demo/calculate: 4\n"),
        "{run:#?}"
    );
}

#[tokio::test]
async fn each_line_is_a_message_answered_in_turn_in_one_conversation() {
    let sb = with_demo();
    let llm = ScriptedLlm::start(vec![
        Turn::text("First answer."),
        Turn::text("Second answer."),
    ])
    .await;
    let run = chat(&sb, &[], &scripted_env(&llm), "hello\n\nagain\n")
        .await
        .ok();
    assert_eq!(run.stdout, "First answer.\nSecond answer.\n", "{run:#?}");

    let second = messages(&llm, 1);
    let said: Vec<(&str, String)> = second
        .iter()
        .map(|m| {
            let role = m["role"].as_str().unwrap_or_default();
            (role, m["content"].to_string())
        })
        .filter(|(role, _)| *role != "system")
        .collect();
    assert_eq!(said.len(), 3, "{said:?}");
    assert!(
        said[0].0 == "user" && said[0].1.contains("hello"),
        "{said:?}"
    );
    assert!(
        said[1].0 == "assistant" && said[1].1.contains("First answer."),
        "{said:?}"
    );
    assert!(
        said[2].0 == "user" && said[2].1.contains("again"),
        "{said:?}"
    );
}

#[tokio::test]
async fn always_puts_the_tool_on_the_servers_auto_approve_list() {
    let sb = with_demo();
    let llm = ScriptedLlm::start(vec![
        calculate("6*7"),
        Turn::text("42."),
        calculate("7*8"),
        Turn::text("56."),
    ])
    .await;
    let run = chat(
        &sb,
        &["--approve", "ask"],
        &scripted_env(&llm),
        "What is 6*7?\na\nAnd 7*8?\n",
    )
    .await
    .ok();
    assert_eq!(
        run.stderr.matches("Approve ").count(),
        1,
        "the second call is approved without a question: {run:#?}"
    );
    assert!(
        run.stdout.contains("[tool done] demo/calculate: 56\n"),
        "{run:#?}"
    );

    let list = sb.run(&["servers", "list", "--json"]).ok().json();
    let demo = list
        .as_array()
        .and_then(|servers| servers.iter().find(|s| s["name"] == "demo"))
        .unwrap_or_else(|| panic!("no demo server: {list}"));
    assert_eq!(demo["auto_approved_tools"], json!(["calculate"]), "{demo}");
    assert_eq!(
        demo["args"],
        json!(["demo-server"]),
        "the rest is kept: {demo}"
    );
}

#[tokio::test]
async fn a_script_answering_a_question_with_something_else_fails() {
    let sb = with_demo();
    let llm = ScriptedLlm::start(vec![calculate("6*7")]).await;
    let run = chat(
        &sb,
        &["--approve", "ask"],
        &scripted_env(&llm),
        "What is 6*7?\nWhat is 7*8?\n",
    )
    .await
    .failed();
    assert!(run.stderr.contains("error VALIDATION_ERROR"), "{run:#?}");
    assert!(run.stderr.contains("expected y, n or a"), "{run:#?}");
    assert_eq!(llm.requests().len(), 1);
}

#[tokio::test]
async fn no_provider_is_an_error_naming_the_variables() {
    let sb = Switchboard::new();
    let run = chat(&sb, &[], &[], "hello\n").await.failed();
    assert!(run.stderr.contains("OPENAI_API_KEY"), "{run:#?}");
    assert!(run.stdout.is_empty(), "{run:#?}");

    let env = [("OPENAI_API_KEY", "sk-test".to_owned())];
    let run = chat(&sb, &[], &env, "hello\n").await.failed();
    assert!(run.stderr.contains("--model"), "{run:#?}");
    assert!(run.stderr.contains("OPENAI_MODEL"), "{run:#?}");
}

#[tokio::test]
async fn a_provider_failure_prints_its_code_and_fails_the_script() {
    let sb = Switchboard::new();
    let llm = ScriptedLlm::start(vec![Turn::error(401, "invalid api key")]).await;
    let run = chat(&sb, &[], &scripted_env(&llm), "hello\nnever read\n")
        .await
        .failed();
    assert!(
        run.stderr.contains("error UPSTREAM_UNAVAILABLE"),
        "{run:#?}"
    );
    assert!(run.stderr.contains("invalid api key"), "{run:#?}");
    assert_eq!(llm.requests().len(), 1);
}

/// A stored Anthropic provider and an assistant that uses it with the demo server, set up
/// through the store as the HTTP API will.
#[tokio::test]
async fn an_assistant_brings_its_provider_model_prompt_and_servers() {
    let sb = with_demo();
    let llm = ScriptedLlm::start(vec![calculate("6*7"), Turn::text("It is 42.")]).await;
    {
        let store = switchboard_store::open(&StoreConfig::in_dir(sb.data_dir()))
            .await
            .expect("open the store");
        let owner = OwnerId::local();
        store
            .ensure_user(&owner, "local", Role::Admin)
            .await
            .expect("local user");
        let provider = ProviderConfig {
            name: "claude".into(),
            kind: ProviderKind::Anthropic,
            base_url: Some(llm.anthropic_base_url()),
            api_key: Some("sk-ant-stored".into()),
            default_model: "claude-scripted".into(),
            keep_api_key: false,
        };
        let provider = store
            .create_provider(&owner, &provider)
            .await
            .expect("provider");
        let mut config = AssistantConfig::named("calc");
        config.provider_id = Some(provider.id);
        config.system_prompt = "You compute.".into();
        let assistant = store
            .create_assistant(&owner, &config)
            .await
            .expect("assistant");
        store
            .set_assistant_servers(
                &owner,
                &assistant.id,
                &[switchboard_core::ServerId("demo".into())],
            )
            .await
            .expect("assistant servers");
        store.close().await;
    }
    let run = chat(
        &sb,
        &["--assistant", "calc", "--approve", "auto"],
        &[],
        "What is 6*7?\n",
    )
    .await
    .ok();
    assert!(
        run.stdout.contains("[tool done] demo/calculate: 42\n"),
        "{run:#?}"
    );
    assert!(run.stdout.ends_with("It is 42.\n"), "{run:#?}");
    let requests = llm.requests();
    assert_eq!(requests.len(), 2);
    assert_eq!(requests[0].header("x-api-key"), Some("sk-ant-stored"));
    assert_eq!(requests[0].body["model"], "claude-scripted");
    assert!(
        requests[0].body["system"]
            .to_string()
            .contains("You compute."),
        "{}",
        requests[0].body
    );

    let store = switchboard_store::open(&StoreConfig::in_dir(sb.data_dir()))
        .await
        .expect("open the store");
    let conversations = store
        .conversations(&OwnerId::local())
        .await
        .expect("conversations");
    store.close().await;
    assert_eq!(conversations.len(), 1, "{conversations:#?}");
    assert_eq!(conversations[0].title, "What is 6*7?");
    assert!(
        conversations[0].assistant_id.is_some(),
        "{conversations:#?}"
    );
}

/// Ctrl-C while a script's question waits cancels the run: the call is cancelled, the model
/// is not asked again and the exit status says it was interrupted.
#[tokio::test]
async fn ctrl_c_cancels_a_scripts_run_and_fails() {
    let sb = with_demo();
    let llm = ScriptedLlm::start(vec![calculate("6*7"), Turn::text("unused")]).await;
    let mut child = chat_command(&sb, &["--approve", "ask"], &scripted_env(&llm))
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn switchboard chat");
    let mut input = child.stdin.take().expect("stdin");
    input.write_all(b"What is 6*7?\n").await.expect("write");
    // The question is on stderr once the run waits for its answer.
    let mut stderr = Screen::new(child.stderr.take().expect("stderr"));
    stderr.wait_for("[a]lways: ").await;
    let pid = child.id().expect("pid").to_string();
    let kill = std::process::Command::new("kill")
        .args(["-INT", &pid])
        .status()
        .expect("run kill");
    assert!(kill.success());
    stderr.wait_for("error CANCELLED: interrupted").await;
    let output = child.wait_with_output().await.expect("wait");
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(!output.status.success(), "{stdout}\n{}", stderr.text);
    assert!(
        stdout.contains("[tool cancelled] demo/calculate"),
        "{stdout}"
    );
    assert_eq!(llm.requests().len(), 1);
    drop(input);
}

/// `chat` on a pseudo-terminal made by util-linux `script`, whose stdout shows the screen
/// (stdout and stderr of the chat, and the terminal's echo); `None` when `script` is missing.
fn on_a_terminal(sb: &Switchboard, llm: &ScriptedLlm) -> Option<tokio::process::Child> {
    if std::process::Command::new("script")
        .arg("--version")
        .output()
        .is_err()
    {
        eprintln!("skipped: `script` (util-linux) is not installed");
        return None;
    }
    let data_dir = sb.data_dir();
    // `exec`: the shell `script` starts must not stay in the terminal's foreground group, or
    // a Ctrl-C ends it (dash, the usual /bin/sh when SHELL is unset, dies of SIGINT) and
    // `script` reports that instead of the chat's own exit.
    let line = format!(
        "exec '{BIN}' --data-dir '{}' chat",
        data_dir.to_str().expect("utf-8 path")
    );
    let mut command = tokio::process::Command::new("script");
    command
        .args(["-q", "-e", "-c", &line, "/dev/null"])
        .env_remove("SWITCHBOARD_DATA_DIR")
        .env_remove("DATABASE_URL")
        .env_remove("SWITCHBOARD_SECRET_KEY")
        .env_remove("RUST_LOG")
        .kill_on_drop(true);
    for var in PROVIDER_VARS {
        command.env_remove(var);
    }
    for (key, value) in scripted_env(llm) {
        command.env(key, value);
    }
    let child = command
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn script");
    Some(child)
}

/// On a terminal: the greeting, the prompt, the question answered as typed, `/exit`.
#[tokio::test]
async fn a_terminal_session_through_a_pseudo_terminal() {
    let sb = with_demo();
    let llm = ScriptedLlm::start(vec![calculate("6*7"), Turn::text("6 times 7 is 42.")]).await;
    let Some(mut child) = on_a_terminal(&sb, &llm) else {
        return;
    };
    let mut input = child.stdin.take().expect("stdin");
    input
        .write_all(b"What is 6*7?\ny\n/exit\n")
        .await
        .expect("write");
    drop(input);
    let output = child.wait_with_output().await.expect("wait for script");
    let screen = String::from_utf8_lossy(&output.stdout).replace("\r\n", "\n");
    assert!(output.status.success(), "{screen}");
    assert!(
        screen.contains("chatting with scripted via http://127.0.0.1:"),
        "{screen}"
    );
    assert!(screen.contains("(tools of demo)"), "{screen}");
    assert!(screen.contains("> "), "{screen}");
    assert!(
        screen
            .contains("Approve demo/calculate {\"expression\":\"6*7\"}? [y]es / [n]o / [a]lways: "),
        "{screen}"
    );
    assert!(
        screen.contains("[tool done] demo/calculate: 42"),
        "{screen}"
    );
    assert!(screen.contains("6 times 7 is 42."), "{screen}");
    assert_eq!(llm.requests().len(), 2);
}

/// On a terminal, Ctrl-C while a question waits cancels the run and comes back to the prompt.
#[tokio::test]
async fn ctrl_c_on_a_terminal_returns_to_the_prompt() {
    let sb = with_demo();
    let llm = ScriptedLlm::start(vec![calculate("6*7"), Turn::text("unused")]).await;
    let Some(mut child) = on_a_terminal(&sb, &llm) else {
        return;
    };
    let mut input = child.stdin.take().expect("stdin");
    let mut screen = Screen::new(child.stdout.take().expect("stdout"));
    input.write_all(b"What is 6*7?\n").await.expect("write");
    screen.wait_for("[a]lways: ").await;
    input.write_all(b"\x03").await.expect("write Ctrl-C");
    screen.wait_for("[tool cancelled] demo/calculate").await;
    screen.wait_for("(cancelled)").await;
    screen.wait_for("> ").await;
    input.write_all(b"/exit\n").await.expect("write");
    drop(input);
    let status = child.wait().await.expect("wait for script");
    assert!(status.success(), "{}", screen.text);
    assert_eq!(llm.requests().len(), 1);
}

/// A server's question during a call (MCP elicitation) is asked at the terminal: a
/// form's fields as a JSON object over the server's defaults; the answer reaches the server,
/// whose result reaches the model.
#[tokio::test]
async fn a_servers_question_is_asked_in_the_terminal() {
    let sb = with_everything();
    let llm = ScriptedLlm::start(vec![
        Turn::tool_call("mcp__everything__trigger-elicitation-request", json!({})),
        Turn::text("Thanks, noted."),
    ])
    .await;
    let run = chat(
        &sb,
        &["--approve", "auto"],
        &scripted_env(&llm),
        "Ask me for my details\n{\"name\": \"Ada Lovelace\", \"check\": true}\n",
    )
    .await
    .ok();
    assert!(
        run.stderr
            .contains("everything/trigger-elicitation-request asks: Please provide inputs"),
        "{run:#?}"
    );
    assert!(
        run.stderr
            .contains("firstLine (string, default \"It was a dark and stormy night.\")"),
        "{run:#?}"
    );
    assert!(run.stdout.ends_with("Thanks, noted.\n"), "{run:#?}");
    let results = tool_results(&llm, 1);
    assert!(results[0].contains("Ada Lovelace"), "{results:?}");
    assert!(
        results[0].contains("dark and stormy"),
        "the default was kept: {results:?}"
    );
}

/// A store with server-everything, named `everything`.
fn with_everything() -> Switchboard {
    let sb = Switchboard::new();
    let everything = switchboard_testkit::Peers::locate().everything_stdio();
    let mut add = vec![
        "servers".to_owned(),
        "add".to_owned(),
        "everything".to_owned(),
        "--command".to_owned(),
        everything.program.clone(),
    ];
    for arg in &everything.args {
        add.push("--arg".to_owned());
        add.push(arg.clone());
    }
    for (key, value) in &everything.env {
        add.push("--env".to_owned());
        add.push(format!("{key}={value}"));
    }
    sb.run(&add.iter().map(String::as_str).collect::<Vec<_>>())
        .ok();
    sb
}

/// What servers offer besides tools, from the terminal: `/prompts` and
/// `/resources` list them as the commands that use them; `/attach` puts a resource's contents
/// before the next message; `/SERVER:PROMPT NAME=VALUE` starts a turn with a prompt.
#[tokio::test]
async fn prompts_and_resources_are_used_with_slash_commands() {
    let sb = with_everything();
    let llm = ScriptedLlm::start(vec![
        Turn::text("A plaintext resource."),
        Turn::text("Sunny."),
    ])
    .await;
    let run = chat(
        &sb,
        &[],
        &scripted_env(&llm),
        "/prompts\n/resources\n/attach everything demo://resource/dynamic/text/3\nWhat is it?\n/everything:args-prompt city=Lisbon\n",
    )
    .await
    .ok();
    assert!(
        run.stdout.contains("/everything:args-prompt city=* state="),
        "{run:#?}"
    );
    assert!(
        run.stdout
            .contains("/attach everything demo://resource/static/document/architecture.md"),
        "{run:#?}"
    );
    assert!(
        run.stdout
            .contains("/attach everything demo://resource/dynamic/text/{resourceId}"),
        "{run:#?}"
    );
    assert!(run.stdout.contains("Sunny."), "{run:#?}");
    let first = messages(&llm, 0);
    let asked = serde_json::to_string(&first).unwrap();
    assert!(
        asked.contains("Resource 3: This is a plaintext resource"),
        "{asked}"
    );
    let second = messages(&llm, 1);
    let last = second.last().unwrap().to_string();
    assert!(last.contains("What's weather in Lisbon?"), "{last}");
}

/// A script naming a server the chat does not have fails, saying which it has.
#[tokio::test]
async fn a_script_attaching_from_an_unknown_server_fails() {
    let sb = with_everything();
    let llm = ScriptedLlm::start(vec![]).await;
    let run = chat(
        &sb,
        &[],
        &scripted_env(&llm),
        "/attach nowhere file:///etc/passwd\n",
    )
    .await;
    assert!(!run.success, "{run:#?}");
    assert!(run.stderr.contains("no server \"nowhere\""), "{run:#?}");
    assert!(llm.requests().is_empty());
}

/// `chat` runs with the `[agent]` settings of the settings file, and the environment's over
/// them, as `serve` does: here how much of a tool result the model sees.
#[tokio::test]
async fn chat_honours_the_agent_settings() {
    let sb = with_demo();
    std::fs::write(
        sb.data_dir().join("switchboard.toml"),
        "[agent]\nmax_result_chars = 12\n",
    )
    .unwrap();
    let long = "abcdefghijklmnopqrstuvwxyz0123456789";
    let echo = || Turn::tool_call("mcp__demo__echo", json!({ "text": long }));
    let seen = async |env: Vec<(&'static str, String)>| {
        let llm = ScriptedLlm::start(vec![echo(), Turn::text("done")]).await;
        let mut env = [scripted_env(&llm), env].concat();
        env.push(("SWITCHBOARD_MAX_ROUNDS", "5".to_owned()));
        chat(&sb, &["--approve", "auto"], &env, "echo it\n")
            .await
            .ok();
        let results = tool_results(&llm, 1);
        assert_eq!(results.len(), 1, "{results:?}");
        results[0].clone()
    };

    let from_file = seen(Vec::new()).await;
    assert!(from_file.contains("abcdefghij"), "{from_file}");
    assert!(!from_file.contains("0123456789"), "cut at 12: {from_file}");

    let from_env = seen(vec![("SWITCHBOARD_MAX_RESULT_CHARS", "100".to_owned())]).await;
    assert!(from_env.contains(long), "the environment wins: {from_env}");
}
