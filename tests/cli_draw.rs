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
    // a and out: 8 cells each; cache: TPB + 2 = 10 (the two values before the block first).
    assert_eq!(rects(&svg, "cell").len(), 26);
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
    // Threads 2..7 read 3 values (the budget is 2: the halo loads).
    assert_eq!(over.len(), 6);
    for o in &over {
        assert!(outlined_red(&pix, o), "not outlined red: {o}");
    }
}

/// Puzzle 35 with the unpadded tile: reading a column of it is a 32-way bank conflict.
const TRANSPOSE_CONFLICT: &str = r#"
extern "C" __global__ void transpose(float* out, const float* a, int rows, int cols) {
    __shared__ float tile[TILE][TILE];
    int col = blockIdx.x * TILE + threadIdx.x;
    int row = blockIdx.y * TILE + threadIdx.y;
    if (row < rows && col < cols) tile[threadIdx.y][threadIdx.x] = a[row * cols + col];
    __syncthreads();
    int out_row = blockIdx.x * TILE + threadIdx.y;
    int out_col = blockIdx.y * TILE + threadIdx.x;
    if (out_row < cols && out_col < rows) out[out_row * rows + out_col] = tile[threadIdx.x][threadIdx.y];
}
"#;

/// Puzzle 34 written naively: each warp writes a column of `out`, one sector per lane.
const TRANSPOSE_NAIVE: &str = r#"
extern "C" __global__ void transpose(float* out, const float* a, int rows, int cols) {
    int col = blockIdx.x * TILE + threadIdx.x;
    int row = blockIdx.y * TILE + threadIdx.y;
    if (row < rows && col < cols) out[col * rows + row] = a[row * cols + col];
}
"#;

#[test]
fn a_bank_conflict_is_a_column_of_32_in_the_warp_picture() {
    let dir = workspace(&[("35_bank_conflict_free_transpose.cu", TRANSPOSE_CONFLICT)]);
    let svg = draw(dir.path(), &["35", "--warps"]);
    let pix = render(&svg, "transpose-bank-conflict");
    assert!(svg.contains("32-way bank conflict"), "{svg}");
    // Every lane asks bank 0 for a different word: one conflicting bank, 32 boxes under it.
    let conflict = rects(&svg, "bank conflict");
    assert_eq!(conflict.len(), 1);
    assert_eq!(rects(&svg, "bank-lane").len(), 32);
    assert!(outlined_red(&pix, conflict[0]));
    // The padded tile of the solution is conflict-free.
    let svg = draw(dir.path(), &["35", "--warps", "--solution"]);
    render(&svg, "transpose-solution-warps");
    assert!(svg.contains("conflict-free"));
    assert!(rects(&svg, "bank conflict").is_empty());
}

#[test]
fn scattered_and_coalesced_warps_are_told_apart() {
    let dir = workspace(&[("34_coalesced_transpose.cu", TRANSPOSE_NAIVE)]);
    let svg = draw(dir.path(), &["34", "--warps"]);
    render(&svg, "transpose-naive-warps");
    assert!(
        svg.contains("scattered: 32 sectors where 4 would do"),
        "{svg}"
    );
    assert_eq!(rects(&svg, "sector").len(), 32);
    assert_eq!(rects(&svg, "lane").len(), 32);
    let svg = draw(dir.path(), &["34", "--warps", "--solution"]);
    // The solution's worst access is a row that starts inside a sector (70 floats a row).
    assert!(
        svg.contains("(at best 4): coalesced, but it starts inside a sector"),
        "{svg}"
    );
    assert!(rects(&svg, "sector").len() <= 5);
}

