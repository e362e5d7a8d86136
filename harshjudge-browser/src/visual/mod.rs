//! Visual comparison of screenshots against baselines: the core of
//! `to_have_screenshot`.
//!
//! [`compare`] decodes two PNGs (the expected baseline and the actual
//! screenshot), paints the masked rectangles over both, and counts the pixels
//! whose colours differ by more than a perceptual threshold. A pixel that differs
//! only because an edge is anti-aliased differently (a subpixel shift, another
//! font smoothing) is told apart and not counted unless
//! [`CompareOptions::include_aa`] is set. The algorithm follows the ideas of
//! pixelmatch (the one Playwright's `toHaveScreenshot` uses), written for this crate:
//!
//! - **Colour distance** in YIQ space, the NTSC encoding that separates brightness
//!   (Y) from chroma (I, Q), weighted as in Kotsarenko & Ramos (2010), "Measuring
//!   perceived color difference using YIQ NTSC transmission color space in mobile
//!   applications". Translucent pixels are composited over white first. A pixel
//!   differs when the distance exceeds `threshold² ×` the largest possible
//!   distance, so `threshold` is on a 0..1 scale (black against white is about 0.97).
//! - **Anti-aliasing** after Vyšniauskas (2009), "Anti-aliased pixel and intensity
//!   slope detector": a differing pixel is anti-aliasing when, in either image, it
//!   has at most two neighbours (of its 8) of its own brightness, has both darker
//!   and brighter neighbours, and the darkest or the brightest neighbour sits in a
//!   flat area (three or more identical neighbours) in both images: it is then the
//!   soft border between two solid areas, not a change of content.
//!
//! The result is a [`Comparison`]: either the images have different sizes
//! ([`Comparison::SizeMismatch`], nothing compared) or a [`PixelDiff`] with the
//! count of differing pixels, their ratio, whether that is within the limits
//! ([`CompareOptions::max_diff_pixels`], [`CompareOptions::max_diff_pixel_ratio`];
//! with neither set, no pixel may differ), and on demand the diff image: the
//! expected image as a faded grey, differences in red, anti-aliasing in yellow.
//!
//! ```
//! use harshjudge_browser::visual::{self, CompareOptions, Image};
//!
//! let white = Image::from_rgba(4, 4, vec![255; 64]).unwrap();
//! let mut pixels = vec![255; 64];
//! pixels[20..24].copy_from_slice(&[0, 0, 0, 255]); // one black pixel at (1, 1)
//! let dotted = Image::from_rgba(4, 4, pixels).unwrap();
//!
//! let result = visual::compare(&white.encode_png(), &dotted.encode_png(), &CompareOptions::default())?;
//! let diff = result.pixels().unwrap();
//! assert_eq!(diff.diff_pixels, 1);
//! assert!(!result.passed());
//! let diff_png: Vec<u8> = diff.diff_png(); // the diff image, to attach as evidence
//! assert!(diff_png.starts_with(b"\x89PNG"));
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! Speed: rows and pixels that are byte-for-byte identical are skipped with slice
//! and word compares before any arithmetic, and the neighbourhood is examined only
//! for pixels that differ: comparing two 1280x720 screenshots takes about 0.3 ms
//! when they are identical and about 2 ms when 1 % of the pixels differ
//! (`cargo bench --bench visual_compare`). Decoding the two PNGs costs more
//! (about 5 ms each), so [`compare`] decodes them in parallel.
//!
//! Bad input never panics: an undecodable PNG, an empty one or one larger than
//! [`MAX_PIXELS`] is an error naming which image it was, and invalid options are
//! errors naming the option.

mod compare;
mod image;
#[cfg(test)]
mod tests;

use std::fmt;

pub use image::{Image, ImageError};

/// The largest image compared, in pixels (100 megapixels, e.g. 1280 × 78,125):
/// larger ones are refused from their PNG header, before any allocation.
pub const MAX_PIXELS: u64 = 100_000_000;

/// Which of the two compared images something is about.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Side {
    /// The baseline: what the image should look like.
    Expected,
    /// The new screenshot.
    Actual,
}

