//! The pixel comparison: perceptual colour distance in YIQ space and
//! anti-aliasing detection, after the ideas pixelmatch implements (the YIQ metric
//! of Kotsarenko & Ramos, 2010, and the anti-aliased pixel detector of
//! Vyšniauskas, 2009). Written for this crate, for speed on screenshots: most
//! rows and pixels are identical, so rows are compared as byte slices and pixels
//! as 4-byte words before any arithmetic, and the neighbourhood is only looked at
//! for pixels that differ.

/// The largest value [`color_delta`] can take (black against white is about 93 % of it);
/// a threshold `t` accepts deltas up to `MAX_YIQ_DELTA × t²`.
pub(crate) const MAX_YIQ_DELTA: f32 = 35215.0;

/// Pixels per chunk when skipping identical runs inside a row that differs.
const CHUNK: usize = 8;

/// The pixels that differ, as indices (`y × width + x`), split into real
/// differences and differences explained by anti-aliasing.
#[derive(Clone, Debug, Default)]
pub(crate) struct Marks {
    pub(crate) diff: Vec<u32>,
    pub(crate) aa: Vec<u32>,
}

#[inline]
fn pixel(img: &[u8], index: usize) -> [u8; 4] {
    let at = index * 4;
    [img[at], img[at + 1], img[at + 2], img[at + 3]]
}

/// A channel composited over white by the pixel's alpha.
#[inline]
fn over_white(c: u8, alpha: u8) -> f32 {
    if alpha == 255 {
        c as f32
    } else {
        255.0 + (c as f32 - 255.0) * (alpha as f32 / 255.0)
    }
}

#[inline]
fn rgb(p: [u8; 4]) -> [f32; 3] {
    [
        over_white(p[0], p[3]),
        over_white(p[1], p[3]),
        over_white(p[2], p[3]),
    ]
}

/// Luma (the Y of YIQ) of a colour.
#[inline]
fn luma([r, g, b]: [f32; 3]) -> f32 {
    r * 0.298_895_3 + g * 0.586_622_5 + b * 0.114_482_23
}

/// Brightness of a pixel composited over white.
#[inline]
pub(crate) fn brightness(p: [u8; 4]) -> f32 {
    luma(rgb(p))
}

/// Perceived squared distance between two colours: the YIQ components of their
/// difference, weighted (Y 0.5053, I 0.299, Q 0.1957).
#[inline]
pub(crate) fn color_delta(a: [u8; 4], b: [u8; 4]) -> f32 {
    let (ca, cb) = (rgb(a), rgb(b));
    let (r, g, bl) = (ca[0] - cb[0], ca[1] - cb[1], ca[2] - cb[2]);
    let y = luma([r, g, bl]);
    let i = r * 0.595_977_99 - g * 0.274_176_1 - bl * 0.321_801_9;
    let q = r * 0.211_470_17 - g * 0.522_617_1 + bl * 0.311_146_94;
    0.5053 * y * y + 0.299 * i * i + 0.1957 * q * q
}

/// The 3×3 neighbourhood bounds of (x, y), clipped to the image, and whether
/// the pixel sits on the image's edge.
#[inline]
fn around(x: usize, y: usize, w: usize, h: usize) -> (usize, usize, usize, usize, bool) {
    let (x0, x1) = (x.saturating_sub(1), (x + 1).min(w - 1));
    let (y0, y1) = (y.saturating_sub(1), (y + 1).min(h - 1));
    let edge = x == x0 || x == x1 || y == y0 || y == y1;
    (x0, x1, y0, y1, edge)
}

/// Whether the pixel at (x, y) lies in a flat area: at least three of its
/// neighbours have exactly its colour (an image edge counts as one).
fn in_flat_area(img: &[u8], w: usize, h: usize, x: usize, y: usize) -> bool {
    let (x0, x1, y0, y1, edge) = around(x, y, w, h);
    let centre = pixel(img, y * w + x);
    let mut same = usize::from(edge);
    for ny in y0..=y1 {
        for nx in x0..=x1 {
            if (nx, ny) != (x, y) && pixel(img, ny * w + nx) == centre {
                same += 1;
                if same > 2 {
                    return true;
                }
            }
        }
    }
    false
}

