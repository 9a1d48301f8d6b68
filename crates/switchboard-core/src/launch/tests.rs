use proptest::prelude::*;

use super::*;
use crate::spec::ServerSpec;

fn rules(text: &str) -> LaunchRules {
    text.parse().unwrap()
}

fn npx(args: &[&str]) -> ServerSpec {
    ServerSpec::stdio("s", "npx", args.iter().copied())
}

const NPX: &str = "npx -y @modelcontextprotocol/server-* env=GITHUB_TOKEN";

#[test]
fn a_template_admits_its_packages_and_listed_env() {
    let rules = rules(NPX);
    for name in [
        "everything",
        "github",
        "fetch@1.2.0",
        "memory@latest",
        "a_b.c-d",
    ] {
        let spec = npx(&["-y", &format!("@modelcontextprotocol/server-{name}")]);
        assert_eq!(rules.check(&spec), Ok(()), "{name}");
        assert_eq!(rules.check(&spec.with_env("GITHUB_TOKEN", "x")), Ok(()));
    }
}

#[test]
fn hostile_npx_arguments_do_not_fit() {
    let rules = rules(NPX);
    let attempts: &[&[&str]] = &[
        &["-c", "base64 -w0 /data/secret.key >&2"],
        &["-y", "-c", "id"],
        &["-y", "@modelcontextprotocol/server-everything", "extra"],
        &["-y", "@modelcontextprotocol/server-everything", "-c", "id"],
        &[
            "--node-options=--require=/tmp/x.js",
            "-y",
            "@modelcontextprotocol/server-x",
        ],
        &["-y", "--call", "id", "@modelcontextprotocol/server-x"],
        &["-y", "@modelcontextprotocol/server-"],
        &["-y", "@modelcontextprotocol/server-x/../../evil"],
        &["-y", "@modelcontextprotocol/server-x@file:../evil"],
        &["-y", "@modelcontextprotocol/server-x@npm:evil"],
        &["-y", "@modelcontextprotocol/server-x@git+https://evil"],
        &["-y", "@modelcontextprotocol/server-x@evil.tgz"],
        &["-y", "@modelcontextprotocol/server-x@1@2"],
        &["-y", "@modelcontextprotocol/server-..x"],
        &["-y", "@modelcontextprotocol/server-x y"],
        &["-y", "@modelcontextprotocol/server-é"],
        &["-y"],
        &[],
    ];
    for args in attempts {
        assert!(
            matches!(
                rules.check(&npx(args)),
                Err(LaunchRefusal::Arguments { .. })
            ),
            "{args:?}"
        );
    }
}

#[test]
fn a_bare_star_matches_no_option() {
    for (template, program, args) in [
        ("uvx *", "uvx", vec!["--from=git+https://evil/x"]),
        ("uvx *", "uvx", vec!["-e"]),
        ("node *", "node", vec!["-e"]),
        ("python -m *", "python", vec!["-m", "-c"]),
        ("python -m *", "python", vec!["-c", "import os"]),
        ("node *", "node", vec!["evil.js"]),
        ("uvx *", "uvx", vec!["x.whl"]),
    ] {
        let spec = ServerSpec::stdio("s", program, args.clone());
        assert!(
            rules(template).check(&spec).is_err(),
            "{template}: {args:?}"
        );
    }
    let fetch = ServerSpec::stdio("s", "uvx", ["mcp-server-fetch"]);
    assert_eq!(rules("uvx mcp-server-*").check(&fetch), Ok(()));
}

#[test]
fn the_program_is_matched_exactly() {
    let rules = rules(NPX);
    for program in ["/tmp/npx", "npx ", "NPX", "./npx", "npx-evil"] {
        let spec = ServerSpec::stdio("s", program, ["-y", "@modelcontextprotocol/server-x"]);
        assert!(
            matches!(rules.check(&spec), Err(LaunchRefusal::Program(_))),
            "{program}"
        );
    }
    assert!(LaunchRules::default().check(&npx(&["-y"])).is_err());
    let mut none = npx(&[]);
    none.command = None;
    assert!(rules.check(&none).is_err());
}

#[test]
fn loader_and_interpreter_variables_are_refused_in_any_case() {
    // A template that lists every name still refuses these.
    let rules = rules("npx -y @modelcontextprotocol/server-* env=GITHUB_TOKEN,API_KEY");
    let spec = npx(&["-y", "@modelcontextprotocol/server-x"]);
    for name in [
        "PATH",
        "path",
        "Path",
        "LD_PRELOAD",
        "ld_library_path",
        "DYLD_INSERT_LIBRARIES",
        "NODE_OPTIONS",
        "node_options",
        "NODE_PATH",
        "PYTHONPATH",
        "PYTHONSTARTUP",
        "pythonhome",
        "PERL5OPT",
        "PERL5LIB",
        "PERLLIB",
        "RUBYOPT",
        "RUBYLIB",
        "BASH_ENV",
        "ENV",
        "SHELLOPTS",
        "PS4",
        "GCONV_PATH",
        "JAVA_TOOL_OPTIONS",
        "_JAVA_OPTIONS",
        "NPM_CONFIG_SCRIPT_SHELL",
        "npm_config_script_shell",
        "GIT_SSH_COMMAND",
        "HOME",
        "UV_INDEX_URL",
        "HTTPS_PROXY",
        "https_proxy",
        "GLIBC_TUNABLES",
        "SWITCHBOARD_SECRET_KEY",
        "DATABASE_URL",
        "OPENAI_API_KEY",
    ] {
        assert_eq!(
            rules.check(&spec.clone().with_env(name, "x")),
            Err(LaunchRefusal::ForbiddenEnv(name.to_owned())),
            "{name}"
        );
    }
    for name in ["BASH_FUNC_x%%", "A=B", "", "1X", "A B"] {
        assert!(
            matches!(
                rules.check(&spec.clone().with_env(name, "x")),
                Err(LaunchRefusal::InvalidEnvName(_))
            ),
            "{name:?}"
        );
    }
}

