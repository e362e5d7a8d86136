//! The image URLs a step reads back, the bounds of its resources, their
//! extensions, and `trace-dom.json`'s `images` map.

use serde_json::{Value, json};

use super::*;
use crate::trace::dom::{Moment, file};

fn held(page: usize, json: &str) -> Held {
    Held {
        entry: 1,
        moment: Moment::After,
        page,
        frame: 0,
        parent: None,
        index: None,
        time: 1.0,
        json: json.into(),
    }
}

#[test]
fn the_urls_are_each_once_by_page_http_only_and_bounded() {
    let a = r#"{"url":"http://x/","html":["HTML",{}],"images":["http://x/a.png","http://x/b.png","blob:http://x/1"]}"#;
    let b = r#"{"images":["http://x/a.png","https://y/c.gif","data:image/png;base64,AA=="],"fonts":["http://x/f.woff2"],"cssImages":["http://x/bg.png"]}"#;
    let (wanted, over) = super::wanted(&[
        held(0, a),
        held(0, b),
        held(1, b),
        held(0, "not json"),
        held(0, r#"{"omitted":"5 MiB"}"#),
    ]);
    assert_eq!(over, 0);
    let image = |u: &str| Want {
        url: u.into(),
        kind: Kind::Image,
    };
    let bg = Want {
        url: "http://x/bg.png".into(),
        kind: Kind::CssImage,
    };
    let font = Want {
        url: "http://x/f.woff2".into(),
        kind: Kind::Font,
    };
    assert_eq!(
        wanted,
        [
            (
                0,
                vec![
                    image("http://x/a.png"),
                    image("http://x/b.png"),
                    image("https://y/c.gif"),
                    bg.clone(),
                    font.clone(),
                ]
            ),
            (
                1,
                vec![image("http://x/a.png"), image("https://y/c.gif"), bg, font]
            ),
        ]
    );
    let many: Vec<String> = (0..MAX_URLS + 5)
        .map(|i| format!("http://x/{i}.png"))
        .collect();
    let json = json!({ "images": many }).to_string();
    let (wanted, over) = super::wanted(&[held(0, &json)]);
    assert_eq!(wanted[0].1.len(), MAX_URLS);
    assert_eq!(over, 5);
}

#[test]
fn the_extension_is_the_mime_types_and_bin_otherwise() {
    for (mime, ext) in [
        ("image/png", "png"),
        ("IMAGE/PNG; charset=binary", "png"),
        ("image/jpeg", "jpg"),
        ("image/gif", "gif"),
        ("image/webp", "webp"),
        ("image/svg+xml", "svg"),
        ("image/avif", "avif"),
        ("image/x-icon", "ico"),
        ("image/vnd.microsoft.icon", "ico"),
        ("font/woff2", "woff2"),
        ("font/woff", "woff"),
        ("font/ttf", "ttf"),
        ("font/otf", "otf"),
        ("text/css", "css"),
        ("text/html", "bin"),
        ("", "bin"),
    ] {
        assert_eq!(crate::trace::resource_ext(mime), ext, "{mime}");
        assert!(crate::trace::resource_type(ext).is_some(), "{ext}");
    }
    assert_eq!(crate::trace::resource_type("png"), Some("image/png"));
    assert_eq!(crate::trace::resource_type("exe"), None);
}

#[test]
fn a_body_over_8_mib_or_past_the_runs_64_mib_is_not_kept_and_one_stored_is_not_again() {
    let mut f = Fetched::default();
    let png = vec![1u8; 100];
    let (kept, new) = f.admit(Some("image/png"), &png).unwrap();
    assert!(new);
    assert_eq!(
        kept,
        Kept {
            sha: ContentHash::of(&png),
            ext: "png",
            bytes: 100
        }
    );
    let (again, new) = f.admit(Some("image/png"), &png).unwrap();
    assert_eq!(again, kept);
    assert!(!new, "stored already: not sent again, not counted again");
    assert!(matches!(
        f.admit(None, &vec![0u8; RESOURCE_LIMIT + 1]),
        Err(Unread::TooLarge)
    ));
    assert_eq!(
        f.admit(None, &vec![2u8; RESOURCE_LIMIT]).unwrap().0.ext,
        "bin"
    );
    // 100 + 8 MiB stored: seven more of 8 MiB pass 64 MiB at the seventh.
    for i in 3..9u8 {
        assert!(f.admit(None, &vec![i; RESOURCE_LIMIT]).is_ok(), "{i}");
    }
    let over = f.admit(None, &vec![9u8; RESOURCE_LIMIT]);
    assert!(matches!(over, Err(Unread::RunFull)), "{over:?}");
    assert!(Unread::RunFull.to_string().contains("64 MiB"));
    // One already stored still is (it costs nothing new).
    assert!(f.admit(Some("image/png"), &png).is_ok());
}

#[test]
fn a_body_read_is_remembered_per_page_and_request_the_latest_512() {
    let mut f = Fetched::default();
    let k = |n: u8| Kept {
        sha: ContentHash::of(&[n]),
        ext: "png",
        bytes: 1,
    };
    f.remember(0, "r1".into(), k(1));
    assert_eq!(f.known(0, "r1"), Some(k(1)));
    assert_eq!(f.known(1, "r1"), None, "another page's request");
    for i in 0..CACHE {
        f.remember(0, format!("x{i}"), k(2));
    }
    assert_eq!(f.known(0, "r1"), None, "the oldest out");
    assert_eq!(f.known(0, "x0"), Some(k(2)));
}

#[test]
fn trace_dom_json_maps_each_image_url_to_its_resource_or_null() {
    let png = ContentHash::of(b"png bytes");
    let mut images = BTreeMap::new();
    images.insert(
        "http://x/logo.png".to_string(),
        Some(Kept {
            sha: png.clone(),
            ext: "png",
            bytes: 9,
        }),
    );
    images.insert("http://x/gone.gif".to_string(), None);
    let snap = r#"{"url":"http://x/","html":["HTML",{},["IMG",{"src":"logo.png"}]],"images":["http://x/logo.png","http://x/gone.gif"]}"#;
    let woff = ContentHash::of(b"woff2 bytes");
    let mut fonts = BTreeMap::new();
    fonts.insert(
        "http://x/f.woff2".to_string(),
        Some(Kept {
            sha: woff.clone(),
            ext: "woff2",
            bytes: 11,
        }),
    );
    let written = file(vec![held(0, snap)], |_| Some(1), &images, &fonts);
    let v: Value = serde_json::from_slice(&written.bytes).unwrap();
    let sha = png.as_str();
    assert_eq!(
        v["images"],
        json!({"http://x/logo.png": sha, "http://x/gone.gif": null})
    );
    assert_eq!(
        v["resources"][sha],
        json!({"type": "image/png", "bytes": 9, "file": format!("../../trace-resources/{sha}.png")})
    );
    assert_eq!(v["fonts"], json!({"http://x/f.woff2": woff.as_str()}));
    assert_eq!(v["resources"][woff.as_str()]["type"], "font/woff2");
    assert!(
        v["snapshots"][0].get("images").is_none(),
        "the page's list is not written: {v:#}"
    );
    // No images: no map (older readers see the file as before).
    let none = BTreeMap::new();
    let written = file(vec![held(0, snap)], |_| Some(1), &none, &none);
    let v: Value = serde_json::from_slice(&written.bytes).unwrap();
    assert!(v.get("images").is_none() && v.get("fonts").is_none());
}

/// A snapshot of a page nested as deep as the serialiser goes (256
/// elements, each an array in the JSON): its images are still read, and
/// `trace-dom.json` keeps its tree, not an error (serde_json parses a
/// `Value` 128 levels deep at most; what Rust reads of a snapshot skips
/// the tree).
#[test]
fn a_snapshot_nested_256_elements_deep_keeps_its_images_and_its_tree() {
    let mut html = String::from(r#"["IMG",{"src":"deep.png"}]"#);
    for _ in 0..256 {
        html = format!(r#"["DIV",{{"class":"a]}}[\"b"}},{html}]"#);
    }
    let snap = format!(
        r#"{{"url":"http://x/","html":{html},"images":["http://x/deep.png"],"fonts":["http://x/f.woff2"]}}"#
    );
    let (by_page, over) = wanted(&[held(0, &snap)]);
    assert_eq!(over, 0);
    let urls: Vec<&str> = by_page[0].1.iter().map(|w| w.url.as_str()).collect();
    assert_eq!(urls, ["http://x/deep.png", "http://x/f.woff2"]);
    let none = BTreeMap::new();
    let written = file(vec![held(0, &snap)], |_| Some(1), &none, &none);
    // Read back as the report does: the tree kept as it came, not parsed.
    #[derive(serde::Deserialize)]
    struct Snapshot {
        url: String,
        html: Box<serde_json::value::RawValue>,
        error: Option<Box<serde_json::value::RawValue>>,
    }
    #[derive(serde::Deserialize)]
    struct Dom {
        snapshots: Vec<Snapshot>,
    }
    let dom: Dom = serde_json::from_slice(&written.bytes).unwrap();
    let s = &dom.snapshots[0];
    assert!(s.error.is_none(), "{:?}", s.error);
    assert_eq!(s.url, "http://x/");
    assert_eq!(s.html.get(), html);
}
