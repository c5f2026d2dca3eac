//! Parser and emulator robustness: arbitrary text and mutated real PTX (tokens deleted,
//! duplicated, swapped, replaced) go through `ptx::parse`, and whatever parses runs on the
//! emulator with a small step limit. Nothing may panic or hang; errors are fine.
//!
//! Seeds: `tests/ptx/*.ptx` (NVRTC probes) and `tests/kernels/ptx/*.ptx` (NVRTC's PTX of the
//! corpus kernels, `-lineinfo --gpu-architecture=compute_80`, saved so this test needs no NVRTC;
//! they need to be valid PTX, not to match the current `.cu` files).

use gpuzzle::emu::value::{Buffer, ElemType, KernelArg, Scalar};
use gpuzzle::emu::{self, EmuOptions, LaunchConfig};
use gpuzzle::ptx;
use proptest::prelude::*;
use std::path::Path;
use std::sync::OnceLock;

fn seeds() -> &'static Vec<String> {
    static SEEDS: OnceLock<Vec<String>> = OnceLock::new();
    SEEDS.get_or_init(|| {
        let root = Path::new(env!("CARGO_MANIFEST_DIR"));
        let mut out = Vec::new();
        for dir in ["tests/ptx", "tests/kernels/ptx"] {
            let mut paths: Vec<_> = std::fs::read_dir(root.join(dir))
                .unwrap_or_else(|e| panic!("{dir}: {e}"))
                .filter_map(|e| e.ok().map(|e| e.path()))
                .filter(|p| p.extension().is_some_and(|x| x == "ptx"))
                .collect();
            paths.sort();
            for p in paths {
                out.push(std::fs::read_to_string(&p).unwrap_or_else(|e| panic!("{p:?}: {e}")));
            }
        }
        assert!(out.len() >= 10, "fuzz seeds missing");
        out
    })
}

/// Whitespace-separated pieces, each keeping the whitespace that follows it.
fn pieces(text: &str) -> Vec<&str> {
    let mut out = Vec::new();
    let mut start = 0;
    let b = text.as_bytes();
    let mut i = 0;
    while i < b.len() {
        while i < b.len() && !b[i].is_ascii_whitespace() {
            i += 1;
        }
        while i < b.len() && b[i].is_ascii_whitespace() {
            i += 1;
        }
        out.push(&text[start..i]);
        start = i;
    }
    out
}

#[derive(Clone, Debug)]
enum Mutation {
    Delete(usize),
    Duplicate(usize),
    Swap(usize, usize),
    CopyOver(usize, usize),
    Number(usize, u64),
    Truncate(usize),
}

fn mutation() -> impl Strategy<Value = Mutation> {
    prop_oneof![
        any::<usize>().prop_map(Mutation::Delete),
        any::<usize>().prop_map(Mutation::Duplicate),
        (any::<usize>(), any::<usize>()).prop_map(|(a, b)| Mutation::Swap(a, b)),
        (any::<usize>(), any::<usize>()).prop_map(|(a, b)| Mutation::CopyOver(a, b)),
        (
            any::<usize>(),
            prop_oneof![0u64..70, Just(u32::MAX as u64), Just(1 << 40), any::<u64>()]
        )
            .prop_map(|(a, n)| Mutation::Number(a, n)),
        any::<usize>().prop_map(Mutation::Truncate),
    ]
}

fn mutate(text: &str, muts: &[Mutation]) -> String {
    let mut p: Vec<String> = pieces(text).into_iter().map(str::to_string).collect();
    for m in muts {
        if p.is_empty() {
            break;
        }
        let n = p.len();
        match *m {
            Mutation::Delete(i) => {
                p.remove(i % n);
            }
            Mutation::Duplicate(i) => {
                let v = p[i % n].clone();
                p.insert(i % n, v);
            }
            Mutation::Swap(a, b) => p.swap(a % n, b % n),
            Mutation::CopyOver(a, b) => p[b % n] = p[a % n].clone(),
            Mutation::Number(i, v) => {
                // Replace the first number at or after piece i.
                if let Some(j) = (i % n..n).find(|&j| p[j].bytes().any(|c| c.is_ascii_digit())) {
                    let s = &p[j];
                    let start = s.find(|c: char| c.is_ascii_digit()).unwrap_or(0);
                    let end = s[start..]
                        .find(|c: char| !c.is_ascii_digit())
                        .map_or(s.len(), |e| start + e);
                    p[j] = format!("{}{v}{}", &s[..start], &s[end..]);
                }
            }
            Mutation::Truncate(i) => p.truncate(i % n),
        }
    }
    p.concat()
}

/// Arguments that fit a kernel's parameters: buffers for pointers, small scalars, zeroed structs.
fn args_for(f: &ptx::ir::Function) -> Vec<KernelArg> {
    f.params
        .iter()
        .enumerate()
        .map(|(i, p)| {
            if p.is_array && p.size != 8 {
                KernelArg::Struct {
                    bytes: vec![0; p.size as usize],
                    fields: Vec::new(),
                }
            } else if p.size == 8 {
                let vals: Vec<f64> = (0..64).map(|v| v as f64).collect();
                KernelArg::Buffer(Buffer::from_values(&format!("p{i}"), ElemType::U32, &vals))
            } else {
                let ty = match p.size {
                    1 => ElemType::I8,
                    2 => ElemType::I16,
                    _ => ElemType::I32,
                };
                KernelArg::Scalar(Scalar::from_f64(ty, 5.0))
            }
        })
        .collect()
}

