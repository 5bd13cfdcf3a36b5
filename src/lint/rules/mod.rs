//! The rules, by family. The file driver that runs them is `lint::run`.

pub(in crate::lint) mod drift;
pub(super) mod duplicates;
pub(super) mod entry;
pub(super) mod grants;
pub(super) mod launch;
pub(super) mod placeholders;
