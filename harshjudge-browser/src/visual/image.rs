//! Decoded RGBA images, read from and written to PNG with the `png` crate.

use std::fmt;
use std::io::Cursor;
use std::sync::Arc;

use super::{MAX_PIXELS, Size};

/// Why bytes or a pixel buffer could not become an [`Image`].
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum ImageError {
    /// The bytes are not a PNG the decoder can read (not a PNG at all, truncated, corrupt).
    #[error("not a readable PNG ({reason}); it must be a PNG file, as a screenshot writes")]
    NotPng {
        /// What the decoder said.
        reason: String,
    },
    /// The image has no pixels.
    #[error("it is {width}x{height}: an image needs at least one pixel in each direction")]
    Empty {
        /// Width in pixels.
        width: u32,
        /// Height in pixels.
        height: u32,
    },
    /// The image is larger than [`MAX_PIXELS`]; it is refused before anything is allocated.
    #[error(
        "it is {width}x{height} ({} megapixels), more than the limit of {} megapixels: compare \
         a smaller screenshot (the viewport or one element instead of the full page)",
        megapixels(*width, *height),
        MAX_PIXELS / 1_000_000
    )]
    TooLarge {
        /// Width in pixels.
        width: u32,
        /// Height in pixels.
        height: u32,
    },
    /// A raw pixel buffer whose length is not `width × height × 4`.
    #[error(
        "{len} bytes of RGBA pixels for {width}x{height}: expected {width} × {height} × 4 bytes"
    )]
    BadLength {
        /// Width in pixels.
        width: u32,
        /// Height in pixels.
        height: u32,
        /// The buffer's length in bytes.
        len: usize,
    },
}

fn megapixels(width: u32, height: u32) -> String {
    format!("{:.1}", width as f64 * height as f64 / 1e6)
}

/// An image as 8-bit RGBA pixels, row by row, top to bottom, not premultiplied.
///
/// Cheap to clone: the pixels are shared and copied only when a clone is changed
/// (by [`compare_images`](super::compare_images) painting masks, for example).
#[derive(Clone, PartialEq, Eq)]
pub struct Image {
    width: u32,
    height: u32,
    rgba: Arc<Vec<u8>>,
}

impl fmt::Debug for Image {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Image({}x{} RGBA)", self.width, self.height)
    }
}

/// Refuses sizes that are empty or above [`MAX_PIXELS`].
fn check_size(width: u32, height: u32) -> Result<(), ImageError> {
    if width == 0 || height == 0 {
        return Err(ImageError::Empty { width, height });
    }
    if width as u64 * height as u64 > MAX_PIXELS {
        return Err(ImageError::TooLarge { width, height });
    }
    Ok(())
}

/// The size a PNG declares in its header, when the bytes start like a PNG.
fn declared_size(bytes: &[u8]) -> Option<(u32, u32)> {
    const SIGNATURE: [u8; 8] = [0x89, b'P', b'N', b'G', b'\r', b'\n', 0x1a, b'\n'];
    if bytes.len() < 24 || bytes[..8] != SIGNATURE || &bytes[12..16] != b"IHDR" {
        return None;
    }
    let be =
        |at: usize| u32::from_be_bytes([bytes[at], bytes[at + 1], bytes[at + 2], bytes[at + 3]]);
    Some((be(16), be(20)))
}

impl Image {
    /// An image from raw RGBA pixels (`width × height × 4` bytes, row by row).
    pub fn from_rgba(width: u32, height: u32, rgba: Vec<u8>) -> Result<Image, ImageError> {
        check_size(width, height)?;
        if rgba.len() as u64 != width as u64 * height as u64 * 4 {
            return Err(ImageError::BadLength {
                width,
                height,
                len: rgba.len(),
            });
        }
        Ok(Image {
            width,
            height,
            rgba: Arc::new(rgba),
        })
    }

