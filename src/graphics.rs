//! What the figures and the viewer share: the colours, the text font, and the one PNG writer
//! (`stickslip plot`, the viewer's screenshots, `sweep collect`'s map and the examples' figures
//! all write through [`write_png`], which marks each figure as stickslip's and never replaces a
//! file it did not write).

use std::path::{Path, PathBuf};
/// An sRGB colour, 8 bits a channel.
pub type Rgb = [u8; 3];

/// Background of the whole window.
pub const BACKGROUND: Rgb = [246, 244, 238];
/// Background of the scene view (the sky above the slope).
pub const SKY: Rgb = [252, 252, 250];
/// The half-space under the slope.
pub const GROUND: Rgb = [226, 214, 190];
/// The slope line (and the floor of the bounce scene).
pub const SLOPE: Rgb = [120, 72, 28];
/// The springs of the mass-spring mesh.
pub const MESH: Rgb = [40, 90, 200];
/// A node out of contact (not in the friction set).
pub const NODE_FREE: Rgb = [60, 60, 70];
/// A node in the friction set (μλ > 0) whose tangential speed is under ε_v: sticking.
pub const NODE_STICKING: Rgb = [20, 160, 60];
/// A node in the friction set sliding (tangential speed ≥ ε_v).
pub const NODE_SLIDING: Rgb = [230, 120, 0];
/// Barrier-force arrows.
pub const BARRIER_ARROW: Rgb = [170, 40, 170];
/// Friction-force arrows.
pub const FRICTION_ARROW: Rgb = [0, 160, 190];
/// A scene's contact pair in the static-to-kinetic transition (between ε_v and 2 ε_v; the
/// sticking and sliding ones are [`NODE_STICKING`] and [`NODE_SLIDING`]).
pub const CONTACT_TRANSITION: Rgb = [205, 175, 0];
/// The marks a belt (a half-space with a surface velocity) carries along with it.
pub const BELT_MARK: Rgb = [200, 30, 70];
/// A scene's drivers: springs, prescribed motions, forces.
pub const DRIVER: Rgb = [100, 60, 160];
/// Grid lines of the world scale.
pub const GRID: Rgb = [222, 222, 228];
/// Text.
pub const TEXT: Rgb = [30, 30, 36];
/// A lamp while its check holds (seed 001's `lamp_colour(true)`: 0.15, 0.6, 0.3).
pub const LAMP_GREEN: Rgb = [38, 153, 77];
/// A lamp once its check has failed (seed 001's `lamp_colour(false)`: 0.75, 0.15, 0.15).
pub const LAMP_RED: Rgb = [191, 38, 38];
/// A lamp whose check has not yet been judged (too few records so far).
pub const LAMP_PENDING: Rgb = [150, 150, 150];

/// One colour a case (or a ball), in load order, cycling; shared with `stickslip plot`.
pub const CASE_COLOURS: [Rgb; 3] = [[213, 84, 26], [0, 114, 189], [70, 160, 40]];

/// The colour of the `i`-th loaded case.
pub fn case_colour(i: usize) -> Rgb {
    CASE_COLOURS[i % CASE_COLOURS.len()]
}

/// Where DejaVu Sans is looked for, in order, after `$STICKSLIP_FONT` (Debian's
/// `fonts-dejavu-core` first).
pub const FONT_PATHS: [&str; 4] = [
    "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf",
    "/usr/share/fonts/TTF/DejaVuSans.ttf",
    "/usr/share/fonts/dejavu/DejaVuSans.ttf",
    "/usr/local/share/fonts/DejaVuSans.ttf",
];

/// The environment variable naming a TTF file to use instead of [`FONT_PATHS`].
pub const FONT_ENV: &str = "STICKSLIP_FONT";

/// The text font: the file and its bytes, if one of [`FONT_ENV`] or [`FONT_PATHS`] can be read.
pub fn load_font() -> Option<(PathBuf, Vec<u8>)> {
    let env = std::env::var_os(FONT_ENV).map(PathBuf::from);
    env.into_iter()
        .chain(FONT_PATHS.iter().map(PathBuf::from))
        .find_map(|p| std::fs::read(&p).ok().map(|b| (p, b)))
}

// The mark itself lives in the simulator, which reads it back (a sweep's `map.png`).
pub use stickslip_sim::png_marker::{PNG_MARKER_KEYWORD, png_written_by};

/// Writes an 8-bit RGB PNG marked as written by `label` ([`PNG_MARKER_KEYWORD`]) to a temporary
/// name beside `path`, then puts it in place: as a new file (a hard link, which fails rather than
/// replace a file that appeared meanwhile), or over a PNG that carries the same label. Anything
/// else at `path` is left as it is and the write fails with [`std::io::ErrorKind::AlreadyExists`].
/// A failure removes the temporary file; the caller names `path` in its error.
pub fn write_png(
    path: &Path,
    rgb: &[u8],
    width: u32,
    height: u32,
    label: &str,
) -> std::io::Result<()> {
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .ok_or_else(|| std::io::Error::other("not a file name"))?;
    let tmp = path.with_file_name(format!(".{name}.partial-{}", std::process::id()));
    let write = || -> std::io::Result<()> {
        let file = std::fs::File::create(&tmp)?;
        let mut enc = png::Encoder::new(std::io::BufWriter::new(file), width, height);
        enc.set_color(png::ColorType::Rgb);
        enc.set_depth(png::BitDepth::Eight);
        enc.add_text_chunk(PNG_MARKER_KEYWORD.to_string(), label.to_string())
            .map_err(std::io::Error::other)?;
        let mut writer = enc.write_header().map_err(std::io::Error::other)?;
        writer
            .write_image_data(rgb)
            .map_err(std::io::Error::other)?;
        writer.finish().map_err(std::io::Error::other)?;
        publish(&tmp, path, label)
    };
    write().inspect_err(|_| {
        let _ = std::fs::remove_file(&tmp);
    })
}

/// Puts the finished `tmp` at `path`: a new name, or over a PNG labelled `label` (see
/// [`write_png`]).
fn publish(tmp: &Path, path: &Path, label: &str) -> std::io::Result<()> {
    match std::fs::symlink_metadata(path) {
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            match std::fs::hard_link(tmp, path) {
                Ok(()) => std::fs::remove_file(tmp),
                Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => Err(e),
                // A file system without hard links: the rename, checked just above.
                Err(_) => std::fs::rename(tmp, path),
            }
        }
        Err(e) => Err(e),
        Ok(_) if png_written_by(path).as_deref() == Some(label) => std::fs::rename(tmp, path),
        Ok(_) => Err(std::io::Error::new(
            std::io::ErrorKind::AlreadyExists,
            format!(
                "a file that `stickslip {label}` did not write is in the way; it was left as it is"
            ),
        )),
    }
}
