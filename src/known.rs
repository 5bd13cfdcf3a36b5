//! What mcpconf knows by name: its clients (`dialect`) and its lint rules (`lint`), as the
//! [`Vocabulary`] a manifest is checked against. It sits above both, so the manifest (the model)
//! imports neither.
//!
//! ```
//! use mcpconf::known::Known;
//! use mcpconf::manifest;
//!
//! let text = "owner = \"o\"\n[servers.a]\ncommand = \"x\"\n[[targets]]\nclient = \"cursr\"\n";
//! let e = manifest::parse(text, &Known).unwrap_err();
//! assert_eq!(e.message, "unknown client `cursr`; did you mean `cursor`?");
//! ```

use crate::dialect;
use crate::manifest::{ClientFacts, Vocabulary};

/// Every client in [`dialect::ALL`] and every lint rule.
#[derive(Debug, Clone, Copy, Default)]
pub struct Known;

impl Vocabulary for Known {
    fn client_ids(&self) -> Vec<&'static str> {
        dialect::ids()
    }

    fn client(&self, id: &str) -> Option<ClientFacts> {
        dialect::lookup_client(id).map(|d| ClientFacts {
            scopes: d.scopes().iter().map(|s| s.name).collect(),
            requires_path: d.requires_path(),
            auto_approve: d.supports_auto_approve(),
            project_scopes: d.project_scopes(),
        })
    }

    fn check_lint_rule(&self, id: &str) -> Result<(), crate::diag::Error> {
        crate::lint::check_rule(id).map(|_| ())
    }
}