impl fmt::Display for Side {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Side::Expected => "expected",
            Side::Actual => "actual",
        })
    }
}

/// Width and height of an image, in device pixels.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Size {
    /// Width in pixels.
    pub width: u32,
    /// Height in pixels.
    pub height: u32,
}

impl Size {
    /// `width × height`.
    pub fn pixels(self) -> u64 {
        self.width as u64 * self.height as u64
    }
}

impl fmt::Display for Size {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}x{}", self.width, self.height)
    }
}

/// A rectangle in CSS pixels (as `getBoundingClientRect` gives it); multiplied by
/// [`CompareOptions::scale`] to reach device pixels.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Rect {
    /// Left edge.
    pub x: f64,
    /// Top edge.
    pub y: f64,
    /// Width (≥ 0).
    pub width: f64,
    /// Height (≥ 0).
    pub height: f64,
}

impl Rect {
    /// A rectangle from its left, top, width and height in CSS pixels.
    pub fn new(x: f64, y: f64, width: f64, height: f64) -> Rect {
        Rect {
            x,
            y,
            width,
            height,
        }
    }

    /// The device pixels it covers, `(x0, y0, x1, y1)` half-open, clipped to
    /// `size`: every pixel the rectangle touches (edges rounded outwards).
    fn device_pixels(&self, scale: f64, size: Size) -> (usize, usize, usize, usize) {
        let clip = |v: f64, max: u32| v.clamp(0.0, max as f64) as usize;
        let x0 = clip((self.x * scale).floor(), size.width);
        let y0 = clip((self.y * scale).floor(), size.height);
        let x1 = clip(((self.x + self.width) * scale).ceil(), size.width).max(x0);
        let y1 = clip(((self.y + self.height) * scale).ceil(), size.height).max(y0);
        (x0, y0, x1, y1)
    }
}

/// How two images are compared. `CompareOptions::default()` is Playwright's
/// default: threshold 0.2, no differing pixel allowed, anti-aliasing ignored.
#[derive(Debug, Clone, PartialEq)]
pub struct CompareOptions {
    /// Per-pixel colour distance (0..=1) up to which two pixels count as equal,
    /// as a fraction of the largest YIQ distance (squared in the comparison, as
    /// pixelmatch does). 0 counts any change; 0.2 (the default) ignores changes
    /// people do not notice; 1 counts nothing.
    pub threshold: f64,
    /// At most this many pixels may differ.
    pub max_diff_pixels: Option<u64>,
    /// At most this fraction (0..=1) of the pixels may differ. With both limits
    /// set, both hold; with neither, no pixel may differ.
    pub max_diff_pixel_ratio: Option<f64>,
    /// Count pixels that differ only by anti-aliasing as differences too.
    pub include_aa: bool,
    /// Rectangles (in CSS pixels) painted with [`mask_color`](Self::mask_color) in
    /// both images before comparing, to hide content that changes on its own
    /// (clocks, ads, avatars). Parts outside the image are ignored.
    pub masks: Vec<Rect>,
    /// Device pixels per CSS pixel (the page's `devicePixelRatio`), applied to
    /// the masks. Default 1.
    pub scale: f64,
    /// The colour masks are painted with, RGBA. Default magenta `#FF00FF`, as Playwright.
    pub mask_color: [u8; 4],
}

impl Default for CompareOptions {
    fn default() -> Self {
        CompareOptions {
            threshold: 0.2,
            max_diff_pixels: None,
            max_diff_pixel_ratio: None,
            include_aa: false,
            masks: Vec::new(),
            scale: 1.0,
            mask_color: [255, 0, 255, 255],
        }
    }
}

