//! One instrumented launch, prepared and read back, independent of what executes it.
//!
//! Both executors of instrumented PTX (the GPU in `driver`, the emulator in `via_emu`) go through
//! a `Plan`: it checks the arguments against the kernel's parameters (with the emulator's own
//! messages, so the judge explains a wrong signature the same way), instruments the module,
//! builds the control block once the executor knows where the buffers live, and turns the block
//! read back after the launch into a `RunResult` shaped exactly like the emulator's.

use super::ctl::{CtlError, CtlState};
use super::instrument::{instrument, InstrumentError, InstrumentOptions, Instrumented};
use super::outcome::{counter_summary, fault_diagnostic, TableName};
use crate::emu::result::{Diagnostic, RunResult};
use crate::emu::value::{Buffer, KernelArg};
use crate::emu::{EmuError, LaunchConfig};
use crate::ptx::ir::demangle_var;

/// Why an instrumented launch could not be prepared.
#[derive(Debug, thiserror::Error)]
pub enum PlanError {
    /// The same refusal the emulator gives: no such kernel, or arguments that do not fit.
    #[error(transparent)]
    Launch(#[from] EmuError),
    #[error(transparent)]
    Instrument(#[from] InstrumentError),
    #[error("gpuzzle could not read the kernel's PTX (please report this): {0}")]
    Parse(#[from] crate::ptx::ParseError),
}

/// An instrumented kernel with everything needed to launch it and read it back.
#[derive(Clone, Debug)]
pub struct Plan {
    pub inst: Instrumented,
    pub cfg: LaunchConfig,
    /// Threads in the grid (one control-block record each).
    pub threads: u64,
    /// Backward branches each thread may take before it is stopped.
    pub step_budget: u64,
    /// Labels of the buffer table: module variables, then the launch's buffers.
    pub names: Vec<TableName>,
    /// Labels of the shared table.
    pub shared_names: Vec<TableName>,
    /// Byte length of each buffer argument, in argument order.
    pub buffer_lens: Vec<u64>,
    /// The module's `.file` names by index (for diagnostics).
    pub files: Vec<String>,
}

/// The per-thread loop budget for a launch given the emulator's launch-wide instruction limit:
/// the limit shared out over the threads, halved because a loop iteration is at least two
/// instructions, and never below 1000 iterations. So a kernel the emulator would stop is stopped
/// here too (roughly), and on a GPU an endless loop ends in milliseconds instead of at the timeout.
pub fn per_thread_budget(step_limit: u64, threads: u64) -> u64 {
    (step_limit / threads.max(1) / 2).max(1_000)
}

impl Plan {
    /// Check `args` against `kernel` in `module_ptx` and instrument the module.
    pub fn new(
        module_ptx: &str,
        kernel: &str,
        cfg: &LaunchConfig,
        args: &[KernelArg],
        step_budget: u64,
    ) -> Result<Plan, PlanError> {
        let module = crate::ptx::parse(module_ptx)?;
        check_args(&module, kernel, args)?;
        let inst = instrument(module_ptx, kernel, &InstrumentOptions::default())?;
        let layout = &inst.layout;
        let mut names: Vec<TableName> = layout
            .module_vars
            .iter()
            .map(|v| TableName {
                name: demangle_var(&v.name),
                elem_size: v.elem_size,
                text: module
                    .globals
                    .iter()
                    .find(|g| g.name == v.name)
                    .and_then(|g| g.init.as_deref())
                    .map(c_string),
            })
            .collect();
        let mut buffer_lens = Vec::new();
        for a in args {
            if let KernelArg::Buffer(b) = a {
                names.push(TableName {
                    name: b.name.clone(),
                    elem_size: b.ty.size() as u64,
                    text: None,
                });
                buffer_lens.push(b.data.len() as u64);
            }
        }
        let shared_names = layout
            .shared_vars
            .iter()
            .map(|v| TableName {
                name: demangle_var(&v.name),
                elem_size: v.elem_size,
                text: None,
            })
            .collect();
        Ok(Plan {
            threads: cfg.total_threads(),
            cfg: *cfg,
            step_budget,
            names,
            shared_names,
            buffer_lens,
            files: module.files,
            inst,
        })
    }

    /// Bytes of the control block.
    pub fn ctl_size(&self) -> usize {
        self.inst.layout.size(self.buffer_lens.len(), self.threads)
    }

    /// The control block to copy to the device, given each buffer's device address.
    pub fn ctl_bytes(&self, buffer_addrs: &[u64]) -> Vec<u8> {
        let table: Vec<(u64, u64)> = buffer_addrs
            .iter()
            .copied()
            .zip(self.buffer_lens.iter().copied())
            .collect();
        self.inst
            .layout
            .encode(self.step_budget, &table, self.threads)
    }

    /// Decode the control block read back after the launch.
    pub fn decode(&self, ctl: &[u8]) -> Result<CtlState, CtlError> {
        self.inst
            .layout
            .decode(ctl, self.buffer_lens.len(), self.threads)
    }

    /// The launch's result: the buffers read back, device printf output, the counters and the
    /// first fault from the control block. A thread that reached an instruction gpuzzle does
    /// not support fails the launch with the emulator's error and message for it.
    pub fn result(
        &self,
        ctl: &CtlState,
        buffers: Vec<Buffer>,
        stdout: String,
    ) -> Result<RunResult, EmuError> {
        if let Some(e) = self.unsupported_error(ctl) {
            return Err(e);
        }
        let diagnostics: Vec<Diagnostic> =
            fault_diagnostic(ctl, &self.names, &self.shared_names, &self.files, &self.cfg)
                .into_iter()
                .collect();
        Ok(RunResult {
            buffers,
            stdout,
            diagnostics,
            counters: counter_summary(&ctl.counters, &self.cfg),
            perf: Default::default(),
            instructions: 0,
            families_uncounted: true,
        })
    }

    /// The emulator's error for the unsupported instruction a thread reached, if one did:
    /// `the instruction `cp.async...` (from k.cu:7) is not supported ...`.
    pub fn unsupported_error(&self, ctl: &CtlState) -> Option<EmuError> {
        let k = ctl.unsupported?;
        let Some(site) = self.inst.unsupported.get(k as usize) else {
            return Some(EmuError::Launch(format!(
                "the instrumented kernel reported unsupported-instruction site {k}, but it has {} (a gpuzzle bug: please report it)",
                self.inst.unsupported.len()
            )));
        };
        let file = self.files.get(site.file as usize).filter(|f| !f.is_empty());
        let at = match file {
            Some(f) if site.line > 0 => format!(" (from {f}:{})", site.line),
            _ => String::new(),
        };
        Some(EmuError::Unsupported(crate::emu::unsupported_instruction(
            &site.what, &at,
        )))
    }
}

/// Bytes up to the first NUL as text (a module string's initialiser).
fn c_string(bytes: &[u8]) -> String {
    let end = bytes.iter().position(|&b| b == 0).unwrap_or(bytes.len());
    String::from_utf8_lossy(&bytes[..end]).into_owned()
}

/// Refuse a launch the emulator would refuse before running: an unknown or ambiguous kernel, or
/// arguments that do not match its parameters. Same messages as the emulator, because the judge
/// turns them into the same advice ("keep the starter's parameters").
pub fn check_args(
    module: &crate::ptx::Module,
    kernel: &str,
    args: &[KernelArg],
) -> Result<(), EmuError> {
    crate::emu::check_args(module, kernel, args).map(|_| ())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::emu::value::{ElemType, Scalar};

    const K: &str = r#"
.version 8.8
.target sm_80
.address_size 64
.visible .entry k(
	.param .u64 k_param_0,
	.param .u32 k_param_1
)
{
	.reg .b32 	%r<3>;
	.reg .b64 	%rd<4>;
	ld.param.u64 	%rd1, [k_param_0];
	ld.param.u32 	%r1, [k_param_1];
	cvta.to.global.u64 	%rd2, %rd1;
	mov.u32 	%r2, %tid.x;
	mul.wide.u32 	%rd3, %r2, 4;
	add.s64 	%rd2, %rd2, %rd3;
	st.global.u32 	[%rd2], %r1;
	ret;
}
"#;

    fn cfg() -> LaunchConfig {
        LaunchConfig {
            grid: [2, 1, 1],
            block: [4, 1, 1],
            dynamic_shared: 0,
            cooperative: false,
        }
    }

    fn args() -> Vec<KernelArg> {
        vec![
            KernelArg::Buffer(Buffer::zeros("out", ElemType::U32, 8)),
            KernelArg::Scalar(Scalar::from_f64(ElemType::U32, 7.0)),
        ]
    }

    #[test]
    fn budgets_share_the_limit_but_never_drop_below_a_floor() {
        assert_eq!(per_thread_budget(20_000_000, 100), 100_000);
        assert_eq!(per_thread_budget(100_000_000, 1 << 20), 1_000);
        assert_eq!(per_thread_budget(10, 0), 1_000);
    }

    #[test]
    fn a_plan_counts_threads_and_encodes_the_buffers() {
        let p = Plan::new(K, "k", &cfg(), &args(), 50).unwrap();
        assert_eq!(p.threads, 8);
        assert_eq!(p.buffer_lens, vec![32]);
        assert_eq!(p.names.last().unwrap().name, "out");
        let ctl = p.ctl_bytes(&[0x1000]);
        assert_eq!(ctl.len(), p.ctl_size());
        let st = p.decode(&ctl).unwrap();
        assert_eq!(st.table, vec![(0x1000, 32)]);
        assert_eq!(st.step_budget, 50);
        let r = p.result(&st, vec![], "hi".into()).unwrap();
        assert!(r.diagnostics.is_empty());
        assert_eq!(r.stdout, "hi");
    }

    #[test]
    fn wrong_arguments_get_the_emulators_messages() {
        let m = crate::ptx::parse(K).unwrap();
        let e = check_args(&m, "nope", &args()).unwrap_err();
        assert!(matches!(e, EmuError::NoSuchKernel { ref found, .. } if found == "k"));
        let e = check_args(&m, "k", &args()[..1]).unwrap_err();
        assert_eq!(
            e.to_string(),
            "kernel `k` takes 2 parameters, but 1 argument were given"
        );
        let mut a = args();
        a[1] = KernelArg::Scalar(Scalar::from_f64(ElemType::F64, 1.0));
        let e = check_args(&m, "k", &a).unwrap_err();
        assert!(
            e.to_string().starts_with("argument 2 is a f64 scalar"),
            "{e}"
        );
        a.swap(0, 1);
        assert!(check_args(&m, "k", &a).is_err());
        // And the plan refuses too, before instrumenting.
        assert!(matches!(
            Plan::new(K, "k", &cfg(), &a, 1),
            Err(PlanError::Launch(_))
        ));
    }
}