    /// Decodes a PNG of any colour type and bit depth (palette, grey, RGB, with or
    /// without alpha, 16-bit reduced to 8-bit) into RGBA.
    ///
    /// The declared size is checked before any pixel is allocated: an image with no
    /// pixels or more than [`MAX_PIXELS`] is refused with its size in the error.
    /// An animated PNG gives its default image.
    pub fn decode_png(bytes: &[u8]) -> Result<Image, ImageError> {
        if let Some((width, height)) = declared_size(bytes) {
            check_size(width, height)?;
        }
        let not_png = |e: png::DecodingError| ImageError::NotPng {
            reason: e.to_string(),
        };
        // The decoder's own allocations (rows, chunks) are bounded too; the output
        // buffer is ours and bounded by `check_size`.
        let limits = png::Limits { bytes: 64 << 20 };
        let mut decoder = png::Decoder::new_with_limits(Cursor::new(bytes), limits);
        decoder.set_transformations(png::Transformations::normalize_to_color8());
        let mut reader = decoder.read_info().map_err(not_png)?;
        let (width, height) = reader.info().size();
        check_size(width, height)?;
        let len = reader
            .output_buffer_size()
            .ok_or(ImageError::TooLarge { width, height })?;
        let mut buf = vec![0; len];
        let frame = reader.next_frame(&mut buf).map_err(not_png)?;
        let (width, height) = (frame.width, frame.height);
        check_size(width, height)?;
        let pixels = width as usize * height as usize;
        let rows = buf.chunks_exact(frame.line_size).take(height as usize);
        let rgba = match frame.color_type {
            png::ColorType::Rgba if frame.line_size == width as usize * 4 => {
                buf.truncate(pixels * 4);
                buf
            }
            color => {
                let mut out = Vec::with_capacity(pixels * 4);
                for row in rows {
                    let Some(row) = row.get(..width as usize * color.samples()) else {
                        return Err(ImageError::NotPng {
                            reason: "image rows shorter than its header says".into(),
                        });
                    };
                    match color {
                        png::ColorType::Rgba => out.extend_from_slice(row),
                        png::ColorType::Rgb => {
                            for p in row.chunks_exact(3) {
                                out.extend_from_slice(&[p[0], p[1], p[2], 255]);
                            }
                        }
                        png::ColorType::GrayscaleAlpha => {
                            for p in row.chunks_exact(2) {
                                out.extend_from_slice(&[p[0], p[0], p[0], p[1]]);
                            }
                        }
                        png::ColorType::Grayscale => {
                            for &g in row {
                                out.extend_from_slice(&[g, g, g, 255]);
                            }
                        }
                        png::ColorType::Indexed => {
                            // EXPAND turns palettes into RGB(A); never reached.
                            return Err(ImageError::NotPng {
                                reason: "palette image left unexpanded".into(),
                            });
                        }
                    }
                }
                out
            }
        };
        if rgba.len() != pixels * 4 {
            return Err(ImageError::NotPng {
                reason: "image data shorter than its header says".into(),
            });
        }
        Ok(Image {
            width,
            height,
            rgba: Arc::new(rgba),
        })
    }

    /// Encodes the image as an 8-bit RGBA PNG (fast compression: diff images are
    /// written on failures, where time matters more than a few kilobytes).
    pub fn encode_png(&self) -> Vec<u8> {
        let mut out = Vec::new();
        let mut encoder = png::Encoder::new(&mut out, self.width, self.height);
        encoder.set_color(png::ColorType::Rgba);
        encoder.set_depth(png::BitDepth::Eight);
        encoder.set_compression(png::Compression::Fast);
        // Writing a checked RGBA buffer of the declared size into a Vec cannot fail.
        let mut writer = encoder.write_header().expect("PNG header of a valid image");
        writer
            .write_image_data(&self.rgba)
            .expect("PNG data of a valid image");
        writer.finish().expect("PNG end of a valid image");
        out
    }

    /// Width in pixels.
    pub fn width(&self) -> u32 {
        self.width
    }

    /// Height in pixels.
    pub fn height(&self) -> u32 {
        self.height
    }

    /// Width and height.
    pub fn size(&self) -> Size {
        Size {
            width: self.width,
            height: self.height,
        }
    }

    /// The pixels: `width × height × 4` bytes, RGBA, row by row.
    pub fn rgba(&self) -> &[u8] {
        &self.rgba
    }

    /// The pixels for writing (copied first when they are shared with a clone).
    pub(crate) fn rgba_mut(&mut self) -> &mut [u8] {
        Arc::make_mut(&mut self.rgba).as_mut_slice()
    }
}
