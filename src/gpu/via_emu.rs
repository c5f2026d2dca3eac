//! Runs an instrumented kernel on the CPU emulator, exactly as the GPU backend will run it on a
//! GPU: instrument, build the control block, launch with the block as one more buffer, decode.
//! This is how the instrumenter is tested without a GPU: its counters and faults must match the
//! emulator's own (`tests/instrument_equivalence.rs`).
//!
//! The emulator's own checkers are off; its bounds checks stay on (they cannot be turned off), so
//! an access the instrumentation failed to stop shows up in `EmuRun::emulator_diagnostics`.

use super::ctl::{CtlError, CtlState};
use super::instrument::InstrumentError;
use super::plan::{Plan, PlanError};
use crate::emu::result::{Diagnostic, RunResult};
use crate::emu::value::{Buffer, ElemType, KernelArg};
use crate::emu::{EmuError, EmuOptions, LaunchConfig};

/// Name of the control block buffer (never returned to the caller).
const CTL_NAME: &str = "__gpuzzle_ctl";

#[derive(Debug, thiserror::Error)]
pub enum ViaEmuError {
    #[error(transparent)]
    Instrument(#[from] InstrumentError),
    #[error("the instrumented PTX does not parse (a gpuzzle bug): {0}")]
    Reparse(crate::ptx::ParseError),
    #[error(transparent)]
    Emu(#[from] EmuError),
    #[error("{0} (a gpuzzle bug)")]
    Ctl(#[from] CtlError),
}

impl From<PlanError> for ViaEmuError {
    fn from(e: PlanError) -> Self {
        match e {
            PlanError::Launch(e) => ViaEmuError::Emu(e),
            PlanError::Instrument(e) => ViaEmuError::Instrument(e),
            PlanError::Parse(e) => ViaEmuError::Instrument(InstrumentError::Parse(e)),
        }
    }
}

/// Everything one instrumented run on the emulator gives.
#[derive(Debug)]
pub struct EmuRun {
    /// As the GPU backend would return it: buffers (without the control block), printf output,
    /// counters and the first fault, all decoded from the control block.
    pub result: RunResult,
    /// What the emulator itself reported while running the instrumented code (out-of-bounds
    /// accesses the instrumentation let through, barrier divergence after a step-limit exit, ...).
    pub emulator_diagnostics: Vec<Diagnostic>,
    pub ctl: CtlState,
    pub ptx: String,
}

/// Instrument `kernel` of `module_ptx`, run it on the emulator with a per-thread budget of
/// `step_limit` backward branches, and return what the GPU backend would.
pub fn run_instrumented_on_emulator(
    module_ptx: &str,
    kernel: &str,
    cfg: &LaunchConfig,
    args: Vec<KernelArg>,
    step_limit: u64,
) -> Result<RunResult, ViaEmuError> {
    run_detailed(module_ptx, kernel, cfg, args, step_limit).map(|r| r.result)
}

/// As `run_instrumented_on_emulator`, keeping the emulator's own diagnostics and the raw block.
pub fn run_detailed(
    module_ptx: &str,
    kernel: &str,
    cfg: &LaunchConfig,
    args: Vec<KernelArg>,
    step_limit: u64,
) -> Result<EmuRun, ViaEmuError> {
    let plan = Plan::new(module_ptx, kernel, cfg, &args, step_limit)?;
    run_plan(&plan, args)
}

/// As `run_detailed`, without the wall-clock limit: deterministic whatever the machine's load
/// (the instrumentation's loop budget still ends every loop), for tests that compare runs.
pub fn run_detailed_untimed(
    module_ptx: &str,
    kernel: &str,
    cfg: &LaunchConfig,
    args: Vec<KernelArg>,
    step_limit: u64,
) -> Result<EmuRun, ViaEmuError> {
    let plan = Plan::new(module_ptx, kernel, cfg, &args, step_limit)?;
    run_plan_timed(&plan, args, false)
}

/// Run a prepared plan on the emulator (what the GPU worker does with a GPU).
pub fn run_plan(plan: &Plan, args: Vec<KernelArg>) -> Result<EmuRun, ViaEmuError> {
    run_plan_timed(plan, args, true)
}

fn run_plan_timed(
    plan: &Plan,
    mut args: Vec<KernelArg>,
    timed: bool,
) -> Result<EmuRun, ViaEmuError> {
    let module = crate::ptx::parse(&plan.inst.ptx).map_err(ViaEmuError::Reparse)?;
    // The control block goes last, so it cannot move the buffers it describes.
    args.push(KernelArg::Buffer(Buffer {
        name: CTL_NAME.into(),
        ty: ElemType::U64,
        data: vec![0; plan.ctl_size()],
    }));
    let addrs = crate::emu::buffer_addresses(&args);
    let nbuf = plan.buffer_lens.len();
    if let Some(KernelArg::Buffer(ctl)) = args.last_mut() {
        ctl.data = plan.ctl_bytes(&addrs[..nbuf]);
    }

    // The instrumentation enforces the step limit per thread; the emulator's own limit is only a
    // backstop against an instrumenter bug, far above what a metered kernel can execute.
    let backstop = plan
        .step_budget
        .saturating_add(1)
        .saturating_mul(plan.threads)
        .saturating_mul(10_000)
        .max(100_000_000);
    let opts = EmuOptions {
        step_limit: backstop,
        checkers: false,
        jobs: 1,
        perf: false,
        // The backstop above is far more steps than the limit the user set, and instrumented
        // code is slow: stop at the time the user's own limit would take.
        deadline: timed.then(|| {
            crate::emu::Deadline::for_steps(
                plan.step_budget
                    .saturating_mul(plan.threads)
                    .saturating_mul(2),
            )
        }),
        // The GPU stand-in's checkers are off: nothing reads the poison shadow.
        poisoned: Vec::new(),
    };
    let mut run = crate::emu::run(&module, &plan.inst.entry, &plan.cfg, args, &opts)?;
    let ctl_buf = run
        .buffers
        .pop()
        .ok_or_else(|| CtlError("the control block did not come back".into()))?;
    let ctl = plan.decode(&ctl_buf.data)?;
    let mut result = plan.result(&ctl, run.buffers, run.stdout)?;
    result.instructions = run.instructions;
    // The emulator stopped the launch itself (its time limit or backstop): the control block
    // then says nothing of it, so pass its step-limit report on rather than a clean result.
    if !result
        .diagnostics
        .iter()
        .any(|d| d.kind == crate::emu::result::DiagKind::StepLimit)
    {
        result.diagnostics.extend(
            run.diagnostics
                .iter()
                .filter(|d| d.kind == crate::emu::result::DiagKind::StepLimit)
                .cloned(),
        );
    }
    Ok(EmuRun {
        result,
        emulator_diagnostics: run.diagnostics,
        ctl,
        ptx: plan.inst.ptx.clone(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::emu::value::Scalar;

    /// Hand-written PTX (no NVRTC needed): out[i] = a[i] + 1 for i < n, a loop of 2 shared writes.
    const K: &str = r#"
.version 8.8
.target sm_80
.address_size 64
.visible .entry k(
	.param .u64 k_param_0,
	.param .u64 k_param_1,
	.param .u32 k_param_2
)
{
	.reg .pred 	%p<3>;
	.reg .f32 	%f<3>;
	.reg .b32 	%r<4>;
	.reg .b64 	%rd<8>;
	.shared .align 4 .b8 s[64];
	.loc	1 3 0
	ld.param.u64 	%rd1, [k_param_0];
	ld.param.u64 	%rd2, [k_param_1];
	ld.param.u32 	%r1, [k_param_2];
	mov.u32 	%r2, %tid.x;
	mul.wide.u32 	%rd3, %r2, 4;
	mov.u64 	%rd6, s;
	add.s64 	%rd7, %rd6, %rd3;
	mov.u32 	%r3, 0;
$L__BB0_1:
	.loc	1 5 5
	st.shared.u32 	[%rd7], %r3;
	add.s32 	%r3, %r3, 1;
	setp.lt.u32 	%p2, %r3, 2;
	@%p2 bra 	$L__BB0_1;
	.loc	1 6 5
	setp.ge.u32 	%p1, %r2, %r1;
	@%p1 bra 	$L__BB0_2;
	add.s64 	%rd4, %rd2, %rd3;
	ld.global.f32 	%f1, [%rd4];
	add.f32 	%f2, %f1, 0f3F800000;
	add.s64 	%rd5, %rd1, %rd3;
	.loc	1 7 5
	st.global.f32 	[%rd5], %f2;
$L__BB0_2:
	ret;
}
	.file	1 "k.cu"
"#;

    fn args(n: usize) -> Vec<KernelArg> {
        vec![
            KernelArg::Buffer(Buffer::zeros("out", ElemType::F32, 4)),
            KernelArg::Buffer(Buffer::from_values(
                "a",
                ElemType::F32,
                &[1.0, 2.0, 3.0, 4.0],
            )),
            KernelArg::Scalar(Scalar::from_f64(ElemType::U32, n as f64)),
        ]
    }

    fn cfg(threads: u32) -> LaunchConfig {
        LaunchConfig {
            grid: [1, 1, 1],
            block: [threads, 1, 1],
            dynamic_shared: 0,
            cooperative: false,
        }
    }

    #[test]
    fn counts_and_results_match_the_plain_emulator() {
        let r = run_detailed(K, "k", &cfg(4), args(4), 100).unwrap();
        assert_eq!(r.result.buffers.len(), 2);
        assert_eq!(r.result.buffers[0].values(), vec![2.0, 3.0, 4.0, 5.0]);
        let c = &r.result.counters;
        assert_eq!(c.max_per_thread.global_reads, 1);
        assert_eq!(c.max_per_thread.global_writes, 1);
        assert_eq!(c.max_per_thread.shared_writes, 2);
        assert_eq!(c.total.shared_writes, 8);
        assert!(r.result.diagnostics.is_empty());
        assert!(
            r.emulator_diagnostics.is_empty(),
            "{:?}",
            r.emulator_diagnostics
        );
        assert_eq!(r.ctl.steps, vec![1, 1, 1, 1]);

        let plain = crate::emu::run(
            &crate::ptx::parse(K).unwrap(),
            "k",
            &cfg(4),
            args(4),
            &EmuOptions::default(),
        )
        .unwrap();
        assert_eq!(plain.buffers, r.result.buffers);
        // The instrumenter counts memory only (`families_uncounted`).
        assert_eq!(plain.counters.memory(), r.result.counters);
    }

    #[test]
    fn a_poisoned_output_keeps_its_poison_where_no_thread_writes() {
        // The GPU backend uploads each buffer's bytes as they are (`driver::Launchable`): an
        // output the judge poisoned reaches the device poisoned, as here.
        let mut a = args(2);
        a[0] = KernelArg::Buffer(Buffer::poisoned("out", ElemType::F32, 4));
        let r = run_detailed(K, "k", &cfg(4), a, 100).unwrap();
        let out = &r.result.buffers[0];
        assert_eq!(out.values()[..2], [2.0, 3.0]);
        assert!(!out.holds_poison(0) && !out.holds_poison(1));
        assert!(out.holds_poison(2) && out.holds_poison(3));
    }

    #[test]
    fn an_overrun_is_skipped_and_reported_once() {
        // n = 6 with 4-element buffers: threads 4 and 5 read a[4], a[5] out of bounds.
        let r = run_detailed(K, "k", &cfg(6), args(6), 100).unwrap();
        assert!(
            r.emulator_diagnostics.is_empty(),
            "{:?}",
            r.emulator_diagnostics
        );
        assert_eq!(r.result.buffers[0].values(), vec![2.0, 3.0, 4.0, 5.0]);
        let d = &r.result.diagnostics;
        assert_eq!(d.len(), 1);
        assert_eq!(d[0].kind.as_str(), "out-of-bounds");
        assert_eq!(d[0].thread, [4, 0, 0]);
        assert_eq!(d[0].line, Some(6));
        assert_eq!(d[0].file.as_deref(), Some("k.cu"));
        assert!(
            d[0].message
                .starts_with("thread 4 of block 0 read a[4] (line 6)"),
            "{}",
            d[0].message
        );
        // Both reads and both writes were out of bounds.
        assert_eq!(r.ctl.fault_count, 4);
        assert_eq!(r.result.counters.total.global_reads, 4);
    }

    /// `K` with a bulk (TMA) copy gpuzzle does not support, run only when `n` is over 100.
    fn with_async_copy() -> String {
        K.replace(".reg .pred \t%p<3>;", ".reg .pred \t%p<4>;").replace(
            "\t.loc\t1 6 5\n",
            "\t.loc\t1 8 3\n\tsetp.gt.u32 \t%p3, %r1, 100;\n\t@%p3 cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes \t[%rd7], [%rd2], 4, [%rd7];\n\t.loc\t1 6 5\n",
        )
    }

    #[test]
    fn an_unsupported_instruction_fails_only_when_reached_as_on_the_emulator() {
        let ptx = with_async_copy();
        assert!(ptx.contains("cp.async"));
        let module = crate::ptx::parse(&ptx).unwrap();
        let plain = |n| crate::emu::run(&module, "k", &cfg(4), args(n), &EmuOptions::default());
        // Not reached: the same buffers and counters as the plain emulator.
        let p = plain(4).unwrap();
        let r = run_detailed(&ptx, "k", &cfg(4), args(4), 100).unwrap();
        assert_eq!(r.result.buffers, p.buffers);
        assert_eq!(r.result.counters, p.counters.memory());
        assert!(r.result.diagnostics.is_empty());
        assert_eq!(r.ctl.unsupported, None);
        // Reached: the emulator's error, word for word.
        let Err(EmuError::Unsupported(want)) = plain(200) else {
            panic!("the emulator ran cp.async.bulk")
        };
        assert!(
            want.starts_with("the instruction `cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes` (from k.cu:8)"),
            "{want}"
        );
        match run_detailed(&ptx, "k", &cfg(4), args(200), 100) {
            Err(ViaEmuError::Emu(EmuError::Unsupported(got))) => assert_eq!(got, want),
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn a_tiny_step_budget_stops_the_loop() {
        let r = run_detailed(K, "k", &cfg(4), args(4), 0).unwrap();
        let d = &r.result.diagnostics;
        assert_eq!(d.len(), 1);
        assert_eq!(d[0].kind.as_str(), "step-limit");
        assert_eq!(d[0].line, Some(5));
        // The first thread stopped, the others exited at their next backward branch.
        assert_eq!(r.result.counters.total.global_writes, 0);
    }
}
