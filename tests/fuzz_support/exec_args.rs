//! Random `gpuzzle exec` argument sets for the pack's solutions: mostly what a learner trying
//! a kernel would type (the puzzle's kernel, its defines, buffers and scalars of the right
//! kinds at assorted sizes and contents), and now and then what a learner gets wrong (a
//! missing define, a wrong type, a buffer for a scalar or a scalar for a pointer, a missing or
//! extra argument, a bad spec, a block too large). With `huge`, also grids of up to a million
//! blocks and buffers at the size limit, the launches that test `exec`'s limits.

use super::rng::Rng;
use gpuzzle::puzzle::{ParamKind, Puzzle};
use std::path::Path;

/// The kernel name and its parameters (name, kind) a run may launch in `puzzle`.
fn kernels(puzzle: &Puzzle) -> Vec<(String, Vec<(String, ParamKind)>)> {
    let plain =
        |ps: &[gpuzzle::puzzle::Param]| ps.iter().map(|p| (p.name.clone(), p.kind)).collect();
    if puzzle.kernels.is_empty() {
        vec![(puzzle.kernel.clone(), plain(&puzzle.params))]
    } else {
        puzzle
            .kernels
            .iter()
            .map(|k| (k.name.clone(), plain(&k.params)))
            .collect()
    }
}

const TYPES: [&str; 12] = [
    "i8", "i16", "i32", "i64", "u8", "u16", "u32", "u64", "f16", "bf16", "f32", "f64",
];

/// A scalar's value: for its type's kind, unless `sloppy`.
fn value(rng: &mut Rng, float: bool, sloppy: bool) -> String {
    if float || sloppy && rng.chance(0.3) {
        rng.pick(&[
            "0", "1", "4", "50", "-1", "1e9", "0.5", "-3.25", "nan", "inf", "1e30",
        ])
    } else {
        rng.pick(&[
            "0",
            "1",
            "3",
            "4",
            "8",
            "16",
            "50",
            "64",
            "100",
            "1000",
            "-1",
            "2147483647",
        ])
    }
    .to_string()
}

fn buffer_spec(
    ty: &str,
    rng: &mut Rng,
    huge: bool,
    sloppy: bool,
    dir: &Path,
    name: &str,
) -> String {
    let len = if huge && rng.chance(0.05) {
        *rng.pick(&[1u64 << 26, 268_435_456, 268_435_457, 1 << 40])
    } else {
        *rng.pick(&[1u64, 3, 4, 8, 16, 50, 64, 100, 257, 1000, 4096, 65536])
    };
    let len = if sloppy && rng.chance(0.1) { 0 } else { len };
    let init = match rng.below(if sloppy { 9 } else { 8 }) {
        0 => "zeros".to_string(),
        1 => "ones".to_string(),
        2 | 3 => "arange".to_string(),
        4 => format!(
            "fill={}",
            value(rng, ty.starts_with('f') || ty == "bf16", sloppy)
        ),
        5 | 6 => format!("rand={}", rng.below(1000)),
        7 => {
            // A JSON file: the right length, a wrong one, or not JSON at all.
            let path = dir.join(format!("{name}.json"));
            let n = if !sloppy || rng.chance(0.7) {
                len.min(5000)
            } else {
                len.min(5000) / 2 + 1
            };
            let body = if !sloppy || rng.chance(0.9) {
                let vals: Vec<String> = (0..n).map(|k| (k % 17).to_string()).collect();
                format!("[{}]", vals.join(","))
            } else {
                "[1, 2, oops".to_string()
            };
            if std::fs::write(&path, body).is_err() {
                return format!("{ty}[{len}]:zeros");
            }
            format!("json={}", path.display())
        }
        _ => "bogus".to_string(),
    };
    format!("{ty}[{len}]:{init}")
}