/// Every puzzle of the repository's pack draws, for the reference solution and for the
/// untouched starter: the flow picture of its first test, valid SVG with a box per thread.
#[test]
fn every_puzzle_draws_for_its_solution_and_its_starter() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let out = tempfile::tempdir().unwrap();
    let mut ids: Vec<String> = std::fs::read_dir(root.join("puzzles"))
        .unwrap()
        .filter_map(|e| {
            let name = e.ok()?.file_name().into_string().ok()?;
            let stem = name.strip_suffix(".toml")?;
            Some(stem.split('_').next()?.to_string())
        })
        .collect();
    ids.sort();
    assert!(ids.len() >= 35, "{ids:?}");
    let mut opt = resvg::usvg::Options::default();
    opt.fontdb_mut().load_system_fonts();
    for id in &ids {
        for solution in [true, false] {
            let file = out.path().join(format!("{id}-{solution}.svg"));
            let mut c = gpuzzle();
            c.current_dir(root).args(["draw", id, "--out"]).arg(&file);
            if solution {
                c.arg("--solution");
            }
            let o = c.output().unwrap();
            assert!(
                o.status.success(),
                "draw {id} (solution: {solution}): {}{}",
                String::from_utf8_lossy(&o.stdout),
                String::from_utf8_lossy(&o.stderr)
            );
            let svg = std::fs::read_to_string(&file).unwrap();
            resvg::usvg::Tree::from_str(&svg, &opt)
                .unwrap_or_else(|e| panic!("draw {id} (solution: {solution}): not valid SVG: {e}"));
            assert!(
                !rects(&svg, "thread").is_empty(),
                "draw {id}: no thread boxes"
            );
            if solution {
                assert!(
                    rects(&svg, "wrong").is_empty(),
                    "draw {id} --solution marks a wrong cell"
                );
            }
        }
    }
}

#[test]
fn run_trace_prints_each_threads_reads_and_writes() {
    let dir = workspace(&[]);
    let out = in_ws(dir.path())
        .args(["run", "9", "--solution", "--trace"])
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{text}");
    assert!(
        text.contains("Trace of test 1 (8 elements, 8 threads)"),
        "{text}"
    );
    assert!(
        text.contains("  t0: a[0] → cache[2] cache[0]; cache[0] cache[1] cache[2] → out[0]\n"),
        "{text}"
    );
    assert!(
        text.contains("  t3: a[3] → cache[5]; cache[3] cache[4] cache[5] → out[3]\n"),
        "{text}"
    );
    // The starter: every thread idle, said so; the verdict's exit code stays.
    let out = in_ws(dir.path())
        .args(["run", "9", "--trace"])
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(1), "{text}");
    assert!(
        text.contains("  t7: (no global or shared access)\n"),
        "{text}"
    );
}

#[test]
fn run_draw_writes_the_picture_and_prints_its_path() {
    let dir = workspace(&[("09_pooling.cu", POOLING_WRONG_NEIGHBOUR)]);
    let out = in_ws(dir.path())
        .args(["run", "9", "--draw"])
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(1), "{text}");
    let line = text
        .lines()
        .find(|l| l.starts_with("Picture of test 1: "))
        .unwrap_or_else(|| panic!("no path in: {text}"));
    let path = dir
        .path()
        .join("ws")
        .join(line.trim_start_matches("Picture of test 1: "));
    assert!(
        path.ends_with(".gpuzzle/pictures/09_pooling-test1.svg"),
        "{path:?}"
    );
    let svg = std::fs::read_to_string(&path).unwrap();
    assert_eq!(rects(&svg, "cell wrong").len(), 5);
}

#[test]
fn a_block_outside_the_grid_or_a_missing_test_is_a_usage_error() {
    let dir = workspace(&[]);
    let o = in_ws(dir.path())
        .args(["draw", "9", "--block", "1"])
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(2));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        err.contains("block 1 is outside it") && err.contains("--block X,Y"),
        "{err}"
    );
    let o = in_ws(dir.path())
        .args(["draw", "9", "--test", "4"])
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(2));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        err.contains("puzzle 9 has 3 test(s): choose --test 1 to 3"),
        "{err}"
    );
}

#[test]
fn a_larger_test_draws_the_chosen_block() {
    let dir = workspace(&[]);
    // Puzzle 14's second test: an 8x8 product in 3x3 blocks of 3x3 threads.
    let svg = draw(
        dir.path(),
        &["14", "--solution", "--test", "2", "--block", "2,1"],
    );
    render(&svg, "matmul-block-2-1");
    assert!(svg.contains("block (2,1) shown"), "{svg}");
    assert_eq!(rects(&svg, "thread").len(), 9);
    // Block (2,1) computes out rows 3..5, columns 6..7 (the last column of blocks is partial):
    // those cells are drawn.
    assert!(svg.contains("out[29] = "), "{svg}");
}

