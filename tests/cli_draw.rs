//! Pictures through the real binary: `draw` (data flow and `--warps`), `run --trace` and
//! `run --draw`, `bench --svg`; each SVG is rendered to pixels with resvg and checked for what a
//! learner must see. The PNGs are kept under target/pictures/ for people to look at.
//! These need NVRTC, as the other CLI tests do.

use assert_cmd::Command;
use std::path::{Path, PathBuf};

fn gpuzzle() -> Command {
    let mut c = Command::cargo_bin("gpuzzle").expect("binary builds");
    c.env("NO_COLOR", "1")
        .env("GPUZZLE_BACKEND", "emu")
        .env_remove("GPUZZLE_PUZZLES");
    c
}

/// A fresh workspace made by `gpuzzle init`, with `files` (name, text) written into puzzles/.
fn workspace(files: &[(&str, &str)]) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    gpuzzle()
        .arg("init")
        .arg(dir.path().join("ws"))
        .assert()
        .success();
    for (name, text) in files {
        std::fs::write(dir.path().join("ws/puzzles").join(name), text).unwrap();
    }
    dir
}

fn in_ws(dir: &Path) -> Command {
    let mut c = gpuzzle();
    c.current_dir(dir.join("ws"));
    c
}

/// Run `draw` with `args` in the workspace and return the SVG it wrote.
fn draw(dir: &Path, args: &[&str]) -> String {
    let out = dir.join("picture.svg");
    let assert = in_ws(dir)
        .arg("draw")
        .args(args)
        .arg("--out")
        .arg(&out)
        .assert();
    let o = assert.get_output();
    assert!(
        o.status.success(),
        "draw {args:?} failed: {}{}",
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr)
    );
    std::fs::read_to_string(&out).unwrap()
}

/// The SVG rendered to pixels (system fonts for the text), also saved as
/// target/pictures/NAME.png.
fn render(svg: &str, name: &str) -> resvg::tiny_skia::Pixmap {
    let mut opt = resvg::usvg::Options::default();
    opt.fontdb_mut().load_system_fonts();
    // plotters writes the generic `sans-serif`; fontdb's default for it may not be installed.
    opt.fontdb_mut().set_sans_serif_family("DejaVu Sans");
    let tree = resvg::usvg::Tree::from_str(svg, &opt)
        .unwrap_or_else(|e| panic!("{name}: not valid SVG: {e}"));
    let size = tree.size().to_int_size();
    assert!(
        size.width() > 100 && size.height() > 100,
        "{name}: {size:?}"
    );
    let mut pix = resvg::tiny_skia::Pixmap::new(size.width(), size.height()).unwrap();
    resvg::render(
        &tree,
        resvg::tiny_skia::Transform::default(),
        &mut pix.as_mut(),
    );
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("target/pictures");
    let _ = std::fs::create_dir_all(&dir);
    let _ = pix.save_png(dir.join(format!("{name}.png")));
    pix
}

/// Attribute `name` of an element's opening tag.
fn attr(tag: &str, name: &str) -> Option<f64> {
    let key = format!(" {name}=\"");
    let at = tag.find(&key)? + key.len();
    tag[at..].split('"').next()?.parse().ok()
}

/// The opening tags of `<rect>`s whose class list contains every word of `class`.
fn rects<'a>(svg: &'a str, class: &str) -> Vec<&'a str> {
    svg.split("<rect ")
        .skip(1)
        .filter(|t| {
            let Some(c) = t.split("class=\"").nth(1).and_then(|c| c.split('"').next()) else {
                return false;
            };
            class.split(' ').all(|w| c.split(' ').any(|x| x == w))
        })
        .collect()
}

fn bounds(tag: &str) -> (u32, u32, u32, u32) {
    // Only the rect's own tag (split off its leading space by `rects`).
    let tag = format!(" {}", tag.split('>').next().unwrap_or(tag));
    let v = |n| attr(&tag, n).unwrap_or_else(|| panic!("no {n} in {tag}"));
    (
        v("x") as u32,
        v("y") as u32,
        v("width") as u32,
        v("height") as u32,
    )
}

fn pixel(p: &resvg::tiny_skia::Pixmap, x: u32, y: u32) -> (u8, u8, u8) {
    let c = p
        .pixel(x, y)
        .unwrap_or_else(|| panic!("({x},{y}) outside the picture"));
    (c.red(), c.green(), c.blue())
}

fn is_red((r, g, b): (u8, u8, u8)) -> bool {
    r > 180 && g < 60 && b < 60
}

