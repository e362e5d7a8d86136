use super::compare::DIFF_COLOR;
use super::*;

const WHITE: [u8; 4] = [255, 255, 255, 255];
const BLACK: [u8; 4] = [0, 0, 0, 255];

/// An image being drawn, as raw RGBA.
#[derive(Clone)]
struct Canvas {
    w: u32,
    h: u32,
    px: Vec<u8>,
}

impl Canvas {
    fn new(w: u32, h: u32, color: [u8; 4]) -> Canvas {
        Canvas {
            w,
            h,
            px: color.repeat((w * h) as usize),
        }
    }
    fn set(&mut self, x: u32, y: u32, color: [u8; 4]) {
        let at = ((y * self.w + x) * 4) as usize;
        self.px[at..at + 4].copy_from_slice(&color);
    }
    fn get(&self, x: u32, y: u32) -> [u8; 4] {
        let at = ((y * self.w + x) * 4) as usize;
        self.px[at..at + 4].try_into().unwrap()
    }
    /// Black drawn with `coverage` (0..=1) over what is there, as a rasteriser
    /// blends the edge pixels of a shape.
    fn cover(&mut self, x: u32, y: u32, coverage: f64) {
        let old = self.get(x, y);
        let mix = |c: u8| (c as f64 * (1.0 - coverage)).round() as u8;
        self.set(x, y, [mix(old[0]), mix(old[1]), mix(old[2]), 255]);
    }
    /// Fills `x >= edge` with black, anti-aliased: the column the edge cuts gets
    /// the covered fraction.
    fn edge(mut self, edge: f64) -> Canvas {
        for y in 0..self.h {
            for x in 0..self.w {
                let coverage = ((x as f64 + 1.0) - edge).clamp(0.0, 1.0);
                if coverage > 0.0 {
                    self.cover(x, y, coverage);
                }
            }
        }
        self
    }
    /// A filled disc, anti-aliased by 16×16 supersampling.
    fn disc(mut self, cx: f64, cy: f64, r: f64) -> Canvas {
        let span =
            |c: f64, max: u32| (c - r - 1.0).max(0.0) as u32..((c + r + 1.0) as u32).min(max);
        for y in span(cy, self.h) {
            for x in span(cx, self.w) {
                let mut inside = 0;
                for sy in 0..16 {
                    for sx in 0..16 {
                        let px = x as f64 + (sx as f64 + 0.5) / 16.0 - cx;
                        let py = y as f64 + (sy as f64 + 0.5) / 16.0 - cy;
                        inside += usize::from(px * px + py * py <= r * r);
                    }
                }
                if inside > 0 {
                    self.cover(x, y, inside as f64 / 256.0);
                }
            }
        }
        self
    }
    fn image(&self) -> Image {
        Image::from_rgba(self.w, self.h, self.px.clone()).unwrap()
    }
    fn png(&self) -> Vec<u8> {
        self.image().encode_png()
    }
}

fn run(expected: &Canvas, actual: &Canvas, options: &CompareOptions) -> Comparison {
    compare(&expected.png(), &actual.png(), options).unwrap()
}

fn pixels(c: &Comparison) -> &PixelDiff {
    c.pixels().expect("same size")
}

/// A page-like image: a header bar, lines of anti-aliased "text" (discs) and a button.
fn page() -> Canvas {
    let mut c = Canvas::new(120, 80, WHITE);
    for y in 0..12 {
        for x in 0..120 {
            c.set(x, y, [30, 60, 120, 255]);
        }
    }
    for line in 0..4 {
        for word in 0..10 {
            c = c.disc(6.3 + word as f64 * 11.0, 22.5 + line as f64 * 12.0, 2.6);
        }
    }
    for y in 66..76 {
        for x in 80..114 {
            c.set(x, y, [20, 160, 60, 255]);
        }
    }
    c
}

