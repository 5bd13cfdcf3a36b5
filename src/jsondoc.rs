//! TEMPORARY STUB — replaced by the real splice editor.
#![allow(missing_docs, dead_code)]
use serde_json::Value;
#[derive(Debug, Clone, Copy)]
pub enum Syntax {
    Json,
    JsonComments,
    Jsonc,
}
#[derive(Debug, Clone, PartialEq)]
pub struct ReadError {
    pub code: &'static str,
    pub message: String,
    pub line: usize,
    pub column: usize,
}
#[derive(Debug, Clone, PartialEq)]
pub struct EditError {
    pub code: &'static str,
    pub message: String,
    pub line: usize,
    pub column: usize,
}
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub enum UndoHint {
    X,
}
#[derive(Debug, Clone)]
pub struct JsonDoc {
    v: Value,
}
impl JsonDoc {
    pub fn parse(bytes: &[u8], _s: Syntax) -> Result<JsonDoc, ReadError> {
        let v: Value = serde_json::from_slice(bytes).map_err(|e| ReadError {
            code: "parse-error",
            message: e.to_string(),
            line: e.line(),
            column: e.column(),
        })?;
        if !v.is_object() {
            return Err(ReadError {
                code: "not-an-object",
                message: "root is not an object".into(),
                line: 1,
                column: 1,
            });
        }
        Ok(JsonDoc { v })
    }
    pub fn value(&self) -> &Value {
        &self.v
    }
    pub fn get(&self, path: &[String]) -> Option<&Value> {
        let mut v = &self.v;
        for p in path {
            v = v.get(p)?;
        }
        Some(v)
    }
    pub fn upsert(
        &mut self,
        c: &[String],
        name: &str,
        value: &Value,
    ) -> Result<Vec<UndoHint>, EditError> {
        let mut v = &mut self.v;
        for p in c {
            v = v
                .as_object_mut()
                .unwrap()
                .entry(p.clone())
                .or_insert(Value::Object(Default::default()));
        }
        v.as_object_mut()
            .unwrap()
            .insert(name.into(), value.clone());
        Ok(vec![])
    }
    pub fn remove(&mut self, c: &[String], name: &str, _h: &[UndoHint]) -> Result<(), EditError> {
        let mut v = &mut self.v;
        for p in c {
            v = v.get_mut(p).unwrap();
        }
        v.as_object_mut().unwrap().remove(name);
        Ok(())
    }
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut s = serde_json::to_string_pretty(&self.v).unwrap();
        s.push('\n');
        s.into_bytes()
    }
}