/// The structure of the pooling picture (elements and classes, not coordinates): what a
/// change to the drawing code changes shows up here.
#[test]
fn the_pooling_picture_keeps_its_structure() {
    let dir = workspace(&[("09_pooling.cu", POOLING_WRONG_NEIGHBOUR)]);
    let svg = draw(dir.path(), &["9"]);
    let mut counts = std::collections::BTreeMap::new();
    for part in svg.split('<').skip(1) {
        let tag: String = part
            .chars()
            .take_while(|c| c.is_ascii_alphanumeric())
            .collect();
        if tag.is_empty() {
            continue;
        }
        let class = part
            .split('>')
            .next()
            .and_then(|t| t.split("class=\"").nth(1))
            .and_then(|c| c.split('"').next())
            .unwrap_or("");
        *counts.entry(format!("{tag}.{class}")).or_insert(0) += 1;
    }
    let summary: Vec<String> = counts.iter().map(|(k, v)| format!("{k} {v}")).collect();
    // 24 cells (5 wrong), 8 threads; read lines: t0 2, t1 3, t2..t7 4 each (a[i] and three
    // cache cells); write lines: cache[i] and out[i] per thread.
    let expected = "\
defs. 1
g.legend 1
g.lines 1
g.row 3
g.threads 1
line. 3
line.flow read 29
line.flow write 16
marker. 1
path. 1
pattern. 1
rect. 5
rect.cell 19
rect.cell wrong 5
rect.thread 8
svg. 1
text. 76
text.heading 1
title. 33";
    assert_eq!(summary.join("\n"), expected);
}

#[test]
fn bench_svg_draws_the_roofline_with_a_stated_device() {
    let dir = workspace(&[]);
    let file = dir.path().join("roof.svg");
    let o = in_ws(dir.path())
        .args(["bench", "6", "--solution", "--svg"])
        .arg(&file)
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&o.stdout);
    assert!(
        o.status.success(),
        "{text}{}",
        String::from_utf8_lossy(&o.stderr)
    );
    assert!(text.contains("Roofline: "), "{text}");
    let svg = std::fs::read_to_string(&file).unwrap();
    let pix = render(&svg, "roofline-blocks");
    assert!(svg.contains("ridge point: 20.0 FLOP/byte"), "{svg}");
    assert!(svg.contains("Emulator: nothing was timed"), "{svg}");
    assert!(svg.contains("stated NVIDIA H100 SXM"), "{svg}");
    // The solution benched as "your kernel": one red point and its legend mark.
    let red = pix
        .pixels()
        .iter()
        .filter(|p| p.red() > 180 && p.green() < 60 && p.blue() < 60)
        .count();
    assert!(red > 100, "no red point ({red} red pixels)");
    // A puzzle without a bench says so, --svg or not.
    let o = in_ws(dir.path())
        .args(["bench", "9", "--svg"])
        .arg(&file)
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(2), "{err}");
    assert!(err.contains("has no [bench] table"), "{err}");
}