#[test]
fn identical_images_have_no_difference() {
    let p = page();
    let result = run(&p, &p, &CompareOptions::default());
    let d = pixels(&result);
    assert_eq!((d.diff_pixels, d.aa_pixels, d.diff_ratio), (0, 0, 0.0));
    assert!(result.passed() && d.passed);
    assert_eq!(
        d.size,
        Size {
            width: 120,
            height: 80
        }
    );
    // Even at threshold 0 and counting anti-aliasing.
    let strict = CompareOptions {
        threshold: 0.0,
        include_aa: true,
        ..Default::default()
    };
    assert_eq!(pixels(&run(&p, &p, &strict)).diff_pixels, 0);
}

#[test]
fn one_changed_pixel_counts_one() {
    let p = page();
    let mut q = p.clone();
    q.set(50, 5, [255, 200, 0, 255]); // inside the header bar
    let result = run(&p, &q, &CompareOptions::default());
    let d = pixels(&result);
    assert_eq!((d.diff_pixels, d.aa_pixels, d.allowed_pixels), (1, 0, 0));
    assert_eq!(d.diff_ratio, 1.0 / 9600.0);
    assert!(!result.passed());
    assert_eq!(
        result.to_string(),
        "1 pixel (ratio 0.0001 of 120x80) differ, 0 allowed"
    );
    // The last pixel of the last row, where the neighbourhood is clipped.
    let mut r = p.clone();
    r.set(119, 79, BLACK);
    assert_eq!(
        pixels(&run(&p, &r, &CompareOptions::default())).diff_pixels,
        1
    );
}

#[test]
fn subpixel_shift_of_an_edge_is_antialiasing() {
    // A black area whose left edge moves from x = 10 to x = 10.5: column 10 turns
    // from black into a 50 % grey, the anti-aliased border of the shifted edge.
    let sharp = Canvas::new(24, 16, WHITE).edge(10.0);
    let shifted = Canvas::new(24, 16, WHITE).edge(10.5);
    assert_eq!(sharp.get(10, 3), BLACK);
    assert_eq!(shifted.get(10, 3), [128, 128, 128, 255]);

    let result = run(&sharp, &shifted, &CompareOptions::default());
    let d = pixels(&result);
    assert_eq!((d.diff_pixels, d.aa_pixels), (0, 16), "{d}");
    assert!(result.passed());
    assert!(
        result
            .to_string()
            .contains("16 more differ only by anti-aliasing")
    );

    let counted = run(
        &sharp,
        &shifted,
        &CompareOptions {
            include_aa: true,
            ..Default::default()
        },
    );
    let d = pixels(&counted);
    assert_eq!((d.diff_pixels, d.aa_pixels), (16, 0));
    assert!(!counted.passed());
}

#[test]
fn antialiased_shape_moved_by_a_fraction_of_a_pixel() {
    // A disc rendered with anti-aliasing, then moved by 0.4 px: the rim changes,
    // the content does not.
    let a = Canvas::new(40, 40, WHITE).disc(20.0, 20.0, 9.0);
    let b = Canvas::new(40, 40, WHITE).disc(20.4, 20.0, 9.0);
    let all = pixels(&run(
        &a,
        &b,
        &CompareOptions {
            include_aa: true,
            ..Default::default()
        },
    ))
    .diff_pixels;
    let d = pixels(&run(&a, &b, &CompareOptions::default())).clone();
    assert!(all >= 10, "the move changes the rim: {all}");
    assert_eq!(d.diff_pixels + d.aa_pixels, all);
    assert_eq!(
        (d.diff_pixels, d.aa_pixels),
        (0, all),
        "the whole rim is anti-aliasing: {d}"
    );

    // A real change of content in the same place is not mistaken for anti-aliasing.
    let c = Canvas::new(40, 40, WHITE).disc(20.0, 20.0, 9.0);
    let mut hole = c.clone();
    for y in 17..23 {
        for x in 17..23 {
            hole.set(x, y, WHITE);
        }
    }
    let d = pixels(&run(&c, &hole, &CompareOptions::default())).clone();
    assert_eq!((d.diff_pixels, d.aa_pixels), (36, 0));
}

