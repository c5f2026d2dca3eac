//! Speed of `gpuzzle check --all --solutions`, the whole process, cold and warm, against the sum
//! of the NVRTC compiles it needs. Run with:
//!     cargo build --release && cargo run --release --example bench_check
//! (`GPUZZLE_BENCH_BIN=PATH` times another build of gpuzzle instead of target/release's.)
use gpuzzle::compile::{CompileRequest, PtxCompiler};
use gpuzzle::puzzle::Workspace;
use std::path::PathBuf;
use std::process::Command;
use std::time::Instant;

fn main() {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    // `GPUZZLE_BENCH_BIN`: another binary to time (a baseline build, side by side).
    let bin = std::env::var_os("GPUZZLE_BENCH_BIN")
        .map(PathBuf::from)
        .unwrap_or_else(|| root.join("target/release/gpuzzle"));
    if !bin.exists() {
        eprintln!("build the binary first: cargo build --release");
        std::process::exit(2);
    }
    let cache = std::env::temp_dir().join(format!("gpuzzle-bench-{}", std::process::id()));
    let run = || {
        let t = Instant::now();
        let out = Command::new(&bin)
            .args(["check", "--all", "--solutions", "--format", "json"])
            .current_dir(&root)
            .env("GPUZZLE_CACHE_DIR", &cache)
            .output()
            .expect("run gpuzzle");
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        t.elapsed().as_secs_f64()
    };
    let cold = run();
    let mut warm: Vec<f64> = (0..5).map(|_| run()).collect();
    warm.sort_by(f64::total_cmp);
    let _ = std::fs::remove_dir_all(&cache);

    // The compiles that a cold run needs: every solution and every spec, one at a time.
    let ws = Workspace::at_root(&root);
    let puzzles = ws.load_puzzles().expect("puzzles load");
    let compiler = PtxCompiler::new(None);
    let mut sum = 0.0;
    for p in &puzzles {
        let src = std::fs::read_to_string(ws.kernel_path(p, true)).expect("solution");
        let name = ws.kernel_path(p, true).display().to_string();
        let spec = p.spec_source();
        let spec_name = p.toml_path.display().to_string();
        for (n, s) in [(&name, &src), (&spec_name, &spec)] {
            let t = Instant::now();
            compiler
                .compile(&CompileRequest {
                    file_name: n,
                    source: s,
                    defines: &p.defines,
                    extra_options: &[],
                })
                .expect("compiles");
            sum += t.elapsed().as_secs_f64();
        }
    }
    println!(
        "check --all --solutions over {} puzzles (whole process, release build)",
        puzzles.len()
    );
    println!("  warm (median of 5): {:.3} s   target < 0.250 s", warm[2]);
    println!("  cold (empty cache): {:.3} s", cold);
    println!(
        "  sum of its {} NVRTC compiles, one at a time: {:.3} s   cold/sum = {:.2} (target <= 1.5)",
        puzzles.len() * 2,
        sum,
        cold / sum
    );
}