/// One random `exec` command line (the arguments after `gpuzzle`) for a kernel of `puzzle`
/// in `file`; JSON files it names are written to `dir`. Returns the arguments and whether
/// they ask for JSON output.
pub fn exec_args(
    puzzle: &Puzzle,
    file: &Path,
    rng: &mut Rng,
    huge: bool,
    dir: &Path,
) -> (Vec<String>, bool) {
    // Most runs are what a learner means to type; a sloppy one has mistakes in it.
    let sloppy = rng.chance(0.3);
    let ks = kernels(puzzle);
    let (kernel, params) = rng.pick(&ks).clone();
    let mut args = vec!["exec".to_string(), file.display().to_string()];
    args.push("--kernel".into());
    args.push(if sloppy && rng.chance(0.1) {
        format!("{kernel}_typo")
    } else {
        kernel
    });
    let grid = if huge && rng.chance(0.05) {
        rng.pick(&["1000000", "65536,64", "100000,1,1", "2147483647"])
            .to_string()
    } else if rng.chance(0.2) {
        format!("{},{}", 1 + rng.below(4), 1 + rng.below(4))
    } else {
        (1 + rng.below(8)).to_string()
    };
    let block = if sloppy && rng.chance(0.15) {
        rng.pick(&["0", "1025", "2048", "33,33", "1,1,65"])
            .to_string()
    } else if rng.chance(0.2) {
        let side = *rng.pick(&[2usize, 4, 8, 16, 32]);
        format!("{side},{side}")
    } else {
        rng.pick(&[1usize, 4, 8, 32, 64, 128, 256, 1024])
            .to_string()
    };
    args.extend(["--grid".into(), grid, "--block".into(), block]);
    for (name, value_) in &puzzle.defines {
        if sloppy && rng.chance(0.15) {
            continue;
        }
        let v = if sloppy && rng.chance(0.2) {
            Some(rng.pick(&["0", "1", "3", "-1", "100000"]).to_string())
        } else {
            value_.clone()
        };
        args.push("-D".into());
        args.push(match v {
            Some(v) => format!("{name}={v}"),
            None => name.clone(),
        });
    }
    let mut specs: Vec<String> = Vec::new();
    for (name, kind) in &params {
        let spec = match kind {
            _ if sloppy && rng.chance(0.08) => {
                format!("{}[{}]:ones", rng.pick(&TYPES), 1 + rng.below(100))
            }
            _ if sloppy && rng.chance(0.08) => {
                format!("{}:{}", rng.pick(&TYPES), value(rng, false, true))
            }
            _ if sloppy && rng.chance(0.04) => "{f32:0.5,i32:1}".to_string(),
            _ if sloppy && rng.chance(0.04) => rng
                .pick(&["f32", "q99:1", "f32[", "i32[-1]:ones", "f32[3]:fill="])
                .to_string(),
            ParamKind::Buffer(ty) => {
                let ty = if sloppy && rng.chance(0.1) {
                    rng.pick(&TYPES)
                } else {
                    ty.name()
                };
                buffer_spec(ty, rng, huge, sloppy, dir, name)
            }
            ParamKind::Scalar(ty) => {
                let float = ty.is_float();
                let ty = if sloppy && rng.chance(0.1) {
                    rng.pick(&TYPES)
                } else {
                    ty.name()
                };
                format!("{ty}:{}", value(rng, float, sloppy))
            }
        };
        specs.push(format!("{name}={spec}"));
    }
    if !specs.is_empty() && sloppy && rng.chance(0.1) {
        let k = rng.below(specs.len());
        specs.remove(k);
    }
    if sloppy && rng.chance(0.1) {
        specs.push("extra=i32:1".into());
    }
    for s in specs {
        args.push("--arg".into());
        args.push(s);
    }
    if rng.chance(0.1) {
        args.push("--shared".into());
        args.push(
            rng.pick(&["16", "1024", "49152", "1048576", "4294967295"])
                .to_string(),
        );
    }
    if rng.chance(0.1) {
        args.push("--step-limit".into());
        args.push(rng.pick(&["0", "1", "1000", "1000000"]).to_string());
    }
    let json = rng.chance(0.85);
    if json {
        args.extend(["--format".into(), "json".into()]);
    }
    (args, json)
}
