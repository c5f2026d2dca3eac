//! A small SVG writer: elements appended as text, escaped, with numbers rounded so the output
//! is stable (snapshots, diffs).

use std::fmt::Write;

/// Escape text for element content and attribute values.
pub fn esc(s: &str) -> String {
    let mut o = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '&' => o.push_str("&amp;"),
            '<' => o.push_str("&lt;"),
            '>' => o.push_str("&gt;"),
            '"' => o.push_str("&quot;"),
            '\'' => o.push_str("&#39;"),
            c if (c as u32) < 0x20 && c != '\n' && c != '\t' => {}
            c => o.push(c),
        }
    }
    o
}

/// A number as SVG wants it: at most one decimal, no trailing `.0`.
pub fn num(v: f64) -> String {
    let r = (v * 10.0).round() / 10.0;
    if r == r.trunc() {
        format!("{}", r as i64)
    } else {
        format!("{r:.1}")
    }
}

/// A cell's value in few characters: whole numbers as they are, others to 3 decimals.
pub fn short_value(v: f64) -> String {
    if v.is_nan() {
        "NaN".into()
    } else if v.is_infinite() {
        if v > 0.0 { "inf" } else { "-inf" }.into()
    } else if v == v.trunc() && v.abs() < 1e7 {
        format!("{}", v as i64)
    } else if v.abs() >= 1e5 || v.abs() < 1e-3 {
        format!("{v:.1e}")
    } else {
        let s = format!("{v:.3}");
        s.trim_end_matches('0').trim_end_matches('.').to_string()
    }
}

/// A distinct colour per thread: hues spread by the golden angle, so neighbours differ.
pub fn thread_colour(i: usize) -> String {
    // Red is kept for mistakes: hues near it move on to orange.
    let hue = (210.0 + i as f64 * 137.508) % 360.0;
    let hue = if !(20.0..=340.0).contains(&hue) {
        (hue + 40.0) % 360.0
    } else {
        hue
    };
    format!("hsl({},65%,42%)", num(hue))
}

#[derive(Default)]
pub struct Svg {
    defs: String,
    body: String,
}

impl Svg {
    pub fn new() -> Svg {
        Svg::default()
    }

    pub fn def(&mut self, raw: &str) {
        self.defs.push_str(raw);
        self.defs.push('\n');
    }

    /// `<rect>` with extra attributes (already escaped) and an optional tooltip.
    pub fn rect(&mut self, x: f64, y: f64, w: f64, h: f64, attrs: &str, title: Option<&str>) {
        let _ = write!(
            self.body,
            r#"<rect x="{}" y="{}" width="{}" height="{}" {attrs}"#,
            num(x),
            num(y),
            num(w),
            num(h)
        );
        match title {
            Some(t) => {
                let _ = writeln!(self.body, "><title>{}</title></rect>", esc(t));
            }
            None => self.body.push_str("/>\n"),
        }
    }

    pub fn text(&mut self, x: f64, y: f64, s: &str, attrs: &str) {
        let _ = writeln!(
            self.body,
            r#"<text x="{}" y="{}" {attrs}>{}</text>"#,
            num(x),
            num(y),
            esc(s)
        );
    }

    pub fn line(&mut self, a: (f64, f64), b: (f64, f64), attrs: &str) {
        let _ = writeln!(
            self.body,
            r#"<line x1="{}" y1="{}" x2="{}" y2="{}" {attrs}/>"#,
            num(a.0),
            num(a.1),
            num(b.0),
            num(b.1)
        );
    }

    /// Open a group (`</g>` with `close`).
    pub fn group(&mut self, attrs: &str) {
        let _ = writeln!(self.body, "<g {attrs}>");
    }

    pub fn close(&mut self) {
        self.body.push_str("</g>\n");
    }

    /// The document, `w` × `h` pixels, on a white background.
    pub fn finish(self, w: f64, h: f64, title: &str) -> String {
        let mut s = String::new();
        let _ = writeln!(
            s,
            r#"<svg xmlns="http://www.w3.org/2000/svg" width="{w}" height="{h}" viewBox="0 0 {w} {h}" font-family="DejaVu Sans, Verdana, sans-serif">"#,
            w = num(w),
            h = num(h)
        );
        let _ = writeln!(s, "<title>{}</title>", esc(title));
        if !self.defs.is_empty() {
            let _ = write!(s, "<defs>\n{}</defs>\n", self.defs);
        }
        let _ = writeln!(
            s,
            r##"<rect x="0" y="0" width="{}" height="{}" fill="#ffffff"/>"##,
            num(w),
            num(h)
        );
        s.push_str(&self.body);
        s.push_str("</svg>\n");
        s
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn text_is_escaped_and_numbers_rounded() {
        let mut s = Svg::new();
        s.text(1.04, 2.25, "a<b & \"c\"", r#"class="t""#);
        let doc = s.finish(10.0, 20.0, "x");
        assert!(
            doc.contains(r#"<text x="1" y="2.3" class="t">a&lt;b &amp; &quot;c&quot;</text>"#),
            "{doc}"
        );
        assert!(doc.starts_with("<svg "));
        assert_eq!(num(-0.04), "0");
        assert_eq!(num(3.0), "3");
    }

    #[test]
    fn neighbouring_threads_get_different_colours() {
        assert_ne!(thread_colour(0), thread_colour(1));
        assert_ne!(thread_colour(1), thread_colour(2));
    }
}