#[test]
fn threshold_decides_what_counts_as_a_change() {
    let white = Canvas::new(8, 8, WHITE);
    let mut nearly = white.clone();
    nearly.set(3, 3, [250, 250, 250, 255]);
    let at = |t: f64, a: &Canvas, b: &Canvas| {
        pixels(&run(
            a,
            b,
            &CompareOptions {
                threshold: t,
                ..Default::default()
            },
        ))
        .diff_pixels
    };
    assert_eq!(
        at(0.2, &white, &nearly),
        0,
        "a 2 % grey is below the default threshold"
    );
    assert_eq!(at(0.0, &white, &nearly), 1, "threshold 0 counts any change");

    // Black against white is at about 0.966 of the largest distance.
    let mut dot = white.clone();
    dot.set(3, 3, BLACK);
    assert_eq!(at(0.95, &white, &dot), 1);
    assert_eq!(at(0.97, &white, &dot), 0);
    assert_eq!(at(1.0, &white, &dot), 0);

    // A change of hue at equal brightness counts through the chroma terms.
    let red = Canvas::new(8, 8, [200, 0, 0, 255]);
    let mut blue = red.clone();
    blue.set(4, 4, [0, 0, 200, 255]);
    assert_eq!(at(0.2, &red, &blue), 1);

    // Transparency is composited over white: a transparent pixel equals white.
    let mut clear = white.clone();
    clear.set(3, 3, [0, 0, 0, 0]);
    assert_eq!(at(0.0, &white, &clear), 0);
    let mut half = white.clone();
    half.set(3, 3, [0, 0, 0, 128]);
    assert_eq!(at(0.2, &white, &half), 1);
}

#[test]
fn count_and_ratio_limits() {
    let a = Canvas::new(10, 10, WHITE);
    let mut b = a.clone();
    for x in 0..10 {
        b.set(x, 4, BLACK); // a real line: 10 pixels of 100
    }
    let with = |count: Option<u64>, ratio: Option<f64>| {
        let o = CompareOptions {
            max_diff_pixels: count,
            max_diff_pixel_ratio: ratio,
            ..Default::default()
        };
        let r = run(&a, &b, &o);
        assert_eq!(pixels(&r).diff_pixels, 10);
        (r.passed(), pixels(&r).allowed_pixels)
    };
    assert_eq!(with(None, None), (false, 0));
    assert_eq!(with(Some(10), None), (true, 10));
    assert_eq!(with(Some(9), None), (false, 9));
    assert_eq!(with(None, Some(0.1)), (true, 10));
    assert_eq!(with(None, Some(0.099)), (false, 9));
    assert_eq!(with(None, Some(1.0)), (true, 100));
    assert_eq!(
        with(Some(50), Some(0.05)),
        (false, 5),
        "both limits must hold"
    );
    assert_eq!(with(Some(10), Some(0.5)), (true, 10));
    let r = run(&a, &b, &CompareOptions::default());
    assert_eq!(pixels(&r).diff_ratio, 0.1);
}

#[test]
fn invalid_options_are_named() {
    let png = Canvas::new(2, 2, WHITE).png();
    let err = |o: CompareOptions| compare(&png, &png, &o).unwrap_err();
    for bad in [1.5, -0.1, f64::NAN, f64::INFINITY] {
        let e = err(CompareOptions {
            max_diff_pixel_ratio: Some(bad),
            ..Default::default()
        });
        assert!(
            matches!(
                e,
                VisualError::InvalidOption {
                    option: "max_diff_pixel_ratio",
                    ..
                }
            ),
            "{e}"
        );
        assert!(e.to_string().contains("a fraction from 0 to 1"), "{e}");
    }
    let e = err(CompareOptions {
        threshold: 2.0,
        ..Default::default()
    });
    assert_eq!(
        e.to_string(),
        "invalid comparison option `threshold`: 2; expected a number from 0 to 1, e.g. 0.2"
    );
    let e = err(CompareOptions {
        scale: 0.0,
        ..Default::default()
    });
    assert!(matches!(
        e,
        VisualError::InvalidOption {
            option: "scale",
            ..
        }
    ));
    let e = err(CompareOptions {
        masks: vec![Rect::new(0.0, 0.0, -1.0, 2.0)],
        ..Default::default()
    });
    assert!(
        matches!(
            e,
            VisualError::InvalidOption {
                option: "masks",
                ..
            }
        ),
        "{e}"
    );
    let e = err(CompareOptions {
        masks: vec![Rect::new(f64::NAN, 0.0, 1.0, 2.0)],
        ..Default::default()
    });
    assert!(e.to_string().contains("mask 0"), "{e}");
    // The raw-image entry point checks them too.
    let img = Canvas::new(2, 2, WHITE).image();
    let o = CompareOptions {
        threshold: -1.0,
        ..Default::default()
    };
    assert!(compare_images(&img, &img, &o).is_err());
}