#[test]
fn only_listed_env_names_may_be_set() {
    let rules = rules(NPX);
    let spec = npx(&["-y", "@modelcontextprotocol/server-x"]);
    assert_eq!(
        rules.check(&spec.clone().with_env("OTHER", "x")),
        Err(LaunchRefusal::Env {
            program: "npx".into(),
            name: "OTHER".into()
        })
    );
    // Listed names are exact.
    assert!(
        rules
            .check(&spec.clone().with_env("github_token", "x"))
            .is_err()
    );
    assert_eq!(
        rules.check(&spec.with_secret_env("GITHUB_TOKEN", "x")),
        Ok(())
    );
}

#[test]
fn members_may_not_choose_the_working_directory() {
    let mut spec = npx(&["-y", "@modelcontextprotocol/server-x"]);
    spec.cwd = Some("/tmp/evil".into());
    assert_eq!(
        rules(NPX).check(&spec),
        Err(LaunchRefusal::WorkingDirectory)
    );
}

#[test]
fn remote_servers_need_no_template() {
    let spec = ServerSpec::http("r", "https://example.com/mcp", None);
    assert_eq!(LaunchRules::default().check(&spec), Ok(()));
}

#[test]
fn templates_that_allow_forbidden_names_or_are_malformed_are_refused() {
    for text in [
        "npx -y x env=NODE_OPTIONS",
        "npx env=GITHUB_TOKEN -y",
        "env=A",
        "",
        "np* -y",
        "npx -y a**",
        "npx -y a*b*",
        "npx env=A=B",
    ] {
        assert!(text.parse::<LaunchTemplate>().is_err(), "{text:?}");
    }
}

#[test]
fn several_templates_are_separated_by_semicolons_and_shown_back() {
    let both = LaunchRules::parse_all(&[
        "npx -y @modelcontextprotocol/server-*;uvx mcp-server-*",
        " ; ",
    ])
    .unwrap();
    assert_eq!(both.templates().len(), 2);
    assert_eq!(
        both.templates()[0].to_string(),
        "npx -y @modelcontextprotocol/server-*"
    );
    let shown = rules("/bin/demo demo-server env=B,A").templates()[0].to_string();
    assert_eq!(shown, "/bin/demo demo-server env=A,B");
    assert!(LaunchRules::parse_all::<&str>(&[]).unwrap().is_empty());
}

proptest! {
    /// Whatever a member appends, inserts or substitutes, only names fit.
    #[test]
    fn nothing_but_a_name_fits_the_star(arg in "[a-zA-Z0-9@./:=_ -]{0,24}|\\PC{0,24}") {
        let rules = rules("npx -y @modelcontextprotocol/server-*");
        let spec = npx(&["-y", &format!("@modelcontextprotocol/server-{arg}")]);
        let fits = rules.check(&spec).is_ok();
        prop_assert_eq!(fits, is_name(&arg));
        if fits {
            prop_assert!(arg.chars().all(|c| c.is_ascii_alphanumeric() || "._-@".contains(c)));
            prop_assert!(!arg.starts_with('-') && !arg.contains(".."));
        }
    }

    #[test]
    fn extra_arguments_never_fit(extra in proptest::collection::vec("\\PC{0,12}", 1..4), at in 0usize..3) {
        let rules = rules("npx -y @modelcontextprotocol/server-*");
        let mut args = vec!["-y".to_owned(), "@modelcontextprotocol/server-x".to_owned()];
        let at = at.min(args.len());
        for (i, e) in extra.into_iter().enumerate() {
            args.insert(at + i, e);
        }
        prop_assert!(rules.check(&ServerSpec::stdio("s", "npx", args)).is_err());
    }

    #[test]
    fn case_never_hides_a_forbidden_name(name in "(LD_|NODE_|PYTHON|NPM_CONFIG_|GIT_)[A-Z_]{0,10}", flips in proptest::collection::vec(any::<bool>(), 30)) {
        let flipped: String = name
            .chars()
            .zip(flips.iter().cycle())
            .map(|(c, f)| if *f { c.to_ascii_lowercase() } else { c })
            .collect();
        prop_assert!(is_forbidden_env(&flipped));
    }
}
