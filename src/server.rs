//! A server in neutral form: what the manifest declares and every client spells in its own way.
//! A leaf of the model: the dialects, the planner and the probe read it without knowing the
//! manifest.

use std::collections::BTreeMap;

use crate::template::Template;

/// One server in neutral form.
#[derive(Debug, Clone, PartialEq)]
pub struct Server {
    /// The entry name written into client files.
    pub name: String,
    /// How the client reaches it.
    pub transport: Transport,
    /// Optional tool pin: the only tools to expose.
    pub tools: Option<Vec<String>>,
    /// `enabled = false`: written in each client's own "off" form (kept, switched off);
    /// `None` when the manifest does not say (the client's switch stays the client's).
    pub enabled: Option<bool>,
    /// What `probe` checks beyond the tool names (behaviour pins, a version floor).
    pub checks: ProbeChecks,
}

/// A client-prompted input (`[inputs.ID]` in the manifest, `${input:ID}` in a server's
/// strings): the client asks the user for its value when it starts the server (VS Code's
/// `inputs`, `promptString`). Only clients with prompts can write it.
#[derive(Debug, Clone, PartialEq)]
pub struct Input {
    /// The id (`${input:ID}`).
    pub id: String,
    /// What the prompt says.
    pub description: Option<String>,
    /// `password = true`: the client hides what the user types (`None`: not said).
    pub password: Option<bool>,
    /// The value the prompt offers.
    pub default: Option<String>,
    /// Where it was declared (1-based line, column).
    pub at: (usize, usize),
}

impl Input {
    /// The entry of the client's `inputs` array, without its `id` (the array is read as an
    /// object keyed by `id`, see [`crate::keyed`]): `type` first, as VS Code's docs write it.
    pub fn entry(&self) -> serde_json::Value {
        let mut m = serde_json::Map::new();
        m.insert("type".into(), "promptString".into());
        if let Some(d) = &self.description {
            m.insert("description".into(), d.clone().into());
        }
        if let Some(p) = self.password {
            m.insert("password".into(), p.into());
        }
        if let Some(d) = &self.default {
            m.insert("default".into(), d.clone().into());
        }
        serde_json::Value::Object(m)
    }
}

impl Server {
    /// Every string of the server with its manifest field name (`command`, `args`,
    /// `env.NAME`, `cwd`, `env_file`, `url`, `headers.NAME`), in declaration order.
    pub fn fields(&self) -> Vec<(String, &Template)> {
        match &self.transport {
            Transport::Stdio {
                command,
                args,
                env,
                cwd,
                env_file,
            } => std::iter::once(("command".to_string(), command))
                .chain(args.iter().map(|a| ("args".to_string(), a)))
                .chain(env.iter().map(|(k, v)| (format!("env.{k}"), v)))
                .chain(cwd.iter().map(|c| ("cwd".to_string(), c)))
                .chain(env_file.iter().map(|c| ("env_file".to_string(), c)))
                .collect(),
            Transport::Remote { url, headers, .. } => std::iter::once(("url".to_string(), url))
                .chain(headers.iter().map(|(k, v)| (format!("headers.{k}"), v)))
                .collect(),
        }
    }

    /// The ids of the inputs (`${input:ID}`) the server uses, in order, each once.
    pub fn inputs(&self) -> impl Iterator<Item = String> {
        let mut seen: Vec<String> = Vec::new();
        for (_, t) in self.fields() {
            for id in t.inputs() {
                if !seen.iter().any(|s| s == id) {
                    seen.push(id.to_string());
                }
            }
        }
        seen.into_iter()
    }
}

/// What `mcpconf probe` checks about a server beyond its tool names; no client file holds these.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ProbeChecks {
    /// `tool_digests`: tool name to `sha256:HEX` of the tool's RFC 8785 canonical JSON.
    pub tool_digests: Option<BTreeMap<String, String>>,
    /// `min_version`: the lowest `serverInfo.version` accepted (a semantic version).
    pub min_version: Option<String>,
}

/// Local process or remote endpoint.
#[derive(Debug, Clone, PartialEq)]
pub enum Transport {
    /// A process started by the client, speaking MCP on stdin/stdout.
    Stdio {
        /// The program.
        command: Template,
        /// Its arguments.
        args: Vec<Template>,
        /// Extra environment, in declaration order.
        env: Vec<(String, Template)>,
        /// Working directory.
        cwd: Option<Template>,
        /// `env_file`: a file of `NAME=value` lines the client loads into the environment
        /// (VS Code's and Cursor's `envFile`); refused for clients that read none.
        env_file: Option<Template>,
    },
    /// A server reached over HTTP.
    Remote {
        /// The endpoint.
        url: Template,
        /// Request headers, in declaration order.
        headers: Vec<(String, Template)>,
        /// Streamable HTTP (default) or legacy SSE.
        kind: RemoteKind,
    },
}

/// The HTTP flavour of a remote server.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RemoteKind {
    /// Streamable HTTP.
    Http,
    /// Server-sent events (legacy).
    Sse,
}