/// `emu::run_traced` directly: each thread's accesses in order, and past the cap a trace that
/// says it is incomplete instead of growing without bound.
#[test]
fn traces_are_ordered_and_bounded() {
    use gpuzzle::compile::{compile, CompileRequest};
    use gpuzzle::emu::value::{Buffer, ElemType, KernelArg, Scalar};
    use gpuzzle::emu::{run_traced, EmuOptions, LaunchConfig};
    let src = r#"
extern "C" __global__ void sum(float* out, const float* a, int n, int reps) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    float s = 0.0f;
    for (int r = 0; r < reps; r++) s += a[(i + r) % n];
    out[i] = s;
}
"#;
    let ptx = compile(&CompileRequest {
        file_name: "sum.cu",
        source: src,
        defines: &[],
        extra_options: &[],
    })
    .expect("NVRTC compiles the kernel")
    .ptx;
    let module = gpuzzle::ptx::parse(&ptx).unwrap();
    let run = |blocks: u32, reps: i32| {
        let threads = 256;
        let n = (blocks * threads) as usize;
        let args = vec![
            KernelArg::Buffer(Buffer::zeros("out", ElemType::F32, n)),
            KernelArg::Buffer(Buffer::from_values("a", ElemType::F32, &vec![1.0; n])),
            KernelArg::Scalar(Scalar::from_f64(ElemType::I32, n as f64)),
            KernelArg::Scalar(Scalar::from_f64(ElemType::I32, reps as f64)),
        ];
        let cfg = LaunchConfig {
            grid: [blocks, 1, 1],
            block: [threads, 1, 1],
            dynamic_shared: 0,
            cooperative: false,
        };
        run_traced(&module, "sum", &cfg, args, &EmuOptions::default()).unwrap()
    };
    let (r, t) = run(2, 3);
    assert!(r.diagnostics.is_empty(), "{:?}", r.diagnostics);
    assert!(t.complete);
    assert_eq!(t.blocks.len(), 2);
    // Thread 5 of block 1 (i = 261): a[261], a[262], a[263], then out[261].
    let log = &t.blocks[1].threads[5];
    let base = |name: &str| t.globals.iter().find(|g| g.name == name).unwrap().base;
    let got: Vec<(u64, bool)> = log.iter().map(|a| (a.addr, a.write)).collect();
    let a = base("a");
    assert_eq!(
        got,
        [
            (a + 261 * 4, false),
            (a + 262 * 4, false),
            (a + 263 * 4, false),
            (base("out") + 261 * 4, true)
        ]
    );
    // 64 blocks x 256 threads x 65 accesses is past the 2^20 kept: later blocks are left out.
    let (_, t) = run(64, 64);
    assert!(!t.complete);
    let kept: usize = t.blocks.iter().flat_map(|b| &b.threads).map(Vec::len).sum();
    assert!(kept <= gpuzzle::emu::trace::TRACE_CAP, "{kept}");
    assert!(t.blocks.len() < 64 && !t.blocks.is_empty());
}

#[test]
fn an_html_out_file_is_a_page_with_the_picture() {
    let dir = workspace(&[]);
    let file = dir.path().join("pooling.html");
    in_ws(dir.path())
        .args(["draw", "9", "--solution", "--out"])
        .arg(&file)
        .assert()
        .success();
    let page = std::fs::read_to_string(&file).unwrap();
    assert!(page.starts_with("<!DOCTYPE html>"), "{}", &page[..60]);
    assert!(page.contains("<svg "));
    // Hover needs to know which thread and cell each line joins.
    assert!(
        page.contains(r#"data-cell="cache[4]" data-thread="t3""#),
        "{page}"
    );
    assert!(page.contains(r#"data-thread="t3""#));
}

#[test]
fn a_cell_written_by_two_threads_is_marked() {
    // Threads 2k and 2k+1 both write out[k]; out[4..8] stay unwritten.
    let src = r#"
extern "C" __global__ void pooling(float* out, const float* a, int size) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < size) out[i / 2] = a[i];
}
"#;
    let dir = workspace(&[("09_pooling.cu", src)]);
    let svg = draw(dir.path(), &["9"]);
    render(&svg, "pooling-written-twice");
    let twice = rects(&svg, "cell twice");
    assert_eq!(twice.len(), 4, "{svg}");
    assert!(twice[0].contains("written by 2 threads"), "{}", twice[0]);
    assert_eq!(svg.matches("class=\"twice-mark\"").count(), 4);
    assert_eq!(rects(&svg, "cell unwritten").len(), 4);
}

/// Puzzle 3 without its guard: threads 4..7 read past the end of `a` and write past `out`.
const GUARD_UNGUARDED: &str = r#"extern "C" __global__ void guard(float* out, const float* a, int size) {
    int local_i = threadIdx.x;
    out[local_i] = a[local_i] + 10;
}
"#;

/// The opening tags of `<line>`s whose class list contains every word of `class`.
fn lines<'a>(svg: &'a str, class: &str) -> Vec<&'a str> {
    svg.split("<line ")
        .skip(1)
        .map(|t| t.split('>').next().unwrap_or(t))
        .filter(|t| {
            let Some(c) = t.split("class=\"").nth(1).and_then(|c| c.split('"').next()) else {
                return false;
            };
            class.split(' ').all(|w| c.split(' ').any(|x| x == w))
        })
        .collect()
}

