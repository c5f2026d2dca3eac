//! `gpuzzle draw N`: a picture of one test of a kernel (who read and wrote what), or with
//! `--warps` its worst warp accesses against sectors and banks; and the helpers `run --draw`
//! and `run --trace` share.

use super::common::{self, Loaded, WorkspaceArgs};
use super::output::{errln, outln};
use super::EXIT_FAIL;

/// `X[,Y[,Z]]` block coordinates; missing ones are 0.
fn parse_block(s: &str) -> Result<[u32; 3], String> {
    let parts: Vec<&str> = s.split(',').map(str::trim).collect();
    if parts.len() > 3 {
        return Err(format!("`{s}`: give the block as X or X,Y"));
    }
    let mut b = [0u32; 3];
    for (k, p) in parts.iter().enumerate() {
        b[k] = p
            .parse()
            .map_err(|_| format!("`{p}` is not a whole number (blocks count from 0)"))?;
    }
    Ok(b)
}
use crate::puzzle::{Puzzle, Workspace};
use crate::trace::{self, Capture, CaptureError};
use anyhow::{Context, Result};
use clap::Args;
use std::path::{Path, PathBuf};

/// Steps a traced test may take (puzzle tests are small; as the judge's default).
const STEP_LIMIT: u64 = 20_000_000;

#[derive(Args, Debug)]
pub struct DrawArgs {
    /// The puzzle: its number (9 or 09) or slug (pooling).
    pub puzzle: String,
    /// Which of the puzzle's tests (1 = the first, as `gpuzzle show` lists them).
    #[arg(long, default_value_t = 1, value_name = "K")]
    pub test: usize,
    /// The block to draw, as X or X,Y (default 0).
    #[arg(long, value_name = "X,Y", value_parser = parse_block)]
    pub block: Option<[u32; 3]>,
    /// Where to write the SVG (default: .gpuzzle/pictures/ in the workspace); a name ending in
    /// .html writes a page that shows a cell's readers and writers on hover.
    #[arg(long, value_name = "FILE")]
    pub out: Option<PathBuf>,
    /// Draw the worst global access's warp against 32-byte sectors and the worst shared
    /// access's lanes in the 32 banks, instead of the data flow.
    #[arg(long)]
    pub warps: bool,
    /// Draw which lane holds which element of the A, B and C fragments of the kernel's
    /// `mma.sync` (its first one; m16n8k16 on halves when it has none), instead of the data flow.
    #[arg(long, conflicts_with = "warps")]
    pub fragments: bool,
    /// Draw the reference solution instead of your file.
    #[arg(long)]
    pub solution: bool,
    /// The GPU architecture to compile for: sm_80, sm_86, sm_89 or sm_90 (over the puzzle's own
    /// `arch`).
    #[arg(long, value_name = "SM", value_parser = crate::compile::parse_arch_arg)]
    pub arch: Option<crate::compile::Arch>,
    #[command(flatten)]
    pub ws: WorkspaceArgs,
}

pub fn run(a: &DrawArgs, quiet: bool) -> Result<i32> {
    let (loaded, query) = common::load_one(&a.ws, Some(&a.puzzle))?;
    let puzzle = loaded.ws.find(&loaded.puzzles, &query)?;
    if a.test == 0 {
        anyhow::bail!(
            "--test counts from 1 (puzzle {} has {} test(s))",
            puzzle.id,
            puzzle.tests.len()
        );
    }
    let (name, source) = read_kernel(&loaded.ws, puzzle, a.solution)?;
    // `--arch` over the puzzle's own target, as the judge would compile it.
    let mut targeted = puzzle.clone();
    targeted.arch = a.arch.or(puzzle.arch);
    let puzzle = &targeted;
    if a.fragments {
        let (shape, ty) = crate::draw::fragments::shape_of(&source);
        let svg =
            crate::draw::fragments::draw(shape, ty, &format!("Puzzle {}, mma.sync", puzzle.id));
        let path = match &a.out {
            Some(p) => p.clone(),
            None => default_path(&loaded.ws, puzzle, a.test, "fragments"),
        };
        write_picture(&path, &svg)?;
        outln!(
            "Fragments of the mma.sync in {name}: {}",
            common::display_path(&path)
        );
        return Ok(0);
    }
    let cap = match capture(puzzle, &name, &source, a.test - 1) {
        Ok(c) => c,
        Err(Failed::Kernel(m)) => {
            errln!("{m}");
            return Ok(EXIT_FAIL);
        }
        Err(Failed::Other(e)) => return Err(e),
    };
    let block = a.block.unwrap_or([0, 0, 0]);
    let svg = if a.warps {
        crate::draw::warps::draw(&cap)
    } else {
        crate::draw::flow::draw(&cap, block).map_err(anyhow::Error::msg)?
    };
    let kind = if a.warps { "warps" } else { "flow" };
    let path = match &a.out {
        Some(p) => p.clone(),
        None => default_path(&loaded.ws, puzzle, a.test, kind),
    };
    let html = path
        .extension()
        .is_some_and(|e| e.eq_ignore_ascii_case("html"));
    let text = if html {
        crate::draw::html::page(&svg, &format!("gpuzzle draw {} — {}", puzzle.id, name))
    } else {
        svg
    };
    write_picture(&path, &text)?;
    if !quiet {
        outln!(
            "Picture of {name}, test {}: {}",
            a.test,
            common::display_path(&path)
        );
    } else {
        outln!("{}", common::display_path(&path));
    }
    Ok(0)
}