#[test]
fn masks_hide_differences_in_both_images() {
    let a = page();
    let mut b = a.clone();
    // A "clock" that changes: a 6x4 block at (40, 2) inside the header.
    for y in 2..6 {
        for x in 40..46 {
            b.set(x, y, [250, 250, 250, 255]);
        }
    }
    assert_eq!(
        pixels(&run(&a, &b, &CompareOptions::default())).diff_pixels,
        24
    );

    let masked = |masks: Vec<Rect>, scale: f64| {
        let o = CompareOptions {
            masks,
            scale,
            ..Default::default()
        };
        pixels(&run(&a, &b, &o)).diff_pixels
    };
    assert_eq!(masked(vec![Rect::new(40.0, 2.0, 6.0, 4.0)], 1.0), 0);
    // Fractional edges round outwards: every touched pixel is covered.
    assert_eq!(masked(vec![Rect::new(40.5, 2.9, 5.1, 2.2)], 1.0), 0);
    // Too small a mask leaves the rest of the change visible.
    assert_eq!(masked(vec![Rect::new(40.0, 2.0, 3.0, 4.0)], 1.0), 12);
    // A mask elsewhere hides nothing.
    assert_eq!(masked(vec![Rect::new(0.0, 60.0, 10.0, 10.0)], 1.0), 24);
    // CSS pixels times the device scale: (20, 1, 3, 2) at 2x is (40, 2, 6, 4).
    assert_eq!(masked(vec![Rect::new(20.0, 1.0, 3.0, 2.0)], 2.0), 0);
    // Two masks, one partly outside the image (clipped), one entirely outside.
    assert_eq!(
        masked(
            vec![
                Rect::new(-5.0, -5.0, 48.0, 11.0),
                Rect::new(43.0, 1.0, 1e9, 1e9),
                Rect::new(500.0, 500.0, 5.0, 5.0)
            ],
            1.0
        ),
        0
    );
    // The masks are painted on copies: the caller's images are unchanged.
    let (ia, ib) = (a.image(), b.image());
    let o = CompareOptions {
        masks: vec![Rect::new(40.0, 2.0, 6.0, 4.0)],
        ..Default::default()
    };
    assert!(compare_images(&ia, &ib, &o).unwrap().passed());
    assert_eq!(ia.rgba(), &a.px[..]);
    assert_eq!(ib.rgba(), &b.px[..]);
    // The diff image shows the mask (faded), not the hidden content.
    let r = compare_images(&ia, &ib, &o).unwrap();
    let diff = pixels(&r).diff_image();
    let at = |x: usize, y: usize| diff.rgba()[(y * 120 + x) * 4..][..4].to_vec();
    let mask_grey =
        (255.0 + (0.298_895_3 * 255.0 + 0.114_482_23 * 255.0 - 255.0) * 0.1f32).round() as u8;
    assert_eq!(at(41, 3), vec![mask_grey, mask_grey, mask_grey, 255]);
}