/// The left edge of a cell's outline is drawn red.
fn outlined_red(p: &resvg::tiny_skia::Pixmap, tag: &str) -> bool {
    let (x, y, _, h) = bounds(tag);
    let bad: Vec<_> = (y + 6..y + h - 6)
        .map(|yy| pixel(p, x, yy))
        .filter(|&c| !is_red(c))
        .collect();
    assert!(bad.is_empty(), "not red at x={x}: {bad:?}");
    true
}

/// Both stripes of the hatch pattern show inside the cell.
fn hatched(p: &resvg::tiny_skia::Pixmap, tag: &str) -> bool {
    let (x, y, w, h) = bounds(tag);
    let mut light = 0;
    let mut dark = 0;
    for yy in y + 3..y + h - 3 {
        for xx in x + 3..x + w - 3 {
            let (r, g, b) = pixel(p, xx, yy);
            let l = (r as u32 + g as u32 + b as u32) / 3;
            if l > 225 {
                light += 1;
            } else if l < 175 {
                dark += 1;
            }
        }
    }
    light > 20 && dark > 20
}

const POOLING_WRONG_NEIGHBOUR: &str = r#"
extern "C" __global__ void pooling(float* out, const float* a, int size) {
    __shared__ float cache[TPB];
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int local_i = threadIdx.x;
    if (i < size) cache[local_i] = a[i];
    __syncthreads();
    if (i < size) {
        float sum = cache[local_i];
        if (local_i >= 1) sum += cache[local_i - 1];
        if (local_i >= 2) sum += cache[local_i - 3 < 0 ? 0 : local_i - 3];
        out[i] = sum;
    }
}
"#;

#[test]
fn pooling_solution_has_a_box_per_thread_and_nothing_marked() {
    let dir = workspace(&[]);
    let svg = draw(dir.path(), &["9", "--solution"]);
    let pix = render(&svg, "pooling-solution");
    assert_eq!(rects(&svg, "thread").len(), 8);
    assert!(rects(&svg, "wrong").is_empty());
    assert!(rects(&svg, "unwritten").is_empty());
    assert!(rects(&svg, "over").is_empty());
    // a, cache and out: 8 cells each.
    assert_eq!(rects(&svg, "cell").len(), 24);
    assert!(pix.data().iter().any(|&b| b < 128), "the picture is blank");
}

#[test]
fn a_wrong_neighbour_read_in_pooling_is_outlined_red() {
    let dir = workspace(&[("09_pooling.cu", POOLING_WRONG_NEIGHBOUR)]);
    let svg = draw(dir.path(), &["9"]);
    let pix = render(&svg, "pooling-wrong-neighbour");
    let wrong = rects(&svg, "cell wrong");
    // out[3..7] sum cache[i-3] instead of cache[i-2]; out[2] reads cache[0], which is right.
    assert_eq!(wrong.len(), 5, "{svg}");
    assert!(
        wrong[0].contains("out[3] = 5: expected 6, got 5"),
        "{}",
        wrong[0]
    );
    for w in &wrong {
        assert!(outlined_red(&pix, w), "not outlined red: {w}");
    }
    // Thread 5's read line comes from cache[2], the wrong neighbour.
    assert!(svg.contains("class=\"flow read\""));
}

#[test]
fn an_unwritten_output_is_hatched_and_the_starter_still_draws() {
    let dir = workspace(&[]);
    let svg = draw(dir.path(), &["9"]);
    let pix = render(&svg, "pooling-starter");
    let unwritten = rects(&svg, "cell unwritten");
    assert_eq!(unwritten.len(), 8, "{svg}");
    for u in &unwritten {
        assert!(hatched(&pix, u), "not hatched: {u}");
    }
    assert_eq!(rects(&svg, "thread").len(), 8);
    assert!(svg.contains("no thread of this block read or wrote"));
}

#[test]
fn an_over_budget_thread_is_highlighted() {
    // Reading the neighbours from global memory: 3 global reads per thread against 1.
    let src = r#"
extern "C" __global__ void pooling(float* out, const float* a, int size) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < size) {
        float sum = a[i];
        if (i >= 1) sum += a[i - 1];
        if (i >= 2) sum += a[i - 2];
        out[i] = sum;
    }
}
"#;
    let dir = workspace(&[("09_pooling.cu", src)]);
    let svg = draw(dir.path(), &["9"]);
    let pix = render(&svg, "pooling-over-budget");
    let over = rects(&svg, "thread over");
    // Threads 1..7 read 2 or 3 values.
    assert_eq!(over.len(), 7);
    for o in &over {
        assert!(outlined_red(&pix, o), "not outlined red: {o}");
    }
}
