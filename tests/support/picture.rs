//! Reading the PNGs the viewer and `plot` write, for the tests that look at their pixels.
//! Included by path (`#[path = "support/picture.rs"] mod picture;`) so that each test binary
//! takes only this, not the GPU helpers of `tests/common`. Not every binary uses every method.
#![allow(dead_code)]

use std::io::BufReader;
use std::path::Path;

/// An 8-bit RGB colour.
pub type Rgb = [u8; 3];

/// A decoded image, 8-bit RGB, row-major.
pub struct Picture {
    /// Width, px.
    pub w: usize,
    /// Height, px.
    pub h: usize,
    /// 3 bytes a pixel.
    pub rgb: Vec<u8>,
}

impl Picture {
    /// Decodes an RGB or RGBA PNG (alpha dropped); panics naming the file if it is not one.
    pub fn read(path: &Path) -> Picture {
        let file = std::fs::File::open(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        let mut reader = png::Decoder::new(BufReader::new(file))
            .read_info()
            .unwrap_or_else(|e| panic!("{}: not a PNG: {e}", path.display()));
        let mut buf = vec![0; reader.output_buffer_size()];
        let info = reader
            .next_frame(&mut buf)
            .unwrap_or_else(|e| panic!("{}: no frame: {e}", path.display()));
        let channels = match info.color_type {
            png::ColorType::Rgb => 3,
            png::ColorType::Rgba => 4,
            other => panic!("{}: unexpected colour type {other:?}", path.display()),
        };
        let rgb = buf[..info.buffer_size()]
            .chunks_exact(channels)
            .flat_map(|p| [p[0], p[1], p[2]])
            .collect();
        Picture {
            w: info.width as usize,
            h: info.height as usize,
            rgb,
        }
    }

    /// Whether pixel (x, y) is within `tol` of `c` in every channel (false outside the image).
    pub fn is(&self, x: i32, y: i32, c: Rgb, tol: i32) -> bool {
        if x < 0 || y < 0 || x as usize >= self.w || y as usize >= self.h {
            return false;
        }
        let i = 3 * (y as usize * self.w + x as usize);
        (0..3).all(|k| (self.rgb[i + k] as i32 - c[k] as i32).abs() <= tol)
    }

    /// Pixels within `tol` of `c`.
    pub fn count(&self, c: Rgb, tol: i32) -> usize {
        self.rgb
            .chunks_exact(3)
            .filter(|p| (0..3).all(|k| (p[k] as i32 - c[k] as i32).abs() <= tol))
            .count()
    }
}