/// Why a capture failed: the learner's kernel (exit 1, message only) or anything else.
pub enum Failed {
    Kernel(String),
    Other(anyhow::Error),
}

/// Trace test `index` (0-based) of `puzzle` for `source`.
pub fn capture(puzzle: &Puzzle, name: &str, source: &str, index: usize) -> Result<Capture, Failed> {
    trace::capture(puzzle, name, source, index, STEP_LIMIT).map_err(|e| match e {
        CaptureError::Kernel(m) => Failed::Kernel(m),
        e => Failed::Other(e.into()),
    })
}

/// The learner's kernel file (or the reference): its name as shown and its text.
pub fn read_kernel(ws: &Workspace, puzzle: &Puzzle, solution: bool) -> Result<(String, String)> {
    if solution {
        // The workspace's solutions/ file, else the pack's built-in solution.
        let (name, source) = common::read_reference(ws, puzzle);
        return Ok((name, source.map_err(anyhow::Error::msg)?));
    }
    let path = ws.kernel_path(puzzle, false);
    let name = common::display_path(&path);
    let source = common::read_source(&path).with_context(|| {
        format!(
            "cannot read {name}: restore the starter with `gpuzzle reset {}`",
            puzzle.id
        )
    })?;
    Ok((name, source))
}

/// `.gpuzzle/pictures/09_pooling-test1.svg` (`-warps` for the warp picture).
pub fn default_path(ws: &Workspace, puzzle: &Puzzle, test: usize, kind: &str) -> PathBuf {
    let suffix = if kind == "flow" {
        String::new()
    } else {
        format!("-{kind}")
    };
    ws.state_dir()
        .join("pictures")
        .join(format!("{}-test{test}{suffix}.svg", puzzle.file_stem()))
}

pub fn write_picture(path: &Path, svg: &str) -> Result<()> {
    if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
        std::fs::create_dir_all(dir)
            .with_context(|| format!("cannot create {}", common::display_path(dir)))?;
    }
    std::fs::write(path, svg).with_context(|| format!("cannot write {}", path.display()))
}

/// `run N --draw` and `run N --trace`: after the verdict, the picture's path and the text trace
/// of the first test.
pub fn after_run(
    loaded: &Loaded,
    puzzle: &Puzzle,
    solution: bool,
    draw: bool,
    text: bool,
) -> Result<()> {
    let (name, source) = read_kernel(&loaded.ws, puzzle, solution)?;
    let cap = match capture(puzzle, &name, &source, 0) {
        Ok(c) => c,
        // The verdict already said why (it does not compile).
        Err(Failed::Kernel(_)) => return Ok(()),
        Err(Failed::Other(e)) => return Err(e),
    };
    if text {
        super::print_block(&trace::text::render(&cap));
    }
    if draw {
        let svg = crate::draw::flow::draw(&cap, [0, 0, 0]).map_err(anyhow::Error::msg)?;
        let path = default_path(&loaded.ws, puzzle, 1, "flow");
        write_picture(&path, &svg)?;
        outln!("Picture of test 1: {}", common::display_path(&path));
    }
    Ok(())
}
