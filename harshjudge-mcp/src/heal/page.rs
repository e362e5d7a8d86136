//! What a failed step's recorded page offers a locator: the roles and names of
//! its `aria.yml` (Playwright's ARIA snapshot) and the labels, test ids and
//! placeholders of its `page.html`.

use harshjudge_browser::regex::Regex;

/// One node of an ARIA snapshot: `- role "name"`, or `- text: …` (role `text`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct AriaNode {
    /// The role (`button`, `textbox`, `text`, …).
    pub role: String,
    /// The accessible name (or the text), unescaped.
    pub name: String,
}

/// The nodes of an ARIA snapshot that have a name or a text.
pub fn aria_nodes(yaml: &str) -> Vec<AriaNode> {
    let named = Regex::new(r#"^\s*-\s+([a-z]+)\s+"((?:[^"\\]|\\.)*)""#).expect("regex");
    let text = Regex::new(r#"^\s*-\s+text:\s*(.+?)\s*$"#).expect("regex");
    let mut nodes = Vec::new();
    for line in yaml.lines() {
        if let Some(c) = named.captures(line) {
            nodes.push(AriaNode {
                role: c[1].to_string(),
                name: unescape(&c[2]),
            });
        } else if let Some(c) = text.captures(line) {
            nodes.push(AriaNode {
                role: "text".into(),
                name: c[1].trim_matches('"').to_string(),
            });
        }
    }
    nodes
}

fn unescape(s: &str) -> String {
    s.replace("\\\"", "\"").replace("\\\\", "\\")
}

/// The values of attribute `name` in an HTML document (quoted or not).
pub fn attribute_values(html: &str, name: &str) -> Vec<String> {
    let re = Regex::new(&format!(
        r#"(?i)\s{}\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s>"']+))"#,
        harshjudge_browser::regex::escape(name)
    ))
    .expect("regex");
    let mut out: Vec<String> = re
        .captures_iter(html)
        .filter_map(|c| c.get(1).or(c.get(2)).or(c.get(3)))
        .map(|m| html_unescape(m.as_str()))
        .collect();
    out.dedup();
    out
}

/// The texts of the `<label>` elements of an HTML document (tags removed).
pub fn label_texts(html: &str) -> Vec<String> {
    let re = Regex::new(r"(?is)<label\b[^>]*>(.*?)</label>").expect("regex");
    let tags = Regex::new(r"(?s)<[^>]*>").expect("regex");
    re.captures_iter(html)
        .map(|c| {
            html_unescape(&tags.replace_all(&c[1], " "))
                .split_whitespace()
                .collect::<Vec<_>>()
                .join(" ")
        })
        .filter(|t| !t.is_empty())
        .collect()
}

fn html_unescape(s: &str) -> String {
    s.replace("&quot;", "\"")
        .replace("&#39;", "'")
        .replace("&lt;", "<")
        .replace("&gt;", ">")
        .replace("&amp;", "&")
}

/// How close two names are, from 0 to 1: the larger of the Dice coefficient
/// of their letter pairs and the share of words they have in common (case and
/// surrounding blanks ignored).
pub fn similarity(a: &str, b: &str) -> f64 {
    let (a, b) = (a.trim().to_lowercase(), b.trim().to_lowercase());
    if a == b {
        return 1.0;
    }
    let pairs = |s: &str| {
        let c: Vec<char> = s.chars().collect();
        c.windows(2).map(|w| (w[0], w[1])).collect::<Vec<_>>()
    };
    let (pa, mut pb) = (pairs(&a), pairs(&b));
    let total = pa.len() + pb.len();
    let mut common = 0;
    for p in &pa {
        if let Some(i) = pb.iter().position(|q| q == p) {
            pb.swap_remove(i);
            common += 1;
        }
    }
    let dice = if total == 0 {
        0.0
    } else {
        2.0 * common as f64 / total as f64
    };
    let wa: std::collections::BTreeSet<&str> = a.split_whitespace().collect();
    let wb: std::collections::BTreeSet<&str> = b.split_whitespace().collect();
    let union = wa.union(&wb).count();
    let words = if union == 0 {
        0.0
    } else {
        wa.intersection(&wb).count() as f64 / union as f64
    };
    dice.max(words)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_page_is_read_for_names_labels_and_attributes() {
        let yaml = "- heading \"Your order\" [level=1]\n- text: Your name\n- textbox \"Your name\"\n- button \"Place \\\"it\\\"\"\n- link \"Help\":\n  - /url: /help\n";
        let nodes = aria_nodes(yaml);
        assert_eq!(nodes.len(), 5);
        assert_eq!(nodes[3].name, "Place \"it\"");
        assert_eq!(
            (nodes[1].role.as_str(), nodes[1].name.as_str()),
            ("text", "Your name")
        );
        let html = r#"<label for="n">Your <b>name</b></label><input data-testid="customer-name" placeholder='Ada'><p data-testid=status>"#;
        assert_eq!(label_texts(html), ["Your name"]);
        assert_eq!(
            attribute_values(html, "data-testid"),
            ["customer-name", "status"]
        );
        assert_eq!(attribute_values(html, "placeholder"), ["Ada"]);
        assert!(similarity("Full name", "Your name") >= 0.5);
        assert!(similarity("Submit order", "Place order") > similarity("Submit order", "Help"));
    }
}
