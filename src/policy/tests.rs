use super::*;
use crate::known::Known;
use crate::manifest;

fn policy(table: &str) -> Policy {
    let text = format!(
        "owner = \"o\"\n[servers.docs]\nurl = \"https://docs.example.com/mcp\"\n\
         [servers.git]\ncommand = \"uvx\"\nargs = [\"mcp-server-git\"]\n\
         [[targets]]\nclient = \"cursor\"\n[policy]\n{table}"
    );
    manifest::parse(&text, &Known).unwrap().policy.unwrap()
}

fn by_client<'a>(c: &'a [Compiled], client: &str) -> &'a Compiled {
    c.iter().find(|x| x.admin.client == client).unwrap()
}

#[test]
fn exclusive_allow_compiles_to_each_clients_identity_form() {
    let c = compile(&policy("allow = [\"docs\", \"git\"]\nexclusive = true\n"));
    let claude = by_client(&c, "claude-code");
    assert_eq!(
        claude.entries,
        vec![
            (
                "allowedMcpServers".to_string(),
                json!([{"serverUrl": "https://docs.example.com/mcp"}, {"serverCommand": ["uvx", "mcp-server-git"]}])
            ),
            ("allowManagedMcpServersOnly".to_string(), json!(true))
        ]
    );
    let codex = by_client(&c, "codex");
    assert_eq!(
        codex.entries,
        vec![
            (
                "docs".to_string(),
                json!({"identity": {"url": "https://docs.example.com/mcp"}})
            ),
            ("git".to_string(), json!({"identity": {"command": "uvx"}})),
        ]
    );
    assert!(
        codex.cannot.iter().any(|s| s.contains("program only")),
        "{:?}",
        codex.cannot
    );
    let gemini = by_client(&c, "gemini");
    assert_eq!(
        gemini.entries,
        vec![("allowed".to_string(), json!(["docs", "git"]))]
    );
    assert!(gemini.cannot.iter().any(|s| s.contains("by entry name")));
    assert!(by_client(&c, "qwen").entries.is_empty());
    let vscode = by_client(&c, "vscode");
    assert!(vscode.entries.is_empty() && vscode.cannot[0].contains("not verified"));
}

#[test]
fn allow_without_exclusive_writes_no_allow_list() {
    let c = compile(&policy("allow = [\"docs\"]\n"));
    assert!(c.iter().all(|x| x.entries.is_empty()), "{c:?}");
}

#[test]
fn deny_rules_go_where_a_client_can_say_them_and_are_named_where_not() {
    let c = compile(&policy(
        "deny = [{ name = \"shell\" }, { name = \"evil-*\" }, { url = \"https://*.bad.example/*\" }, { command = \"npx\" }, { command = \"npx -y evil\" }]\n",
    ));
    let claude = by_client(&c, "claude-code");
    assert_eq!(
        claude.entries,
        vec![(
            "deniedMcpServers".to_string(),
            json!([{"serverName": "shell"}, {"serverUrl": "https://*.bad.example/*"}, {"serverCommand": ["npx", "-y", "evil"]}])
        )]
    );
    assert_eq!(claude.cannot.len(), 2, "{:?}", claude.cannot);
    let gemini = by_client(&c, "gemini");
    assert_eq!(
        gemini.entries,
        vec![("excluded".to_string(), json!(["shell"]))]
    );
    assert_eq!(gemini.cannot.len(), 5);
    let qwen = by_client(&c, "qwen");
    assert_eq!(
        qwen.entries,
        vec![("excluded".to_string(), json!(["shell", "evil-*"]))]
    );
    assert_eq!(qwen.cannot.len(), 3);
    let codex = by_client(&c, "codex");
    assert!(codex.entries.is_empty());
    assert_eq!(codex.cannot.len(), 5);
}

#[test]
fn exclusive_with_nothing_allowed_is_an_empty_allow_list() {
    let c = compile(&policy("allow = []\nexclusive = true\n"));
    assert_eq!(
        by_client(&c, "claude-code").entries,
        vec![
            ("allowedMcpServers".to_string(), json!([])),
            ("allowManagedMcpServersOnly".to_string(), json!(true))
        ]
    );
    assert!(by_client(&c, "codex").cannot[0].contains("empty `allow`"));
    assert_eq!(
        by_client(&c, "vscode").entries,
        vec![("ChatMCP".to_string(), json!("none"))]
    );
    // Gemini's agent reads an empty list as no restriction: a name no server has.
    assert_eq!(
        by_client(&c, "gemini").entries,
        vec![("allowed".to_string(), json!([NONE_ALLOWED]))]
    );
    assert!(by_client(&c, "codex").entries.is_empty());
}

#[test]
fn violations_by_identity_not_by_name() {
    let p = policy("allow = [\"git\"]\nexclusive = true\ndeny = [{ command = \"npx\" }]\n");
    let same = json!({"command": "uvx", "args": ["mcp-server-git"]});
    assert_eq!(violation(&p, "renamed", &same), None);
    let other_args = json!({"command": "uvx", "args": ["mcp-server-fetch"]});
    assert_eq!(
        violation(&p, "git", &other_args),
        Some(Violation::NotAllowed)
    );
    let npx = json!({"command": "npx", "args": ["-y", "x"]});
    assert!(matches!(
        violation(&p, "x", &npx),
        Some(Violation::Denied(_))
    ));
}

#[test]
fn manifest_errors_name_the_fault() {
    let err = |table: &str| {
        let text = format!(
            "owner = \"o\"\n[servers.docs]\nurl = \"https://docs.example.com/mcp\"\n\
             [servers.env]\nurl = \"https://${{HOST}}/mcp\"\n[[targets]]\nclient = \"cursor\"\n[policy]\n{table}"
        );
        manifest::parse(&text, &Known).unwrap_err().message
    };
    assert!(err("alow = []\n").contains("did you mean `allow`?"));
    assert!(err("allow = [\"dcos\"]\n").contains("did you mean `docs`?"));
    assert!(err("allow = [\"env\"]\n").contains("literal"));
    assert!(err("exclusive = true\n").contains("needs `allow"));
    assert!(err("deny = [{ nam = \"x\" }]\n").contains("did you mean `name`?"));
    assert!(err("deny = [{ name = \"x\", url = \"y\" }]\n").contains("exactly one key"));
    assert!(err("deny = [{ name = \"\" }]\n").contains("non-empty"));
    assert!(
        err("allow = [\"docs\"]\ndeny = [{ url = \"https://docs.*\" }]\n").contains("deny rule")
    );
    assert!(err("exclusive = \"yes\"\n").contains("true or false"));
}
