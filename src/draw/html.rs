//! The flow picture in an HTML page (`draw --out FILE.html`): hovering a cell shows who read and
//! who wrote it and dims every other line; hovering a thread box does the same for the thread.
//! The page reads the picture's own `data-cell` and `data-thread` attributes; nothing else.

use super::svg::esc;

const SCRIPT: &str = r#"
const info = document.getElementById('info');
const lines = [...document.querySelectorAll('line.flow')];
function reset() { lines.forEach(l => l.style.opacity = ''); info.textContent = info.dataset.idle; }
document.querySelectorAll('rect.cell').forEach(c => {
  c.addEventListener('mouseenter', () => {
    const hit = lines.filter(l => l.dataset.cell === c.dataset.cell);
    lines.forEach(l => l.style.opacity = hit.includes(l) ? '1' : '0.08');
    const who = cls => [...new Set(hit.filter(l => l.classList.contains(cls)).map(l => l.dataset.thread))].join(' ') || 'nobody (in this block)';
    info.textContent = c.dataset.cell + ': read by ' + who('read') + '; written by ' + who('write');
  });
  c.addEventListener('mouseleave', reset);
});
document.querySelectorAll('rect.thread').forEach(b => {
  b.addEventListener('mouseenter', () => {
    const hit = lines.filter(l => l.dataset.thread === b.dataset.thread);
    lines.forEach(l => l.style.opacity = hit.includes(l) ? '1' : '0.08');
    const cells = cls => [...new Set(hit.filter(l => l.classList.contains(cls)).map(l => l.dataset.cell))].join(' ') || 'nothing';
    info.textContent = b.dataset.thread + ' read ' + cells('read') + ' and wrote ' + cells('write');
  });
  b.addEventListener('mouseleave', reset);
});
"#;

/// A page holding `svg` with the hover script.
pub fn page(svg: &str, title: &str) -> String {
    let idle =
        "Point at a cell to see who read and wrote it, or at a thread to see what it touched.";
    format!(
        "<!DOCTYPE html>\n<html lang=\"en\">\n<head><meta charset=\"utf-8\"><title>{t}</title>\n<style>body{{font-family:'DejaVu Sans',Verdana,sans-serif;margin:16px}}#info{{position:sticky;top:0;background:#fffbe6;border:1px solid #d8c98a;padding:6px 10px;margin-bottom:8px;min-height:1.2em}}line.flow{{transition:opacity .1s}}</style></head>\n<body>\n<div id=\"info\" data-idle=\"{idle}\">{idle}</div>\n{svg}<script>{SCRIPT}</script>\n</body>\n</html>\n",
        t = esc(title),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_page_embeds_the_picture_and_its_script() {
        let p = page(
            "<svg><rect class=\"cell\" data-cell=\"a[0]\"/></svg>\n",
            "draw <9>",
        );
        assert!(p.starts_with("<!DOCTYPE html>"));
        assert!(p.contains("<title>draw &lt;9&gt;</title>"));
        assert!(p.contains("data-cell=\"a[0]\""));
        assert!(p.contains("querySelectorAll('rect.cell')"));
    }
}
