//! A scene's dimension (SPEC.md §7: D = 2 or 3): declared by the top-level key `dimension`
//! (2 when absent, so every 2D case file reads as before). A 3D scene's vectors have three
//! components; a vector of the other dimension's length is refused by the schema, naming its
//! key.

use std::path::Path;

use crate::scene::case_file::CaseError;

/// The rule of the `dimension` key, for messages.
pub const DIMENSION_RULE: &str = "must be 2 (the default) or 3";

/// The dimension scene case-file `text` declares (`path` for messages): 2 when `dimension` is
/// absent, else its value, which must be 2 or 3. Text that is not TOML reads as 2 (the schema's
/// parser then names the syntax error).
pub fn declared_dimension(text: &str, path: &Path) -> Result<usize, CaseError> {
    let Ok(table) = toml::from_str::<toml::Table>(text) else {
        return Ok(2);
    };
    match table.get("dimension") {
        None => Ok(2),
        Some(toml::Value::Integer(2)) => Ok(2),
        Some(toml::Value::Integer(3)) => Ok(3),
        Some(other) => Err(CaseError::Invalid {
            file: path.to_path_buf(),
            key: "dimension".into(),
            rule: DIMENSION_RULE.into(),
            value: other.to_string(),
        }),
    }
}