#[test]
fn size_mismatch_is_its_own_outcome() {
    let a = Canvas::new(10, 10, WHITE);
    let b = Canvas::new(10, 11, WHITE);
    let r = run(
        &a,
        &b,
        &CompareOptions {
            max_diff_pixel_ratio: Some(1.0),
            ..Default::default()
        },
    );
    match &r {
        Comparison::SizeMismatch { expected, actual } => {
            assert_eq!(
                (*expected, *actual),
                (
                    Size {
                        width: 10,
                        height: 10
                    },
                    Size {
                        width: 10,
                        height: 11
                    }
                )
            );
        }
        other => panic!("expected a size mismatch, got {other:?}"),
    }
    assert!(!r.passed());
    assert!(r.pixels().is_none());
    assert_eq!(r.to_string(), "expected an image of 10x10, received 10x11");
}

#[test]
fn diff_image_colours() {
    // Left: a sharp edge shifted by half a pixel (anti-aliasing, yellow); right:
    // a real change (red); the rest: the expected image faded to light grey.
    let mut a = Canvas::new(24, 16, WHITE).edge(10.0);
    let mut b = Canvas::new(24, 16, WHITE).edge(10.5);
    a.set(20, 8, BLACK);
    b.set(20, 8, WHITE);
    let r = run(&a, &b, &CompareOptions::default());
    let d = pixels(&r);
    assert_eq!((d.diff_pixels, d.aa_pixels), (1, 16));
    let img = d.diff_image();
    let at = |x: u32, y: u32| img.rgba()[((y * 24 + x) * 4) as usize..][..4].to_vec();
    assert_eq!(at(20, 8), vec![255, 0, 0, 255], "a difference is red");
    for y in 0..16 {
        assert_eq!(at(10, y), vec![255, 255, 0, 255], "anti-aliasing is yellow");
    }
    assert_eq!(at(2, 2), vec![255, 255, 255, 255], "white stays white");
    assert_eq!(
        at(15, 2),
        vec![230, 230, 230, 255],
        "black fades to 10 % grey"
    );
    // The PNG decodes to the same pixels.
    let png = d.diff_png();
    assert_eq!(Image::decode_png(&png).unwrap(), img);
    // With include_aa the edge is red too.
    let r = run(
        &a,
        &b,
        &CompareOptions {
            include_aa: true,
            ..Default::default()
        },
    );
    let img = pixels(&r).diff_image();
    assert_eq!(img.rgba()[(3 * 24 + 10) * 4..][..4], [255, 0, 0, 255]);
}

/// A PNG made of `chunks` (type, data), with correct CRCs.
fn png_bytes(chunks: &[(&[u8; 4], Vec<u8>)]) -> Vec<u8> {
    fn crc32(bytes: &[u8]) -> u32 {
        let mut crc = !0u32;
        for &b in bytes {
            crc ^= b as u32;
            for _ in 0..8 {
                crc = if crc & 1 != 0 {
                    (crc >> 1) ^ 0xEDB8_8320
                } else {
                    crc >> 1
                };
            }
        }
        !crc
    }
    let mut out = vec![0x89, b'P', b'N', b'G', b'\r', b'\n', 0x1a, b'\n'];
    for (kind, data) in chunks {
        out.extend_from_slice(&(data.len() as u32).to_be_bytes());
        let mut body = kind.to_vec();
        body.extend_from_slice(data);
        out.extend_from_slice(&body);
        out.extend_from_slice(&crc32(&body).to_be_bytes());
    }
    out
}

fn ihdr(w: u32, h: u32) -> (&'static [u8; 4], Vec<u8>) {
    let mut d = w.to_be_bytes().to_vec();
    d.extend_from_slice(&h.to_be_bytes());
    d.extend_from_slice(&[8, 6, 0, 0, 0]);
    (b"IHDR", d)
}