/// Red pixels along the line `tag` draws (from x1,y1 to x2,y2), over the points sampled.
fn red_along(p: &resvg::tiny_skia::Pixmap, tag: &str) -> f64 {
    let tag = format!(" {tag}");
    let v = |n| attr(&tag, n).unwrap_or_else(|| panic!("no {n} in {tag}"));
    let (x1, y1, x2, y2) = (v("x1"), v("y1"), v("x2"), v("y2"));
    let n = 40;
    // The middle part, away from where lines meet at a cell or a box.
    let red = (10..n - 10)
        .filter(|k| {
            let f = *k as f64 / n as f64;
            let (x, y) = (x1 + (x2 - x1) * f, y1 + (y2 - y1) * f);
            is_red(pixel(p, x.round() as u32, y.round() as u32))
        })
        .count();
    red as f64 / (n - 20) as f64
}

#[test]
fn an_out_of_bounds_read_is_a_ghost_cell_past_the_end_with_a_red_line() {
    let dir = workspace(&[("03_guard.cu", GUARD_UNGUARDED)]);
    let svg = draw(dir.path(), &["3"]);
    let pix = render(&svg, "guard-out-of-bounds");
    // The caption names the diagnostic in one line.
    assert!(
        svg.contains(
            r#"class="diagnostics">out-of-bounds: thread 4 of block 0 read a[4] (line 3)"#
        ),
        "{svg}"
    );
    // Ghost cells a[4..8] and out[4..8], past the ends of the 4-element buffers.
    let ghosts = rects(&svg, "cell out-of-bounds");
    let a4 = ghosts
        .iter()
        .find(|g| g.contains(r#"data-cell="a[4]""#))
        .unwrap_or_else(|| panic!("no ghost a[4]: {svg}"));
    assert!(
        a4.contains(r#"data-kind="out-of-bounds" data-line="3""#),
        "{a4}"
    );
    assert!(a4.contains("stroke-dasharray"), "{a4}");
    assert!(
        a4.contains("a[4]: past the end of a (4 elements): t4 read a[4] (line 3)"),
        "{a4}"
    );
    assert_eq!(ghosts.len(), 8, "{svg}");
    assert!(svg.contains(r#"class="ghost-label">a[4]<"#), "{svg}");
    // It lies right of a[3], outside the row, on its line.
    let a3 = rects(&svg, "cell")
        .into_iter()
        .find(|c| c.contains(r#"data-cell="a[3]""#))
        .expect("a[3] is drawn");
    let (gx, gy, _, _) = bounds(a4);
    let (x3, y3, w3, _) = bounds(a3);
    assert!(
        gx > x3 + w3 && gy == y3,
        "ghost at {gx},{gy}; a[3] at {x3},{y3}"
    );
    // Its outline and fill are red, the inside light.
    let (x, y, w, h) = bounds(a4);
    let outline = (y..y + h).filter(|&yy| is_red(pixel(&pix, x, yy))).count();
    assert!(outline > 6, "only {outline} red pixels on a[4]'s left edge");
    let (r, g, b) = pixel(&pix, x + 4, y + h - 4);
    assert!(
        r > 240 && g > 200 && b > 200 && g < 245,
        "inside: {:?}",
        (r, g, b)
    );
    let _ = w;
    // Thread 4's read of a[4] is a red line, marked as failed.
    let failed = lines(&svg, "flow read failed");
    let t4 = failed
        .iter()
        .find(|l| l.contains(r#"data-cell="a[4]" data-thread="t4""#))
        .unwrap_or_else(|| panic!("no failed read line from a[4] to t4: {svg}"));
    assert!(
        t4.contains(r#"data-kind="out-of-bounds" data-line="3""#),
        "{t4}"
    );
    assert!(
        red_along(&pix, t4) > 0.5,
        "the line from a[4] is not red: {t4}"
    );
    assert_eq!(failed.len(), 4, "t4..t7 read a[4..8]");
    assert_eq!(
        lines(&svg, "flow write failed").len(),
        4,
        "and write out[4..8]"
    );
    // Threads 0..3 read and wrote inside: their lines are as before.
    assert_eq!(lines(&svg, "flow read").len(), 8);
    assert!(svg.contains(r#"class="legend marks""#));
}

#[test]
fn a_missing_barrier_in_pooling_marks_the_raced_cell_and_both_lines() {
    let solution = std::fs::read_to_string(
        PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("solutions/09_pooling.cu"),
    )
    .unwrap();
    let racy = solution.replace("__syncthreads();", "");
    assert_ne!(racy, solution);
    let dir = workspace(&[("09_pooling.cu", &racy)]);
    let svg = draw(dir.path(), &["9"]);
    let pix = render(&svg, "pooling-race");
    assert!(
        svg.contains(
            r#"class="diagnostics">shared-race: thread 0 of block 0 read shared cache[1]"#
        ),
        "{svg}"
    );
    let raced = rects(&svg, "cell raced");
    // cache[1] (thread 1's halo value, read by thread 0) and cache[2] (thread 0's own value,
    // read by thread 1).
    assert_eq!(raced.len(), 2, "{svg}");
    assert!(raced[0].contains(r#"data-cell="cache[1]""#), "{}", raced[0]);
    assert!(
        raced[0].contains(r#"data-kind="shared-race""#),
        "{}",
        raced[0]
    );
    let (x, y, _, h) = bounds(raced[0]);
    let outline = (y..y + h).filter(|&yy| is_red(pixel(&pix, x, yy))).count();
    assert!(
        outline > 6,
        "only {outline} red pixels on cache[1]'s left edge"
    );
    // Thread 0 wrote cache[2] (line 8), thread 1 read it (line 14): both lines red.
    let write = lines(&svg, "flow write failed");
    assert!(
        write
            .iter()
            .any(|l| l.contains(r#"data-cell="cache[2]" data-thread="t0""#)
                && l.contains(r#"data-line="8""#)),
        "{svg}"
    );
    let read = lines(&svg, "flow read failed");
    let t1 = read
        .iter()
        .find(|l| l.contains(r#"data-cell="cache[2]" data-thread="t1""#))
        .unwrap_or_else(|| panic!("no red read of cache[2] by t1: {svg}"));
    assert!(t1.contains(r#"data-line="14""#), "{t1}");
    // Dashed, and one of three reads converging on t1's box (cache[1..3]): 0.35 of its middle
    // samples are red (measured; a grey line has none), so the bar is a third.
    let red = red_along(&pix, t1);
    assert!(red > 0.3, "not red ({red}): {t1}");
    assert!(rects(&svg, "cell out-of-bounds").is_empty());
}

#[test]
fn an_uninitialised_read_and_a_read_before_the_start_are_marked() {
    // Odd threads' cells are never written; thread 0 reads cache[-1].
    let src = r#"extern "C" __global__ void pooling(float* out, const float* a, int size) {
    __shared__ float cache[TPB];
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int local_i = threadIdx.x;
    if (local_i % 2 == 0) cache[local_i] = a[i];
    __syncthreads();
    out[i] = cache[local_i] + cache[local_i - 1];
}
"#;
    let dir = workspace(&[("09_pooling.cu", src)]);
    let svg = draw(dir.path(), &["9"]);
    render(&svg, "pooling-uninitialised");
    let uninit = rects(&svg, "cell uninitialized");
    assert_eq!(uninit.len(), 1, "{svg}");
    assert!(
        uninit[0].contains(r#"data-cell="cache[1]""#),
        "{}",
        uninit[0]
    );
    assert!(
        uninit[0].contains(r#"data-kind="uninitialized-read" data-line="7""#),
        "{}",
        uninit[0]
    );
    let ghost = rects(&svg, "cell out-of-bounds");
    assert_eq!(ghost.len(), 1, "{svg}");
    assert!(
        ghost[0].contains(r#"data-cell="cache[-1]""#),
        "{}",
        ghost[0]
    );
    // Before the start: left of cache[0].
    let c0 = rects(&svg, "cell")
        .into_iter()
        .find(|c| c.contains(r#"data-cell="cache[0]""#))
        .expect("cache[0] is drawn");
    assert!(bounds(ghost[0]).0 + 40 <= bounds(c0).0);
    assert!(lines(&svg, "flow read failed")
        .iter()
        .any(|l| l.contains(r#"data-cell="cache[-1]" data-thread="t0""#)));
    assert!(svg.contains(
        r#"class="diagnostics">out-of-bounds: thread 0 of block 0 read shared cache[-1] (line 7)"#
    ));
    assert!(svg.contains("; and 1 more (uninitialized-read)"), "{svg}");
}

#[test]
fn a_passing_kernel_has_no_failure_marks() {
    let dir = workspace(&[]);
    for (id, name) in [("3", "guard"), ("9", "pooling"), ("14", "matmul")] {
        let svg = draw(dir.path(), &[id, "--solution"]);
        for class in [
            "out-of-bounds",
            "raced",
            "uninitialized",
            "misaligned",
            "failed",
        ] {
            assert!(
                !svg.contains(class),
                "{name}'s solution has `{class}` in its picture"
            );
        }
        assert!(!svg.contains("class=\"diagnostics\""), "{name}");
        assert!(!svg.contains("data-kind="), "{name}");
        assert!(!svg.contains("fail-mark"), "{name}");
    }
}

#[test]
fn the_html_page_hovers_over_ghost_cells_too() {
    let dir = workspace(&[("03_guard.cu", GUARD_UNGUARDED)]);
    let file = dir.path().join("guard.html");
    in_ws(dir.path())
        .args(["draw", "3", "--out"])
        .arg(&file)
        .assert()
        .success();
    let page = std::fs::read_to_string(&file).unwrap();
    // The script finds cells as rect.cell and lines as line.flow by data-cell/data-thread.
    assert!(page.contains("querySelectorAll('rect.cell')"));
    assert!(page.contains(r#"class="cell out-of-bounds""#), "{page}");
    assert!(page.contains(r#"class="flow read failed""#), "{page}");
    assert!(
        page.contains(r#"data-cell="a[4]" data-thread="t4""#),
        "{page}"
    );
}

#[test]
fn a_2d_grids_ghosts_sit_right_of_its_last_row() {
    // Puzzle 4 without its guard: a 2x2 matrix, 3x3 threads; (2,1), (0,2), (1,2), (2,2) go
    // past the end, and (2,0) and (0,1) both write out[2].
    let src = r#"extern "C" __global__ void map_2d(float* out, const float* a, int rows, int cols) {
    int col = threadIdx.x;
    int row = threadIdx.y;
    out[row * cols + col] = a[row * cols + col] + 10.0f;
}
"#;
    let dir = workspace(&[("04_map_2d.cu", src)]);
    let svg = draw(dir.path(), &["4"]);
    render(&svg, "map-2d-out-of-bounds");
    let cell = |name: &str| {
        rects(&svg, "cell")
            .into_iter()
            .find(|c| c.contains(&format!(r#"data-cell="{name}""#)))
            .map(bounds)
            .unwrap_or_else(|| panic!("no {name}: {svg}"))
    };
    let (a4, a5, a3) = (cell("a[4]"), cell("a[5]"), cell("a[3]"));
    assert_eq!(a4.1, a3.1, "on the last row");
    assert!(
        a4.0 > a3.0 + a3.2 && a5.0 == a4.0 + a4.2,
        "{a3:?} {a4:?} {a5:?}"
    );
    assert_eq!(
        rects(&svg, "cell out-of-bounds").len(),
        6,
        "a[4..7] and out[4..7]"
    );
    let raced = rects(&svg, "cell raced");
    assert_eq!(raced.len(), 1);
    assert!(
        raced[0].contains(r#"data-cell="out[2]" "#) || raced[0].contains(r#"data-cell="out[2]""#)
    );
    assert!(
        raced[0].contains(r#"data-kind="global-race""#),
        "{}",
        raced[0]
    );
    assert_eq!(
        lines(&svg, "flow write failed").len(),
        6,
        "4 past out's end, 2 racing"
    );
}

/// `draw 51 --fragments`: the m16n8k16 layouts of the puzzle's mma.sync, a cell per element
/// naming its lane and fragment index.
#[test]
fn the_fragments_picture_names_each_elements_lane() {
    let dir = workspace(&[]);
    let svg = draw(dir.path(), &["51", "--fragments", "--solution"]);
    render(&svg, "mma-fragments");
    assert!(
        svg.contains("A (16 x 16)") && svg.contains("B (16 x 8)"),
        "{svg}"
    );
    assert!(svg.contains("A[9][11]: lane 5 (g 1, t 1), a7"), "{svg}");
    assert!(svg.contains("C, D[8][0]: lane 0 (g 0, t 0), c2"), "{svg}");
}