impl CompareOptions {
    /// Checks every option, naming the first one that is out of range.
    pub fn validate(&self) -> Result<(), VisualError> {
        let invalid = |option: &'static str, value: String, expected: &'static str| {
            Err(VisualError::InvalidOption {
                option,
                value,
                expected,
            })
        };
        if !(0.0..=1.0).contains(&self.threshold) {
            return invalid(
                "threshold",
                self.threshold.to_string(),
                "a number from 0 to 1, e.g. 0.2",
            );
        }
        if let Some(r) = self.max_diff_pixel_ratio
            && !(0.0..=1.0).contains(&r)
        {
            return invalid(
                "max_diff_pixel_ratio",
                r.to_string(),
                "a fraction from 0 to 1, e.g. 0.01 for 1 % of the pixels",
            );
        }
        if !(self.scale.is_finite() && self.scale > 0.0) {
            return invalid(
                "scale",
                self.scale.to_string(),
                "a positive number of device pixels per CSS pixel, e.g. 2",
            );
        }
        for (i, m) in self.masks.iter().enumerate() {
            let finite = [m.x, m.y, m.width, m.height].iter().all(|v| v.is_finite());
            if !finite || m.width < 0.0 || m.height < 0.0 {
                return invalid(
                    "masks",
                    format!("mask {i}: {m:?}"),
                    "finite coordinates with a width and height of 0 or more",
                );
            }
        }
        Ok(())
    }

    /// How many differing pixels pass, for an image of `total` pixels.
    fn allowed(&self, total: u64) -> u64 {
        let by_ratio = self
            .max_diff_pixel_ratio
            .map(|r| (r * total as f64).floor() as u64);
        match (self.max_diff_pixels, by_ratio) {
            (Some(a), Some(b)) => a.min(b),
            (Some(a), None) | (None, Some(a)) => a,
            (None, None) => 0,
        }
    }
}

/// Why two images could not be compared.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum VisualError {
    /// One image could not be read.
    #[error("cannot compare the {image} image: {source}")]
    Image {
        /// Which image.
        image: Side,
        /// What is wrong with it.
        source: ImageError,
    },
    /// An option is out of range.
    #[error("invalid comparison option `{option}`: {value}; expected {expected}")]
    InvalidOption {
        /// The option's name (the field of [`CompareOptions`]).
        option: &'static str,
        /// The value given.
        value: String,
        /// What is accepted.
        expected: &'static str,
    },
}

/// The outcome of comparing two images.
#[derive(Debug, Clone)]
#[must_use]
pub enum Comparison {
    /// The images have the same size and were compared pixel by pixel.
    Pixels(PixelDiff),
    /// The images have different sizes; nothing was compared. Always a failure.
    SizeMismatch {
        /// The baseline's size.
        expected: Size,
        /// The screenshot's size.
        actual: Size,
    },
}

impl Comparison {
    /// Whether the comparison passes: same size and differing pixels within the limits.
    pub fn passed(&self) -> bool {
        matches!(self, Comparison::Pixels(d) if d.passed)
    }

    /// The pixel comparison, unless the sizes differ.
    pub fn pixels(&self) -> Option<&PixelDiff> {
        match self {
            Comparison::Pixels(d) => Some(d),
            Comparison::SizeMismatch { .. } => None,
        }
    }
}

impl fmt::Display for Comparison {
    /// One line for a failure message, e.g. `120 pixels (ratio 0.0001) differ, 0 allowed`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Comparison::Pixels(d) => fmt::Display::fmt(d, f),
            Comparison::SizeMismatch { expected, actual } => {
                write!(f, "expected an image of {expected}, received {actual}")
            }
        }
    }
}

/// Two images of the same size compared pixel by pixel.
#[derive(Debug, Clone)]
pub struct PixelDiff {
    /// The size of both images.
    pub size: Size,
    /// Pixels that differ by more than the threshold (anti-aliasing excluded
    /// unless [`CompareOptions::include_aa`]).
    pub diff_pixels: u64,
    /// Pixels that differ only by anti-aliasing and were not counted (0 with `include_aa`).
    pub aa_pixels: u64,
    /// `diff_pixels / size.pixels()`.
    pub diff_ratio: f64,
    /// How many differing pixels the limits allow.
    pub allowed_pixels: u64,
    /// `diff_pixels <= allowed_pixels`.
    pub passed: bool,
    expected: Image,
    marks: compare::Marks,
}