#[test]
fn hostile_inputs_are_errors_naming_the_image() {
    let good = Canvas::new(4, 4, WHITE).png();
    let o = CompareOptions::default();
    let fails = |e: &[u8], a: &[u8]| compare(e, a, &o).unwrap_err();

    let e = fails(b"", &good);
    assert!(
        matches!(
            e,
            VisualError::Image {
                image: Side::Expected,
                source: ImageError::NotPng { .. }
            }
        ),
        "{e}"
    );
    assert!(
        e.to_string()
            .starts_with("cannot compare the expected image: not a readable PNG"),
        "{e}"
    );
    let e = fails(&good, b"GIF89a not a png at all");
    assert!(
        matches!(
            e,
            VisualError::Image {
                image: Side::Actual,
                ..
            }
        ),
        "{e}"
    );
    let e = fails(&good, &good[..good.len() / 2]);
    assert!(
        matches!(
            e,
            VisualError::Image {
                image: Side::Actual,
                source: ImageError::NotPng { .. }
            }
        ),
        "{e}"
    );

    // Declared sizes: empty, and far beyond the limit (refused before allocating).
    let end = (b"IEND", vec![]);
    let e = fails(&png_bytes(&[ihdr(0, 0), end.clone()]), &good);
    assert!(
        matches!(
            e,
            VisualError::Image {
                source: ImageError::Empty {
                    width: 0,
                    height: 0
                },
                ..
            }
        ),
        "{e}"
    );
    let e = fails(&good, &png_bytes(&[ihdr(100_000, 100_000), end.clone()]));
    assert_eq!(
        e.to_string(),
        "cannot compare the actual image: it is 100000x100000 (10000.0 megapixels), more than the limit of \
         100 megapixels: compare a smaller screenshot (the viewport or one element instead of the full page)"
    );
    let e = fails(&png_bytes(&[ihdr(u32::MAX, u32::MAX)]), &good);
    assert!(
        matches!(
            e,
            VisualError::Image {
                source: ImageError::TooLarge { .. },
                ..
            }
        ),
        "{e}"
    );
    // Just under the limit, but with no pixel data: a decode error, not an allocation of 400 MB per retry.
    let e = fails(&good, &png_bytes(&[ihdr(10_000, 10_000), end.clone()]));
    assert!(
        matches!(
            e,
            VisualError::Image {
                image: Side::Actual,
                source: ImageError::NotPng { .. }
            }
        ),
        "{e}"
    );
    // A header that lies about its data (data for 1x1, header 4x4).
    let e = fails(
        &png_bytes(&[
            ihdr(4, 4),
            (b"IDAT", vec![0x78, 0x9c, 0x63, 0, 0, 0, 1, 0, 1]),
            end,
        ]),
        &good,
    );
    assert!(
        matches!(
            e,
            VisualError::Image {
                image: Side::Expected,
                ..
            }
        ),
        "{e}"
    );

    // Raw buffers.
    assert_eq!(
        Image::from_rgba(0, 5, vec![]).unwrap_err(),
        ImageError::Empty {
            width: 0,
            height: 5
        }
    );
    assert_eq!(
        Image::from_rgba(2, 2, vec![0; 15]).unwrap_err(),
        ImageError::BadLength {
            width: 2,
            height: 2,
            len: 15
        }
    );
    assert!(matches!(
        Image::from_rgba(20_000, 20_000, vec![]),
        Err(ImageError::TooLarge { .. })
    ));
}

#[test]
fn corrupted_pngs_never_panic() {
    let good = page().png();
    let mut seed = 0x2545_f491_4f6c_dd1du64;
    let mut next = || {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        seed
    };
    for _ in 0..3000 {
        let mut bytes = good.clone();
        let edits = 1 + next() % 4;
        for _ in 0..edits {
            let at = (next() % bytes.len() as u64) as usize;
            bytes[at] = next() as u8;
        }
        if next() % 4 == 0 {
            bytes.truncate((next() % bytes.len() as u64) as usize);
        }
        // Either an error or a comparison: never a panic.
        let _ = compare(&bytes, &good, &CompareOptions::default());
    }
}

