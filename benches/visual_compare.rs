//! Screenshot comparison (`harshjudge_browser::visual`) on two real 1280x720 Chromium
//! screenshots of a shop page (benches/data/shop.png, and shop-changed.png where
//! a price, a paragraph, the cart badge, two buttons and a footer digit changed:
//! about 1 % of the pixels). Measured separately: decoding the two PNGs, the
//! comparison alone on decoded images, both together (what `visual::compare`
//! costs), and writing the diff image as PNG (done only on a failure).
//!
//! `cargo bench --bench visual_compare` prints the medians (and the fastest round).

use std::hint::black_box;
use std::time::{Duration, Instant};

use harshjudge_browser::visual::{self, CompareOptions, Image};

const SHOP: &[u8] = include_bytes!("data/shop.png");
const CHANGED: &[u8] = include_bytes!("data/shop-changed.png");

/// Runs `f` `rounds` times; returns the median and the fastest round.
fn measure<T>(rounds: usize, mut f: impl FnMut() -> T) -> (Duration, Duration) {
    black_box(f()); // warm up
    let mut times: Vec<Duration> = (0..rounds)
        .map(|_| {
            let start = Instant::now();
            black_box(f());
            start.elapsed()
        })
        .collect();
    times.sort();
    (times[times.len() / 2], times[0])
}

fn line(label: &str, (median, best): (Duration, Duration)) {
    eprintln!(
        "  {label:<44} median {:>7.3} ms   best {:>7.3} ms",
        median.as_secs_f64() * 1000.0,
        best.as_secs_f64() * 1000.0
    );
}

fn main() {
    let rounds = 50;
    let opts = CompareOptions::default();
    let shop = Image::decode_png(SHOP).unwrap();
    // A second decode: equal pixels in a buffer of their own, as a new screenshot has.
    let shop_again = Image::decode_png(SHOP).unwrap();
    let changed = Image::decode_png(CHANGED).unwrap();
    // The whole page moved down by one pixel: every edge differs (worst case
    // for the anti-aliasing check, which runs on each differing pixel).
    let shifted = {
        let row = shop.width() as usize * 4;
        let mut px = shop.rgba()[..row].to_vec();
        px.extend_from_slice(&shop.rgba()[..shop.rgba().len() - row]);
        Image::from_rgba(shop.width(), shop.height(), px).unwrap()
    };

    let result = visual::compare_images(&shop, &changed, &opts).unwrap();
    let diff = result.pixels().unwrap();
    let moved = visual::compare_images(&shop, &shifted, &opts).unwrap();
    eprintln!();
    eprintln!(
        "visual_compare: {}x{} screenshots ({} and {} bytes of PNG), {rounds} rounds each",
        shop.width(),
        shop.height(),
        SHOP.len(),
        CHANGED.len()
    );
    eprintln!("  changed page: {diff}");
    eprintln!("  page moved 1 px: {moved}");
    line(
        "decode both PNGs",
        measure(rounds, || {
            (
                Image::decode_png(SHOP).unwrap(),
                Image::decode_png(CHANGED).unwrap(),
            )
        }),
    );
    line(
        "compare alone, identical",
        measure(rounds, || {
            visual::compare_images(&shop, &shop_again, &opts).unwrap()
        }),
    );
    line(
        "compare alone, ~1 % differing",
        measure(rounds, || {
            visual::compare_images(&shop, &changed, &opts).unwrap()
        }),
    );
    line(
        "compare alone, page moved 1 px (worst case)",
        measure(rounds, || {
            visual::compare_images(&shop, &shifted, &opts).unwrap()
        }),
    );
    line(
        "decode + compare, identical",
        measure(rounds, || visual::compare(SHOP, SHOP, &opts).unwrap()),
    );
    line(
        "decode + compare, ~1 % differing",
        measure(rounds, || visual::compare(SHOP, CHANGED, &opts).unwrap()),
    );
    line(
        "diff image as PNG (on failure only)",
        measure(rounds, || diff.diff_png()),
    );
}