impl PixelDiff {
    /// The diff image: the expected image in faded grey, differing pixels red
    /// (`#FF0000`), anti-aliasing yellow (`#FFFF00`). Masked areas show the mask colour faded.
    pub fn diff_image(&self) -> Image {
        let rgba = compare::render(self.expected.rgba(), &self.marks);
        Image::from_rgba(self.size.width, self.size.height, rgba)
            .expect("same size as the expected image")
    }

    /// [`diff_image`](Self::diff_image) as PNG bytes.
    pub fn diff_png(&self) -> Vec<u8> {
        self.diff_image().encode_png()
    }
}

impl fmt::Display for PixelDiff {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let pixels = if self.diff_pixels == 1 {
            "pixel"
        } else {
            "pixels"
        };
        write!(
            f,
            "{} {pixels} (ratio {:.4} of {}) differ, {} allowed",
            self.diff_pixels, self.diff_ratio, self.size, self.allowed_pixels
        )?;
        if self.aa_pixels > 0 {
            write!(
                f,
                "; {} more differ only by anti-aliasing (not counted)",
                self.aa_pixels
            )?;
        }
        Ok(())
    }
}

/// Compares two PNG images: `expected` (the baseline) against `actual` (the new
/// screenshot). See the [module documentation](self) for the algorithm.
///
/// The two PNGs are decoded in parallel (on the calling thread and one scoped
/// thread). Errors name the image that cannot be read (the expected one first
/// when both cannot), or the option that is out of range; different sizes are
/// not an error but [`Comparison::SizeMismatch`].
pub fn compare(
    expected_png: &[u8],
    actual_png: &[u8],
    options: &CompareOptions,
) -> Result<Comparison, VisualError> {
    options.validate()?;
    let decode = |bytes: &[u8], image: Side| {
        Image::decode_png(bytes).map_err(|source| VisualError::Image { image, source })
    };
    // Decoding costs more than comparing: the two PNGs are decoded at once.
    let (expected, actual) = std::thread::scope(|scope| {
        let expected = scope.spawn(|| decode(expected_png, Side::Expected));
        let actual = decode(actual_png, Side::Actual);
        let expected = expected
            .join()
            .unwrap_or_else(|panic| std::panic::resume_unwind(panic));
        (expected, actual)
    });
    let (expected, actual) = (expected?, actual?);
    Ok(compare_owned(expected, actual, options))
}

/// Compares two decoded images; what [`compare`] does after decoding. The images
/// are not changed: masks are painted on copies (made only when there are masks).
pub fn compare_images(
    expected: &Image,
    actual: &Image,
    options: &CompareOptions,
) -> Result<Comparison, VisualError> {
    options.validate()?;
    Ok(compare_owned(expected.clone(), actual.clone(), options))
}

/// The comparison proper, on images it may paint masks on (copied first only
/// when their pixels are shared).
fn compare_owned(mut expected: Image, mut actual: Image, options: &CompareOptions) -> Comparison {
    let size = expected.size();
    if actual.size() != size {
        return Comparison::SizeMismatch {
            expected: size,
            actual: actual.size(),
        };
    }
    let w = size.width as usize;
    for m in &options.masks {
        let area = m.device_pixels(options.scale, size);
        if area.0 < area.2 && area.1 < area.3 {
            compare::fill(expected.rgba_mut(), w, area, options.mask_color);
            compare::fill(actual.rgba_mut(), w, area, options.mask_color);
        }
    }
    let t = options.threshold as f32;
    let max_delta = compare::MAX_YIQ_DELTA * t * t;
    let marks = compare::mark(
        expected.rgba(),
        actual.rgba(),
        w,
        size.height as usize,
        max_delta,
        options.include_aa,
    );
    let total = size.pixels();
    let diff_pixels = marks.diff.len() as u64;
    let allowed_pixels = options.allowed(total);
    Comparison::Pixels(PixelDiff {
        size,
        diff_pixels,
        aa_pixels: marks.aa.len() as u64,
        diff_ratio: diff_pixels as f64 / total as f64,
        allowed_pixels,
        passed: diff_pixels <= allowed_pixels,
        expected,
        marks,
    })
}