/// Parse, then run up to three kernels of whatever parsed. Only panics matter.
fn exercise(text: &str, jobs: usize) {
    let Ok(module) = ptx::parse(text) else {
        return;
    };
    let opts = EmuOptions {
        step_limit: 20_000,
        jobs,
        ..EmuOptions::default()
    };
    let cfg = LaunchConfig {
        grid: [3, 1, 1],
        block: [40, 1, 1],
        dynamic_shared: 256,
        cooperative: false,
    };
    let entries: Vec<String> = module.entries().take(3).map(|f| f.name.clone()).collect();
    for name in entries {
        let Some((_, f)) = module.find_entry(&name) else {
            continue;
        };
        let args = args_for(f);
        let _ = emu::run(&module, &name, &cfg, args, &opts);
    }
}

#[test]
fn every_seed_parses_and_runs() {
    for s in seeds() {
        ptx::parse(s).unwrap_or_else(|e| panic!("a seed does not parse: {e}"));
        exercise(s, 2);
    }
}

/// Cases per property: 256 in CI, `GPUZZLE_FUZZ_CASES=N` for a long local run.
fn cases() -> u32 {
    std::env::var("GPUZZLE_FUZZ_CASES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(256)
}

proptest! {
    #![proptest_config(ProptestConfig { cases: cases(), ..ProptestConfig::default() })]

    #[test]
    fn arbitrary_text_never_panics(s in "\\PC{0,300}") {
        let _ = ptx::parse(&s);
    }

    #[test]
    fn ptx_shaped_text_never_panics(
        s in proptest::collection::vec(
            prop_oneof![
                Just(".entry"), Just(".visible"), Just(".func"), Just(".param"), Just(".reg"),
                Just(".shared"), Just(".global"), Just(".b32"), Just(".u64"), Just(".f32"),
                Just(".pred"), Just("%r<4>"), Just("%r1"), Just("%rd1"), Just("%p1"),
                Just("k"), Just("("), Just(")"), Just("{"), Just("}"), Just("["), Just("]"),
                Just(";"), Just(","), Just("@"), Just("!"), Just("+"), Just("-"), Just("4"),
                Just("0f3F800000"), Just("ld.global.f32"), Just("st.global.u32"), Just("bra"),
                Just("$L1"), Just("$L1:"), Just("ret"), Just("exit"), Just("bar.sync"), Just("0"),
                Just("mov.u32"), Just("add.s32"), Just("setp.lt.s32"), Just("call"),
                Just("shfl.sync.down.b32"), Just("%tid.x"), Just("\n"), Just(".loc 1 5 2\n"),
            ],
            0..60,
        )
    ) {
        let text = s.join(" ");
        exercise(&text, 1);
    }

    #[test]
    fn mutated_real_ptx_never_panics(
        seed in any::<usize>(),
        muts in proptest::collection::vec(mutation(), 1..5),
        jobs in 1usize..3,
    ) {
        let seeds = seeds();
        let text = mutate(&seeds[seed % seeds.len()], &muts);
        exercise(&text, jobs);
    }
}

/// A kernel `k(u64 p)` with `decl` at module level and `body` in the kernel.
fn tiny_module(decl: &str, body: &str) -> String {
    format!(
        ".version 8.8\n.target sm_80\n.address_size 64\n{decl}\n\
         .visible .entry k(.param .u64 p)\n{{\n.reg .b32 %r<4>;\n.reg .b64 %rd<4>;\n{body}\nret;\n}}\n"
    )
}

#[test]
fn oversized_declarations_are_errors_not_aborts() {
    let cfg = LaunchConfig {
        grid: [2, 1, 1],
        block: [256, 1, 1],
        dynamic_shared: 0,
        cooperative: false,
    };
    for (decl, body, says) in [
        (
            ".shared .align 4 .b8 s[4000000000];",
            "st.shared.u32 [s], 1;",
            "48 KiB",
        ),
        (
            ".global .align 4 .b8 g[4000000000];",
            "st.global.u32 [g], 1;",
            "512 MiB",
        ),
        (
            "",
            ".local .align 4 .b8 d[4000000000];\nst.local.u32 [d], 1;",
            "512 KiB",
        ),
    ] {
        let m = ptx::parse(&tiny_module(decl, body)).unwrap_or_else(|e| panic!("{e}"));
        let arg = KernelArg::Buffer(Buffer::zeros("p", ElemType::U32, 4));
        let err = emu::run(&m, "k", &cfg, vec![arg], &EmuOptions::default())
            .err()
            .unwrap_or_else(|| panic!("{decl}{body}: must be refused"));
        assert!(err.to_string().contains(says), "{err}");
    }
    let e = ptx::parse(&tiny_module("", ".reg .b32 %q<1000000>;")).unwrap_err();
    assert!(e.message.contains("too many registers"), "{e}");
}
