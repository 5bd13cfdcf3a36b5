//! The manifest's hand-written walk over the span-preserving `toml_edit` document: each table
//! and key checked against the vocabulary, with line and column on every error and the closest
//! valid key suggested (moved out of `manifest.rs` unchanged).

use super::*;

#[derive(Clone, Copy)]
pub(super) struct Parser<'a> {
    pub(super) text: &'a str,
    pub(super) names: &'a dyn Vocabulary,
    /// The ids of the manifest's `[inputs.ID]`: what `${input:ID}` may name.
    pub(super) inputs: &'a [String],
}

impl Parser<'_> {
    pub(super) fn err_at(&self, offset: usize, message: impl Into<String>) -> ManifestError {
        let (line, column) = line_col(self.text, offset);
        ManifestError {
            message: message.into(),
            line,
            column,
        }
    }

    pub(super) fn err_item(&self, item: &Item, message: impl Into<String>) -> ManifestError {
        self.err_at(item.span().map(|s| s.start).unwrap_or(0), message)
    }

    pub(super) fn err_value(&self, value: &Value, message: impl Into<String>) -> ManifestError {
        self.err_at(value.span().map(|s| s.start).unwrap_or(0), message)
    }

    pub(super) fn check_key(
        &self,
        key: Option<&toml_edit::Key>,
        name: &str,
        allowed: &[&str],
        place: &str,
    ) -> Result<(), ManifestError> {
        if allowed.contains(&name) {
            return Ok(());
        }
        let offset = key.and_then(|k| k.span()).map(|s| s.start).unwrap_or(0);
        let hint = match closest(name, allowed.iter().copied()) {
            Some(c) => format!("; did you mean `{c}`?"),
            None => format!("; valid keys are {}", list(allowed)),
        };
        Err(self.err_at(offset, format!("unknown key `{name}` {place}{hint}")))
    }

    pub(super) fn string(&self, item: &Item, what: &str) -> Result<String, ManifestError> {
        item.as_str()
            .map(str::to_string)
            .ok_or_else(|| self.err_item(item, format!("`{what}` must be a string")))
    }

    pub(super) fn template(&self, item: &Item, what: &str) -> Result<Template, ManifestError> {
        let s = self.string(item, what)?;
        let t = Template::parse(&s).map_err(|m| self.err_item(item, format!("`{what}`: {m}")))?;
        self.undeclared_input(&t, what)
            .map_or(Ok(t), |m| Err(self.err_item(item, m)))
    }

    /// The error for an `${input:ID}` of `t` that no `[inputs.ID]` declares, if any.
    fn undeclared_input(&self, t: &Template, what: &str) -> Option<String> {
        let id = t.inputs().find(|id| !self.inputs.iter().any(|d| d == id))?;
        let hint = match closest(id, self.inputs.iter().map(String::as_str)) {
            Some(c) => format!("; did you mean `{c}`?"),
            None => String::new(),
        };
        Some(format!(
            "`{what}` uses the input `${{input:{id}}}`, which the manifest does not declare: add `[inputs.{id}]` with its `description`{hint}"
        ))
    }

    /// The `[inputs.ID]` tables: inputs the client prompts the user for (`${input:ID}`).
    pub(super) fn inputs(&self, item: &Item) -> Result<Vec<Input>, ManifestError> {
        let t = item.as_table_like().ok_or_else(|| {
            self.err_item(
                item,
                "`inputs` must be a table of inputs, e.g. `[inputs.api-key]`",
            )
        })?;
        let mut out = Vec::new();
        for (id, iitem) in t.iter() {
            let at = self.pos(t.key(id).and_then(|k| k.span()).map(|s| s.start));
            if !crate::template::valid_input_id(id) {
                return Err(self.err_at(
                    t.key(id)
                        .and_then(|k| k.span())
                        .map(|s| s.start)
                        .unwrap_or(0),
                    format!(
                        "input id {} is not valid: use 1-64 characters from `A-Z a-z 0-9 _ . -`",
                        serde_json::Value::String(id.to_string())
                    ),
                ));
            }
            let place = format!("`[inputs.{id}]`");
            let it = self.table_keys(iitem, INPUT_KEYS, &place)?;
            if let Some(ty) = it.get("type") {
                let v = self.string(ty, &format!("inputs.{id}.type"))?;
                if v != "promptString" {
                    return Err(self.err_item(
                        ty,
                        format!("{place}: `type = \"{v}\"` is not supported; mcpconf writes `promptString` inputs only (leave `type` out)"),
                    ));
                }
            }
            let text = |k: &str| -> Result<Option<String>, ManifestError> {
                it.get(k)
                    .map(|i| self.string(i, &format!("inputs.{id}.{k}")))
                    .transpose()
            };
            let password = match it.get("password") {
                None => None,
                Some(i) => Some(i.as_bool().ok_or_else(|| {
                    self.err_item(
                        i,
                        format!("`inputs.{id}.password` must be `true` or `false`"),
                    )
                })?),
            };
            out.push(Input {
                id: id.to_string(),
                description: text("description")?,
                password,
                default: text("default")?,
                at,
            });
        }
        Ok(out)
    }

    fn pos(&self, offset: Option<usize>) -> (usize, usize) {
        line_col(self.text, offset.unwrap_or(0))
    }

    pub(super) fn value_template(
        &self,
        value: &Value,
        what: &str,
    ) -> Result<Template, ManifestError> {
        let s = value
            .as_str()
            .ok_or_else(|| self.err_value(value, format!("`{what}` must be a string")))?;
        let t = Template::parse(s).map_err(|m| self.err_value(value, format!("`{what}`: {m}")))?;
        self.undeclared_input(&t, what)
            .map_or(Ok(t), |m| Err(self.err_value(value, m)))
    }

    pub(super) fn string_list(
        &self,
        item: &Item,
        what: &str,
    ) -> Result<Vec<String>, ManifestError> {
        let arr = item
            .as_array()
            .ok_or_else(|| self.err_item(item, format!("`{what}` must be an array of strings")))?;
        arr.iter()
            .map(|v| {
                v.as_str()
                    .map(str::to_string)
                    .ok_or_else(|| self.err_value(v, format!("`{what}` must contain only strings")))
            })
            .collect()
    }

    pub(super) fn template_map(
        &self,
        item: &Item,
        what: &str,
    ) -> Result<Vec<(String, Template)>, ManifestError> {
        let t = item.as_table_like().ok_or_else(|| {
            self.err_item(
                item,
                format!(
                    "`{what}` must be a table of strings, e.g. `{what} = {{ NAME = \"value\" }}`"
                ),
            )
        })?;
        let mut out = Vec::new();
        for (k, v) in t.iter() {
            let value = v
                .as_value()
                .ok_or_else(|| self.err_item(v, format!("`{what}.{k}` must be a string")))?;
            out.push((
                k.to_string(),
                self.value_template(value, &format!("{what}.{k}"))?,
            ));
        }
        Ok(out)
    }

    /// Header names go on an HTTP request line by line: a CR, LF or NUL in one would end the
    /// header early or inject another one.
    pub(super) fn check_headers(&self, item: &Item, place: &str) -> Result<(), ManifestError> {
        let Some(t) = item.as_table_like() else {
            return Ok(());
        };
        let bad = |s: &str| s.contains(['\n', '\r', '\0']);
        for (k, _) in t.iter() {
            if bad(k) || k.is_empty() {
                let offset = t
                    .key(k)
                    .and_then(|key| key.span())
                    .map(|s| s.start)
                    .unwrap_or(0);
                return Err(self.err_at(
                    offset,
                    format!("{place}: a header name in `headers` is empty or contains a line break or NUL character, which no HTTP header name can hold; rename it"),
                ));
            }
        }
        Ok(())
    }

    pub(super) fn table_keys<'t>(
        &self,
        item: &'t Item,
        allowed: &[&str],
        place: &str,
    ) -> Result<&'t dyn toml_edit::TableLike, ManifestError> {
        let t = item
            .as_table_like()
            .ok_or_else(|| self.err_item(item, format!("{place} must be a table")))?;
        for (k, _) in t.iter() {
            self.check_key(t.key(k), k, allowed, &format!("in {place}"))?;
        }
        Ok(t)
    }

    pub(super) fn server(&self, name: &str, item: &Item) -> Result<Server, ManifestError> {
        let place = format!("server `{name}`");
        let t = self.table_keys(item, SERVER_KEYS, &place)?;
        let transport = match (t.get("command"), t.get("url")) {
            (Some(_), Some(url)) => {
                return Err(self.err_item(
                    url,
                    format!("{place} has both `command` and `url`; a server is either local (`command`) or remote (`url`)"),
                ));
            }
            (None, None) => {
                return Err(self.err_item(
                    item,
                    format!(
                        "{place} needs either `command` (a local server) or `url` (a remote server)"
                    ),
                ));
            }
            (Some(cmd), None) => {
                for k in ["headers", "transport"] {
                    if let Some(i) = t.get(k) {
                        return Err(self.err_item(
                            i,
                            format!("{place} is local (`command`), so `{k}` does not apply; it belongs to remote servers"),
                        ));
                    }
                }
                let command = self.template(cmd, "command")?;
                if command.raw.trim().is_empty() {
                    return Err(self.err_item(cmd, format!("{place}: `command` is empty")));
                }
                if command.raw.contains('\0') {
                    return Err(self.err_item(cmd, format!("{place}: `command` contains a NUL character, which no program name or argument can hold; remove it")));
                }
                let args = match t.get("args") {
                    Some(a) => {
                        let arr = a.as_array().ok_or_else(|| {
                            self.err_item(a, "`args` must be an array of strings")
                        })?;
                        arr.iter()
                            .map(|v| {
                                let t = self.value_template(v, "args")?;
                                if t.raw.contains('\0') {
                                    return Err(self.err_value(v, format!("{place}: an element of `args` contains a NUL character, which no program argument can hold; remove it")));
                                }
                                Ok(t)
                            })
                            .collect::<Result<Vec<_>, _>>()?
                    }
                    None => Vec::new(),
                };
                let env = match t.get("env") {
                    Some(e) => self.template_map(e, "env")?,
                    None => Vec::new(),
                };
                let cwd = t.get("cwd").map(|c| self.template(c, "cwd")).transpose()?;
                let env_file = t
                    .get("env_file")
                    .map(|c| self.template(c, "env_file"))
                    .transpose()?;
                Transport::Stdio {
                    command,
                    args,
                    env,
                    cwd,
                    env_file,
                }
            }
            (None, Some(url_item)) => {
                for k in ["args", "env", "cwd", "env_file"] {
                    if let Some(i) = t.get(k) {
                        return Err(self.err_item(
                            i,
                            format!("{place} is remote (`url`), so `{k}` does not apply; it belongs to local servers"),
                        ));
                    }
                }
                let url = self.template(url_item, "url")?;
                if url.raw.contains(['\n', '\r', '\0']) {
                    return Err(self.err_item(
                        url_item,
                        format!("{place}: `url` contains a line break or NUL character, which no URL can hold; remove it"),
                    ));
                }
                let lit = url.raw.trim_start();
                if !(lit.starts_with("http://")
                    || lit.starts_with("https://")
                    || lit.starts_with("${"))
                {
                    return Err(self.err_item(
                        url_item,
                        format!("{place}: `url` must start with `http://` or `https://`"),
                    ));
                }
                let headers = match t.get("headers") {
                    Some(h) => {
                        let headers = self.template_map(h, "headers")?;
                        self.check_headers(h, &place)?;
                        headers
                    }
                    None => Vec::new(),
                };
                let kind = match t.get("transport") {
                    None => RemoteKind::Http,
                    Some(i) => match self.string(i, "transport")?.as_str() {
                        "http" => RemoteKind::Http,
                        "sse" => RemoteKind::Sse,
                        other => {
                            return Err(self.err_item(
                                i,
                                format!("{place}: transport `{other}` is not known; use \"http\" (streamable HTTP) or \"sse\""),
                            ));
                        }
                    },
                };
                Transport::Remote { url, headers, kind }
            }
        };
        let tools = match t.get("tools") {
            Some(i) => {
                let list = self.string_list(i, "tools")?;
                let mut seen = BTreeSet::new();
                for tool in &list {
                    if tool.is_empty() || !seen.insert(tool.as_str()) {
                        return Err(self.err_item(
                            i,
                            format!("{place}: `tools` lists `{tool}` twice or an empty name"),
                        ));
                    }
                }
                Some(list)
            }
            None => None,
        };
        let enabled = self.enabled(t.get("enabled"))?;
        let checks = self.probe_checks(t, &place)?;
        Ok(Server {
            name: name.to_string(),
            transport,
            tools,
            enabled,
            checks,
        })
    }

    /// `tool_digests` (names to `sha256:` and 64 lowercase hex digits) and `min_version` (a
    /// semantic version).
    fn probe_checks(
        &self,
        t: &dyn toml_edit::TableLike,
        place: &str,
    ) -> Result<crate::server::ProbeChecks, ManifestError> {
        let tool_digests = match t.get("tool_digests") {
            Some(i) => {
                let table = i.as_table_like().ok_or_else(|| {
                    self.err_item(
                        i,
                        format!("{place}: `tool_digests` must be a table, e.g. `tool_digests = {{ search = \"sha256:…\" }}`"),
                    )
                })?;
                let mut map = std::collections::BTreeMap::new();
                for (k, v) in table.iter() {
                    let digest = v.as_str().filter(|d| {
                        d.strip_prefix("sha256:").is_some_and(|h| {
                            h.len() == 64
                                && h.bytes()
                                    .all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b))
                        })
                    });
                    let Some(digest) = digest else {
                        return Err(self.err_item(
                            v,
                            format!("{place}: `tool_digests.{k}` must be \"sha256:\" and 64 lowercase hex digits (as `mcpconf probe --write-pins` writes it)"),
                        ));
                    };
                    if k.is_empty() {
                        return Err(self.err_item(
                            v,
                            format!("{place}: `tool_digests` has an empty tool name"),
                        ));
                    }
                    map.insert(k.to_string(), digest.to_string());
                }
                Some(map)
            }
            None => None,
        };
        let min_version = match t.get("min_version") {
            Some(i) => {
                let v = self.string(i, "min_version")?;
                if crate::text::semver::SemVer::parse(&v).is_none() {
                    return Err(self.err_item(
                        i,
                        format!(
                            "{place}: `min_version` must be a semantic version such as \"0.35.1\""
                        ),
                    ));
                }
                Some(v)
            }
            None => None,
        };
        Ok(crate::server::ProbeChecks {
            tool_digests,
            min_version,
        })
    }

    pub(super) fn target(
        &self,
        t: &toml_edit::Table,
        servers: &[Server],
    ) -> Result<Target, ManifestError> {
        let offset = t.span().map(|s| s.start).unwrap_or(0);
        let at = line_col(self.text, offset);
        for (k, _) in t.iter() {
            self.check_key(t.key(k), k, TARGET_KEYS, "in `[[targets]]`")?;
        }
        let client_item = t.get("client").ok_or_else(|| {
            self.err_at(
                offset,
                format!(
                    "a `[[targets]]` entry has no `client`; use one of {}",
                    list(&self.names.client_ids())
                ),
            )
        })?;
        let client = self.string(client_item, "client")?;
        let Some(d) = self.names.client(&client) else {
            let ids = self.names.client_ids();
            let hint = match closest(&client, ids.iter().copied()) {
                Some(c) => format!("did you mean `{c}`?"),
                None => format!("known clients: {}", list(&ids)),
            };
            return Err(self.err_item(client_item, format!("unknown client `{client}`; {hint}")));
        };
        let scope = match t.get("scope") {
            Some(i) => {
                let s = self.string(i, "scope")?;
                if !d.scopes.contains(&s.as_str()) {
                    return Err(self.err_item(
                        i,
                        format!(
                            "client `{client}` has no scope `{s}`; its scopes are {}",
                            list(&d.scopes)
                        ),
                    ));
                }
                Some(s)
            }
            None => None,
        };
        let path = t.get("path").map(|i| self.string(i, "path")).transpose()?;
        if let (Some(p), Some(i)) = (&path, t.get("path"))
            && p.trim().is_empty()
        {
            return Err(self.err_item(i, "`path` is empty"));
        }
        if d.requires_path && path.is_none() {
            return Err(self.err_at(
                offset,
                format!("client `{client}` has no default file; give the target a `path`"),
            ));
        }
        let disable = self.disable(t, &d, &client, scope.as_deref())?;
        let target_servers = match t.get("servers") {
            Some(i) => {
                let names = self.string_list(i, "servers")?;
                if names.is_empty() && disable.is_empty() {
                    return Err(self.err_item(
                        i,
                        "`servers = []` selects nothing; remove the key to select every server, or name some",
                    ));
                }
                for n in &names {
                    if !servers.iter().any(|s| &s.name == n) {
                        let hint = closest(n, servers.iter().map(|s| s.name.as_str()))
                            .map(|c| format!("; did you mean `{c}`?"))
                            .unwrap_or_default();
                        return Err(self.err_item(
                            i,
                            format!("target names server `{n}`, which is not declared{hint}"),
                        ));
                    }
                }
                if let Some(n) = names.iter().find(|n| disable.contains(n)) {
                    return Err(self.err_item(
                        t.get("disable").unwrap_or(i),
                        format!("`disable` names server `{n}`, which this target also writes; a target either writes a server or turns the user's own off"),
                    ));
                }
                Some(names)
            }
            None => {
                if let Some(n) = disable
                    .iter()
                    .find(|n| servers.iter().any(|s| &s.name == *n))
                {
                    return Err(self.err_item(
                        t.get("disable").unwrap_or(client_item),
                        format!("`disable` names server `{n}`, which this target also writes (it writes every server of the manifest); give the target `servers = [...]` without it, or remove it from `disable`"),
                    ));
                }
                None
            }
        };
        let create = match t.get("create") {
            Some(i) => i
                .as_bool()
                .ok_or_else(|| self.err_item(i, "`create` must be true or false"))?,
            None => true,
        };
        // A client without trust or grants refuses it at plan time (`cannot-express`).
        let auto_approve = match t.get("auto_approve") {
            Some(i) => i
                .as_bool()
                .ok_or_else(|| self.err_item(i, "`auto_approve` must be true or false"))?,
            None => false,
        };
        let client_version = match t.get("client_version") {
            Some(i) => {
                let v = i.as_str().filter(|v| valid_version(v)).ok_or_else(|| {
                    self.err_item(
                        i,
                        "`client_version` must be a version of numbers and dots, such as \"1.17.4\"",
                    )
                })?;
                Some(v.to_string())
            }
            None => None,
        };
        let enabled = self.enabled(t.get("enabled"))?;
        let exclude = match t.get("exclude") {
            Some(i) => {
                let list = self.string_list(i, "exclude")?;
                if list.iter().any(|p| p.trim().is_empty()) {
                    return Err(self.err_item(i, "`exclude` holds an empty pattern"));
                }
                list
            }
            None => Vec::new(),
        };
        Ok(Target {
            client,
            scope,
            path,
            servers: target_servers,
            create,
            auto_approve,
            client_version,
            enabled,
            exclude,
            disable,
            at,
        })
    }

    /// `disable = ["NAME", …]`: valid server names, each once, on a project-scope target.
    fn disable(
        &self,
        t: &toml_edit::Table,
        d: &ClientFacts,
        client: &str,
        scope: Option<&str>,
    ) -> Result<Vec<String>, ManifestError> {
        let Some(i) = t.get("disable") else {
            return Ok(Vec::new());
        };
        let names = self.string_list(i, "disable")?;
        if names.is_empty() {
            return Err(self.err_item(
                i,
                "`disable = []` turns nothing off; remove the key, or name the servers to turn off",
            ));
        }
        let mut seen = BTreeSet::new();
        for n in &names {
            if !super::valid_server_name(n) || !seen.insert(n.as_str()) {
                return Err(self.err_item(
                    i,
                    format!(
                        "`disable` lists `{n}` twice or a name that is not a valid server name"
                    ),
                ));
            }
        }
        let scope = scope.or_else(|| d.scopes.first().copied()).unwrap_or("");
        if !d.project_scopes.contains(&scope) {
            let ps = if d.project_scopes.is_empty() {
                format!("client `{client}` has none")
            } else {
                format!("client `{client}` has {}", list(&d.project_scopes))
            };
            return Err(self.err_item(
                i,
                format!("`disable` turns servers off for one project, so it belongs on a project-scope target, and this target's scope is `{scope}` ({ps}); set `scope` to a project scope"),
            ));
        }
        Ok(names)
    }

    /// `enabled = true | false` on a server or a target.
    fn enabled(&self, item: Option<&Item>) -> Result<Option<bool>, ManifestError> {
        item.map(|i| {
            i.as_bool()
                .ok_or_else(|| self.err_item(i, "`enabled` must be true or false"))
        })
        .transpose()
    }

    pub(super) fn lint(&self, item: &Item) -> Result<LintSettings, ManifestError> {
        let t = self.table_keys(item, LINT_KEYS, "`[lint]`")?;
        let mut out = LintSettings::default();
        let mut seen: Vec<String> = Vec::new();
        for (key, list) in [
            ("deny", &mut out.deny),
            ("warn", &mut out.warn),
            ("allow", &mut out.allow),
        ] {
            let Some(i) = t.get(key) else { continue };
            for rule in self.string_list(i, &format!("lint.{key}"))? {
                self.names
                    .check_lint_rule(&rule)
                    .map_err(|m| self.err_item(i, format!("`lint.{key}`: {m}")))?;
                if seen.contains(&rule) {
                    return Err(self.err_item(
                        i,
                        format!("`[lint]` names rule `{rule}` more than once; give each rule one severity"),
                    ));
                }
                seen.push(rule.clone());
                list.push(rule);
            }
        }
        Ok(out)
    }

    /// `[profiles.NAME] servers = [...]` (each naming declared servers) and the active
    /// profile: `chosen` (`--profile`), else `profile = "NAME"`; either must name a profile.
    #[allow(clippy::type_complexity)]
    pub(super) fn profiles(
        &self,
        table: &toml_edit::Table,
        servers: &[Server],
        chosen: Option<&str>,
    ) -> Result<(Vec<(String, Vec<String>)>, Option<String>), ManifestError> {
        let mut out: Vec<(String, Vec<String>)> = Vec::new();
        if let Some(item) = table.get("profiles") {
            let t = item.as_table_like().ok_or_else(|| {
                self.err_item(
                    item,
                    "`profiles` must be a table of profiles, e.g. `[profiles.review]`",
                )
            })?;
            for (name, pitem) in t.iter() {
                let pt = pitem.as_table_like().ok_or_else(|| {
                    self.err_item(
                        pitem,
                        format!("profile `{name}` must be a table with `servers = [...]`"),
                    )
                })?;
                if let Some((k, _)) = pt.iter().find(|(k, _)| *k != "servers") {
                    return Err(self.err_item(
                        pitem,
                        format!(
                            "profile `{name}`: unknown key `{k}` (a profile has `servers` only)"
                        ),
                    ));
                }
                let list = pt.get("servers").and_then(Item::as_array).ok_or_else(|| {
                    self.err_item(
                        pitem,
                        format!("profile `{name}` needs `servers = [\"NAME\", …]`"),
                    )
                })?;
                let mut names = Vec::new();
                for v in list.iter() {
                    let Some(n) = v.as_str() else {
                        return Err(self.err_item(
                            pitem,
                            format!("profile `{name}`: `servers` holds server names (strings)"),
                        ));
                    };
                    if !servers.iter().any(|s| s.name == n) {
                        let hint = crate::text::closest(n, servers.iter().map(|s| s.name.as_str()))
                            .map(|c| format!("; did you mean `{c}`?"))
                            .unwrap_or_default();
                        return Err(self.err_item(pitem, format!("profile `{name}` names server `{n}`, which the manifest does not declare{hint}")));
                    }
                    names.push(n.to_string());
                }
                out.push((name.to_string(), names));
            }
        }
        let default = match table.get("profile") {
            Some(i) => Some((self.string(i, "profile")?, Some(i))),
            None => None,
        };
        let active = match (chosen, default) {
            (Some(c), _) => Some((c.to_string(), None)),
            (None, d) => d,
        };
        if let Some((name, item)) = &active
            && !out.iter().any(|(n, _)| n == name)
        {
            let known: Vec<String> = out.iter().map(|(n, _)| format!("`{n}`")).collect();
            let message = format!(
                "there is no profile `{name}`; {}",
                if known.is_empty() {
                    "the manifest declares none (`[profiles.NAME] servers = [...]`)".to_string()
                } else {
                    format!("the manifest declares {}", known.join(", "))
                }
            );
            return Err(match item {
                Some(i) => self.err_item(i, message),
                None => self.err_at(0, message),
            });
        }
        Ok((out, active.map(|(n, _)| n)))
    }

    pub(super) fn legacy(&self, t: &toml_edit::Table) -> Result<Legacy, ManifestError> {
        let offset = t.span().map(|s| s.start).unwrap_or(0);
        for (k, _) in t.iter() {
            self.check_key(t.key(k), k, LEGACY_KEYS, "in `[[legacy]]`")?;
        }
        let name_item = t
            .get("name")
            .ok_or_else(|| self.err_at(offset, "a `[[legacy]]` entry has no `name`"))?;
        let name = self.string(name_item, "name")?;
        let entry_item = t
            .get("entry")
            .ok_or_else(|| self.err_at(offset, format!("legacy shape `{name}` has no `entry`")))?;
        let entry = crate::tomldoc::item_to_json(entry_item).ok_or_else(|| {
            self.err_item(entry_item, "`entry` must be a table (the exact JSON entry)")
        })?;
        if !entry.is_object() {
            return Err(self.err_item(entry_item, "`entry` must be a table (the exact JSON entry)"));
        }
        let grants = match t.get("grants") {
            Some(i) => self.string_list(i, "grants")?,
            None => Vec::new(),
        };
        Ok(Legacy {
            name,
            entry,
            grants,
        })
    }
}

fn list(items: &[&str]) -> String {
    items
        .iter()
        .map(|s| format!("`{s}`"))
        .collect::<Vec<_>>()
        .join(", ")
}