#[test]
fn every_png_colour_type_decodes_to_rgba() {
    let encode = |color: png::ColorType,
                  depth: png::BitDepth,
                  data: &[u8],
                  palette: Option<(&[u8], &[u8])>| {
        let mut out = Vec::new();
        let mut enc = png::Encoder::new(&mut out, 2, 1);
        enc.set_color(color);
        enc.set_depth(depth);
        if let Some((plte, trns)) = palette {
            enc.set_palette(plte.to_vec());
            enc.set_trns(trns.to_vec());
        }
        let mut w = enc.write_header().unwrap();
        w.write_image_data(data).unwrap();
        w.finish().unwrap();
        out
    };
    use png::{BitDepth::*, ColorType::*};
    let cases: Vec<(Vec<u8>, [u8; 8])> = vec![
        (
            encode(Grayscale, Eight, &[0, 200], None),
            [0, 0, 0, 255, 200, 200, 200, 255],
        ),
        (
            encode(GrayscaleAlpha, Eight, &[10, 20, 30, 40], None),
            [10, 10, 10, 20, 30, 30, 30, 40],
        ),
        (
            encode(Rgb, Eight, &[1, 2, 3, 4, 5, 6], None),
            [1, 2, 3, 255, 4, 5, 6, 255],
        ),
        (
            encode(
                Rgba,
                Sixteen,
                &[1, 0, 2, 0, 3, 0, 4, 0, 5, 0, 6, 0, 7, 0, 255, 255],
                None,
            ),
            [1, 2, 3, 4, 5, 6, 7, 255],
        ),
        (
            encode(
                Indexed,
                Eight,
                &[1, 0],
                Some((&[9, 8, 7, 250, 251, 252], &[128])),
            ),
            [250, 251, 252, 255, 9, 8, 7, 128],
        ),
    ];
    for (png, rgba) in cases {
        let img = Image::decode_png(&png).unwrap();
        assert_eq!((img.width(), img.height(), img.rgba()), (2, 1, &rgba[..]));
    }
}

/// Two real 1280x720 Chromium screenshots of benches/data/shop.html and of
/// shop-changed.html (a price, a paragraph, the cart badge, two buttons and one
/// digit of the footer changed; see the HTML files).
fn shop_shots() -> (&'static [u8], &'static [u8]) {
    (
        include_bytes!("../../../benches/data/shop.png"),
        include_bytes!("../../../benches/data/shop-changed.png"),
    )
}

#[test]
fn real_screenshots_differ_exactly_where_the_page_changed() {
    let (shop, changed) = shop_shots();
    let same = compare(shop, shop, &CompareOptions::default()).unwrap();
    assert_eq!(pixels(&same).diff_pixels + pixels(&same).aa_pixels, 0);

    let r = compare(shop, changed, &CompareOptions::default()).unwrap();
    let d = pixels(&r);
    assert!(
        (0.005..0.015).contains(&d.diff_ratio),
        "about 1 % of the page changed: {d}"
    );
    // The changed elements, in device pixels (x0, y0, x1, y1).
    let changed_boxes = [
        ("apple price", (48, 124, 112, 156)),
        ("apple text", (48, 164, 404, 226)),
        ("cart badge", (1146, 16, 1176, 42)),
        ("grapes button", (460, 448, 576, 486)),
        ("kiwi button", (874, 448, 990, 486)),
        ("footer digit", (226, 520, 246, 542)),
    ];
    let img = d.diff_image();
    let mut red_in = [0u32; 6];
    for (i, p) in img.rgba().chunks_exact(4).enumerate() {
        if p != DIFF_COLOR {
            continue;
        }
        let (x, y) = ((i % 1280) as u32, (i / 1280) as u32);
        let inside = changed_boxes
            .iter()
            .position(|(_, (x0, y0, x1, y1))| (*x0..*x1).contains(&x) && (*y0..*y1).contains(&y));
        let Some(b) = inside else {
            panic!("a difference at ({x}, {y}), where nothing changed")
        };
        red_in[b] += 1;
    }
    for ((name, _), n) in changed_boxes.iter().zip(red_in) {
        assert!(n > 0, "the change of the {name} is found");
    }
    assert_eq!(red_in.iter().map(|&n| n as u64).sum::<u64>(), d.diff_pixels);
    // Anti-aliasing only on the soft edges of what changed, and counted when asked.
    let all = compare(
        shop,
        changed,
        &CompareOptions {
            include_aa: true,
            ..Default::default()
        },
    )
    .unwrap();
    assert_eq!(pixels(&all).diff_pixels, d.diff_pixels + d.aa_pixels);
}
