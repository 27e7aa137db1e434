//! The mark of a PNG that stickslip wrote: a text chunk whose keyword is
//! [`PNG_MARKER_KEYWORD`] and whose text names the command. The front-end's PNG writer
//! (`stickslip::graphics::write_png`) writes it; a sweep's directory (`sweep::dir`) reads it to
//! know its own `map.png` from a file someone else put there.

use std::path::Path;

/// The keyword of the PNG text chunk that marks a figure as stickslip's; its text is the label
/// of the command that wrote it (`plot`, `view`, `sweep collect`).
pub const PNG_MARKER_KEYWORD: &str = "stickslip-output";

/// The label of the command that wrote the PNG at `path` (its [`PNG_MARKER_KEYWORD`] text
/// chunk), if `path` is a plain file (not a link) holding a PNG that carries one.
pub fn png_written_by(path: &Path) -> Option<String> {
    let meta = std::fs::symlink_metadata(path).ok()?;
    if !meta.is_file() {
        return None;
    }
    let file = std::fs::File::open(path).ok()?;
    let reader = png::Decoder::new(std::io::BufReader::new(file))
        .read_info()
        .ok()?;
    reader
        .info()
        .uncompressed_latin1_text
        .iter()
        .find(|c| c.keyword == PNG_MARKER_KEYWORD)
        .map(|c| c.text.clone())
}