/// Whether the pixel at (x, y) of `img` looks like anti-aliasing: it has at most
/// two neighbours of its own brightness, both a darker and a brighter neighbour,
/// and the darkest or the brightest of them lies in a flat area in both images
/// (the pixel is the soft border between two areas that are solid in both).
pub(crate) fn is_antialiased(
    img: &[u8],
    other: &[u8],
    w: usize,
    h: usize,
    x: usize,
    y: usize,
) -> bool {
    let (x0, x1, y0, y1, edge) = around(x, y, w, h);
    let centre = brightness(pixel(img, y * w + x));
    let mut same = usize::from(edge);
    let (mut darkest, mut brightest) = (0.0f32, 0.0f32);
    let (mut dark_at, mut bright_at) = (None, None);
    for ny in y0..=y1 {
        for nx in x0..=x1 {
            if (nx, ny) == (x, y) {
                continue;
            }
            let d = brightness(pixel(img, ny * w + nx)) - centre;
            if d == 0.0 {
                same += 1;
                if same > 2 {
                    return false;
                }
            } else if d < darkest {
                darkest = d;
                dark_at = Some((nx, ny));
            } else if d > brightest {
                brightest = d;
                bright_at = Some((nx, ny));
            }
        }
    }
    let (Some(dark), Some(bright)) = (dark_at, bright_at) else {
        return false;
    };
    let flat_in_both = |(nx, ny): (usize, usize)| {
        in_flat_area(img, w, h, nx, ny) && in_flat_area(other, w, h, nx, ny)
    };
    flat_in_both(dark) || flat_in_both(bright)
}

/// Compares two RGBA buffers of `w × h` pixels. A pixel differs when its colour
/// delta exceeds `max_delta`; unless `include_aa`, a differing pixel that is
/// anti-aliasing in either image goes to `aa` instead of `diff`.
pub(crate) fn mark(
    expected: &[u8],
    actual: &[u8],
    w: usize,
    h: usize,
    max_delta: f32,
    include_aa: bool,
) -> Marks {
    debug_assert_eq!(expected.len(), w * h * 4);
    debug_assert_eq!(actual.len(), w * h * 4);
    let mut marks = Marks::default();
    let stride = w * 4;
    for y in 0..h {
        let row = y * stride..(y + 1) * stride;
        let (ra, rb) = (&expected[row.clone()], &actual[row]);
        if ra == rb {
            continue;
        }
        let mut x = 0;
        while x < w {
            let end = (x + CHUNK).min(w);
            if ra[x * 4..end * 4] == rb[x * 4..end * 4] {
                x = end;
                continue;
            }
            for px in x..end {
                let (a, b) = (pixel(ra, px), pixel(rb, px));
                if a == b || color_delta(a, b) <= max_delta {
                    continue;
                }
                let index = (y * w + px) as u32;
                if !include_aa
                    && (is_antialiased(expected, actual, w, h, px, y)
                        || is_antialiased(actual, expected, w, h, px, y))
                {
                    marks.aa.push(index);
                } else {
                    marks.diff.push(index);
                }
            }
            x = end;
        }
    }
    marks
}

/// Red: a pixel that differs.
pub(crate) const DIFF_COLOR: [u8; 4] = [255, 0, 0, 255];
/// Yellow: a pixel that differs only by anti-aliasing.
pub(crate) const AA_COLOR: [u8; 4] = [255, 255, 0, 255];
/// How much of the expected image's brightness the diff image keeps (0 = white).
const FADE: f32 = 0.1;

/// The diff image: the expected image in faded grey, differences in red,
/// anti-aliasing in yellow.
pub(crate) fn render(expected: &[u8], marks: &Marks) -> Vec<u8> {
    let mut out = Vec::with_capacity(expected.len());
    for p in expected.chunks_exact(4) {
        let grey = (255.0 + (brightness([p[0], p[1], p[2], p[3]]) - 255.0) * FADE).round() as u8;
        out.extend_from_slice(&[grey, grey, grey, 255]);
    }
    for (indices, color) in [(&marks.aa, AA_COLOR), (&marks.diff, DIFF_COLOR)] {
        for &i in indices {
            let at = i as usize * 4;
            out[at..at + 4].copy_from_slice(&color);
        }
    }
    out
}

/// Paints the device-pixel rectangle `[x0, x1) × [y0, y1)` with `color`.
pub(crate) fn fill(
    img: &mut [u8],
    w: usize,
    (x0, y0, x1, y1): (usize, usize, usize, usize),
    color: [u8; 4],
) {
    for y in y0..y1 {
        for p in img[(y * w + x0) * 4..(y * w + x1) * 4].chunks_exact_mut(4) {
            p.copy_from_slice(&color);
        }
    }
}
