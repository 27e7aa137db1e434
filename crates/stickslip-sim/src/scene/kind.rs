//! The kind of a case file: the one registry of the systems a case file can name with its
//! top-level `kind` key. The commands dispatch on [`CaseKind`] in one place each; a kind not
//! listed here is bad input naming the key `kind` (exit 2).

use std::path::Path;

use super::case_file::{CaseError, peek_kind, read_case_file};

/// The systems stickslip runs, as named by a case file's `kind`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CaseKind {
    /// `kind = "slope_square"` (the default when `kind` is absent): the elastic square on the
    /// slope, SPEC.md §1–§4 ([`crate::scene::Scene`]).
    SlopeSquare,
    /// `kind = "rigid_ellipsoid"`: the rigid football on SE(3), SPEC.md §5
    /// (`crate::rigid::case::RigidScene`).
    RigidEllipsoid,
    /// `kind = "scene"`: bodies, obstacles and drivers in 2D, SPEC.md §7
    /// ([`crate::scene::multibody::MultibodyScene`]).
    Scene,
    /// `kind = "bounce"`: seed 001's three balls bouncing through the impulse law, SPEC.md §3
    /// ([`crate::scene::bounce::BounceCase`]).
    Bounce,
}

/// The `kind` of the square-on-slope case files (the default when `kind` is absent).
pub const SLOPE_KIND: &str = "slope_square";

/// The `kind` of the scene case files, 2D and 3D ([`crate::scene::multibody`]).
pub const SCENE_KIND: &str = "scene";

/// The `kind` of the rigid-ellipsoid case files (`crate::rigid::case`).
pub const RIGID_KIND: &str = "rigid_ellipsoid";

/// The `kind` of the bounce case files ([`crate::scene::bounce`]).
pub const BOUNCE_KIND: &str = "bounce";

impl CaseKind {
    /// Every kind, in the order the error message lists them.
    pub const ALL: [CaseKind; 4] = [
        CaseKind::SlopeSquare,
        CaseKind::RigidEllipsoid,
        CaseKind::Scene,
        CaseKind::Bounce,
    ];

    /// The value of `kind` that names this system.
    pub fn name(self) -> &'static str {
        match self {
            CaseKind::SlopeSquare => SLOPE_KIND,
            CaseKind::RigidEllipsoid => RIGID_KIND,
            CaseKind::Scene => SCENE_KIND,
            CaseKind::Bounce => BOUNCE_KIND,
        }
    }

    /// The kind named `name`, if there is one.
    pub fn from_name(name: &str) -> Option<CaseKind> {
        CaseKind::ALL.into_iter().find(|k| k.name() == name)
    }

    /// The rule an unknown `kind` breaks, listing the kinds there are.
    pub fn rule() -> String {
        let names: Vec<String> = CaseKind::ALL
            .iter()
            .map(|k| format!("\"{}\"", k.name()))
            .collect();
        format!(
            "must be one of {} (\"{SLOPE_KIND}\" when absent)",
            names.join(", ")
        )
    }

    /// The kind case-file `text` names (`path` for the message): [`CaseKind::SlopeSquare`] when
    /// it names none (or is not TOML with a string `kind`: the slope parser then says what is
    /// wrong), an error naming `kind` when it names one not in the registry.
    pub fn of_text(text: &str, path: &Path) -> Result<CaseKind, CaseError> {
        match peek_kind(text) {
            None => Ok(CaseKind::SlopeSquare),
            Some(name) => CaseKind::from_name(&name).ok_or_else(|| CaseError::Invalid {
                file: path.to_path_buf(),
                key: "kind".into(),
                rule: CaseKind::rule(),
                value: name,
            }),
        }
    }

    /// The kind of the case file at `path` (read through [`read_case_file`], so a FIFO or a
    /// directory is refused as the loaders refuse it).
    pub fn of_file(path: &Path) -> Result<CaseKind, CaseError> {
        CaseKind::of_text(&read_case_file(path)?, path)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_kind_reads_back_from_its_name_and_an_absent_kind_is_the_slope() {
        for k in CaseKind::ALL {
            assert_eq!(CaseKind::from_name(k.name()), Some(k));
            let text = format!("kind = \"{}\"\n", k.name());
            assert_eq!(CaseKind::of_text(&text, Path::new("a.toml")).unwrap(), k);
        }
        let slope = CaseKind::of_text("name = \"x\"\n", Path::new("a.toml")).unwrap();
        assert_eq!(slope, CaseKind::SlopeSquare);
    }

    #[test]
    fn an_unknown_kind_names_the_key_and_the_kinds_there_are() {
        let e = CaseKind::of_text("kind = \"cube\"\n", Path::new("a.toml")).unwrap_err();
        assert_eq!(e.key(), "kind");
        let text = e.to_string();
        for k in CaseKind::ALL {
            assert!(text.contains(k.name()), "{text}");
        }
        assert!(text.starts_with("a.toml: key `kind`"), "{text}");
    }
}
