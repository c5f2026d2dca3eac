//! Render SVG pictures to PNG, to look at what `gpuzzle draw` and `bench --svg` produce:
//! `cargo run --example svg_to_png -- in.svg [more.svg ...]` writes `in.png` beside each.
//! Uses resvg (a dev-dependency) with the system's fonts, as tests/cli_draw.rs does.

fn main() {
    let mut opt = resvg::usvg::Options::default();
    opt.fontdb_mut().load_system_fonts();
    // plotters writes the generic `sans-serif`; fontdb's default for it may not be installed.
    opt.fontdb_mut().set_sans_serif_family("DejaVu Sans");
    let mut failed = false;
    for path in std::env::args().skip(1) {
        let result = std::fs::read_to_string(&path)
            .map_err(|e| e.to_string())
            .and_then(|svg| resvg::usvg::Tree::from_str(&svg, &opt).map_err(|e| e.to_string()))
            .and_then(|tree| {
                let size = tree.size().to_int_size();
                let mut pix = resvg::tiny_skia::Pixmap::new(size.width(), size.height())
                    .ok_or("the picture has no area")?;
                resvg::render(
                    &tree,
                    resvg::tiny_skia::Transform::default(),
                    &mut pix.as_mut(),
                );
                let out = std::path::Path::new(&path).with_extension("png");
                pix.save_png(&out).map_err(|e| e.to_string())?;
                Ok(out)
            });
        match result {
            Ok(out) => println!("{}", out.display()),
            Err(e) => {
                eprintln!("{path}: {e}");
                failed = true;
            }
        }
    }
    std::process::exit(i32::from(failed));
}
