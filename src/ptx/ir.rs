//! The compact IR the emulator executes: registers resolved to indices, labels to instruction
//! indices, symbols to addresses or param slots, and a source line on every instruction.

use super::demangle;
pub use super::parser::parse_async::{AsyncApi, AsyncOp};

/// PTX scalar types as they appear in instruction suffixes and declarations.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Ty {
    B8,
    B16,
    B32,
    B64,
    U8,
    U16,
    U32,
    U64,
    S8,
    S16,
    S32,
    S64,
    F16,
    /// bfloat16: f32's exponent, 8 bits of significand (`__nv_bfloat16`).
    BF16,
    F32,
    F64,
    Pred,
}

impl Ty {
    pub fn parse(s: &str) -> Option<Ty> {
        Some(match s {
            "b8" => Ty::B8,
            "b16" => Ty::B16,
            "b32" => Ty::B32,
            "b64" => Ty::B64,
            "u8" => Ty::U8,
            "u16" => Ty::U16,
            "u32" => Ty::U32,
            "u64" => Ty::U64,
            "s8" => Ty::S8,
            "s16" => Ty::S16,
            "s32" => Ty::S32,
            "s64" => Ty::S64,
            "f16" => Ty::F16,
            "bf16" => Ty::BF16,
            "f32" => Ty::F32,
            "f64" => Ty::F64,
            "pred" => Ty::Pred,
            _ => return None,
        })
    }

    /// Size in bytes (a predicate counts as 1).
    pub fn size(self) -> u32 {
        match self {
            Ty::B8 | Ty::U8 | Ty::S8 | Ty::Pred => 1,
            Ty::B16 | Ty::U16 | Ty::S16 | Ty::F16 | Ty::BF16 => 2,
            Ty::B32 | Ty::U32 | Ty::S32 | Ty::F32 => 4,
            Ty::B64 | Ty::U64 | Ty::S64 | Ty::F64 => 8,
        }
    }

    pub fn bits(self) -> u32 {
        self.size() * 8
    }

    pub fn is_signed(self) -> bool {
        matches!(self, Ty::S8 | Ty::S16 | Ty::S32 | Ty::S64)
    }

    pub fn is_float(self) -> bool {
        matches!(self, Ty::F16 | Ty::BF16 | Ty::F32 | Ty::F64)
    }
}

/// PTX state spaces.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Space {
    Generic,
    Global,
    Shared,
    Local,
    Const,
    Param,
}

/// Special registers (`%tid.x`, ...). Read through `Operand::Special`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Special {
    Tid(u8),
    Ntid(u8),
    Ctaid(u8),
    Nctaid(u8),
    LaneId,
    WarpId,
    NWarpId,
    WarpSize,
    Clock,
    Clock64,
    LaneMaskEq,
    LaneMaskLt,
    LaneMaskLe,
    LaneMaskGt,
    LaneMaskGe,
    SmId,
    GlobalTimer,
    DynamicSmemSize,
    /// `%reserved_smem_offset_begin/_end/_cap/_0/_1`: where the shared memory the system
    /// reserves per block lies (cooperative groups keep a large tile's scratch there).
    ReservedSmem(ReservedSmem),
    /// `%nsmid`: how many SMs the emulator models (one: `%smid` is always 0).
    NSmId,
    /// `%gridid`: which launch this is (one launch at a time: always 1).
    GridId,
    /// `%clock_hi`: the upper half of `%clock64`.
    ClockHi,
    /// `%globaltimer_lo` / `%globaltimer_hi`: the halves of `%globaltimer`.
    GlobalTimerLo,
    GlobalTimerHi,
    /// `%pm0`..`%pm7` and `%pm0_64`..`%pm7_64`: performance-monitor counters (none counts: 0).
    Pm(u8),
    /// `%envreg0`..`%envreg31`: registers the driver sets; a plain launch sets none (0).
    EnvReg(u8),
    /// `%total_smem_size`: static plus dynamic shared memory of the block.
    TotalSmemSize,
    /// `%aggr_smem_size`: that plus the shared memory the system reserves.
    AggrSmemSize,
    /// `%is_explicit_cluster`: 0, a plain launch has no clusters.
    IsExplicitCluster,
    /// Cluster registers: without clusters each block is a cluster of one, so `%clusterid`
    /// is the block's index, `%nclusterid` the grid's size, `%cluster_ctaid` 0,
    /// `%cluster_nctaid` 1, `%cluster_ctarank` 0 and `%cluster_nctarank` 1.
    ClusterId(u8),
    NClusterId(u8),
    ClusterCtaId(u8),
    ClusterNCtaId(u8),
    ClusterCtaRank,
    ClusterNCtaRank,
    /// `%current_graph_exec`: 0, the kernel is not launched from a CUDA graph.
    CurrentGraphExec,
}

/// Which of the reserved-shared-memory registers (see [`Special::ReservedSmem`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ReservedSmem {
    /// Offset of the region's first byte.
    Begin,
    /// Offset one past its last byte.
    End,
    /// Its size in bytes.
    Cap,
    /// `%reserved_smem_offset_<n>`: an offset inside it the compiler hands out (cooperative
    /// groups use `_1` for a multi-warp tile's scratch).
    Offset(u8),
}

/// A source operand.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Operand {
    Reg(u32),
    /// An immediate, already converted to the instruction's bit pattern (floats as their bits).
    Imm(u64),
    Special(Special),
    /// The address of a module-level symbol (global/const), resolved when the module is loaded.
    GlobalSym(u32),
    /// The shared-window offset of a shared variable (static layout; dynamic shared follows it).
    SharedSym(u32),
    /// The local-window offset of a local variable (frame-relative, e.g. `__local_depot0`).
    LocalSym(u32),
    /// The address of a param slot of the current frame.
    ParamSym(u32),
}

/// `[base + offset]`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Address {
    pub base: Operand,
    pub offset: i64,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Rounding {
    /// No modifier given.
    Default,
    Rn,
    Rz,
    Rm,
    Rp,
    /// Integer rounding for cvt (`.rni` etc.).
    Rni,
    Rzi,
    Rmi,
    Rpi,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BinOp {
    Add,
    Sub,
    MulLo,
    MulHi,
    MulWide,
    Div,
    Rem,
    Min,
    Max,
    And,
    Or,
    Xor,
    Shl,
    Shr,
    Copysign,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum UnOp {
    Neg,
    Abs,
    Not,
    Cnot,
    Popc,
    Clz,
    Brev,
    Bfind,
    BfindShift,
    Sqrt,
    Rsqrt,
    Rcp,
    Ex2,
    Lg2,
    Sin,
    Cos,
    Tanh,
    Mov,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CmpOp {
    Eq,
    Ne,
    Lt,
    Le,
    Gt,
    Ge,
    Lo,
    Ls,
    Hi,
    Hs,
    Equ,
    Neu,
    Ltu,
    Leu,
    Gtu,
    Geu,
    Num,
    Nan,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BoolOp {
    And,
    Or,
    Xor,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AtomOp {
    Add,
    Min,
    Max,
    Inc,
    Dec,
    And,
    Or,
    Xor,
    Exch,
    Cas,
    /// `atom.add.noftz.f16x2`/`.bf16x2` (and `min`/`max`): two 16-bit floats of type `half`
    /// packed in 32 bits, each combined alone with `op`; the instruction's own type is `.b32`.
    Pair {
        op: BinOp,
        half: Ty,
    },
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ShflMode {
    Up,
    Down,
    Bfly,
    Idx,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum VoteMode {
    All,
    Any,
    Uni,
    Ballot,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BarRedOp {
    Popc,
    And,
    Or,
}

/// Which packed integer dot product (`__dp4a`, `__dp2a_lo`, `__dp2a_hi`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DotKind {
    Dp4a,
    Dp2aLo,
    Dp2aHi,
}

/// What an [`Op::Half2`] does to each half.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Half2Op {
    Bin(BinOp),
    /// `fma.rn{.relu}`: with `.relu`, a negative result becomes +0 and NaN the canonical NaN.
    Fma {
        relu: bool,
    },
    Neg,
    Abs,
    /// `ex2.approx`/`tanh.approx` of each half (`h2exp2`, `h2tanh_approx`).
    Un(UnOp),
    /// `min`/`max{.NaN}.xorsign.abs`: the smaller (larger) magnitude of a and b, with the
    /// sign bits of a and b XORed (a NaN result keeps its own); also the scalar `.f16`/`.bf16`.
    XorsignAbs {
        max: bool,
    },
    /// `cvt.frnd2{.relu}{.satfinite}.f16x2.f32 d, a, b`: d = {a as the high half, b as the
    /// low}; as a scalar, `cvt.rn.relu.f16.f32 d, a` is [`Op::Cvt`].
    PackCvt(HalfCvt),
    /// `set.CmpOp{.BoolOp}.dtype.stype d, a, b{, {!}c}`: the comparison (with the predicate `c`
    /// combined by the optional `BoolOp`, negated when its `bool` is set) as a value of `out`:
    /// 1.0 for a float, all ones for an integer, per half for the packed forms (a packed
    /// comparison into `.u32` gives 0xffff per half).
    Set {
        cmp: CmpOp,
        comb: Option<(BoolOp, bool)>,
        out: Ty,
    },
    /// `setp.CmpOp{.BoolOp}.f16x2 p|q, a, b{, {!}c}`: `p` from the low halves, `q` (the
    /// instruction's `d2`) from the high halves.
    Setp {
        cmp: CmpOp,
        comb: Option<(BoolOp, bool)>,
    },
}

/// How a conversion into a 16-bit float ends (`cvt.rz.relu.satfinite.f16x2.f32`): its
/// rounding direction, `.relu` (a negative result becomes +0, NaN the canonical NaN) and
/// `.satfinite` (an infinite or overflowing result becomes the largest finite value of its sign).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct HalfCvt {
    pub rnd: Rounding,
    pub relu: bool,
    pub satfinite: bool,
}

/// Float flags of arithmetic: flush subnormals, saturate to [0,1], approximate.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct FFlags {
    pub ftz: bool,
    pub sat: bool,
    pub approx: bool,
    /// min/max `.NaN`: propagate NaN.
    pub nan: bool,
}

/// What a `call` targets.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Callee {
    Func(u32),
    Vprintf,
    AssertFail,
    /// An `.extern .func` the emulator does not provide (index into `Module::externs`).
    Unknown(u32),
    /// A call through a function pointer (a virtual function, a `int (*f)(int)`): the register
    /// holding its address (see [`function_address`]).
    Indirect(u32),
    /// Device `malloc` (also what `new` compiles to) and `free` (`delete`).
    Malloc,
    Free,
}

/// Where function addresses live: far above global memory and outside the shared and local
/// windows, so a function pointer used as data faults, and data used as a function pointer is
/// recognised as no function.
pub const FUNCTION_ADDRESS_BASE: u64 = 0x0000_7000_0000_0000;

/// The address a function pointer to function `idx` holds.
pub fn function_address(idx: u32) -> u64 {
    FUNCTION_ADDRESS_BASE + idx as u64 * 16
}

/// The function a function pointer points to, if it points to one of `count`.
pub fn function_at(addr: u64, count: usize) -> Option<u32> {
    let off = addr.checked_sub(FUNCTION_ADDRESS_BASE)?;
    let idx = off / 16;
    (off % 16 == 0 && idx < count as u64).then_some(idx as u32)
}

/// What an [`Op::Cluster`] does (sm_90; `ptx/parse_cluster.rs` reads them, `emu/cluster.rs`
/// runs them).
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum ClusterOp {
    /// `barrier.cluster.arrive`: this thread has arrived at the cluster barrier's next phase.
    Arrive,
    /// `barrier.cluster.wait`: wait until every thread of the cluster arrived at this thread's
    /// current phase.
    Wait,
    /// `mapa{.shared::cluster}.u32/.u64 d, a, rank`: the address of the variable at `a` (this
    /// block's shared memory) in the shared memory of the cluster's block `rank`; `generic`:
    /// a generic address (else a `shared::cluster` one).
    Mapa {
        d: u32,
        a: Operand,
        rank: Operand,
        generic: bool,
    },
    /// `elect.sync d|p, membermask`: the lowest lane of the mask is the leader: `d` its lane
    /// number, `p` true in it alone.
    Elect {
        d: Option<u32>,
        p: Option<u32>,
        mask: Operand,
    },
}

/// One instruction. `dst` registers are indices into the frame's register file.
#[derive(Clone, Debug, PartialEq)]
pub enum Op {
    Bin {
        op: BinOp,
        ty: Ty,
        d: u32,
        a: Operand,
        b: Operand,
        f: FFlags,
        rnd: Rounding,
    },
    Un {
        op: UnOp,
        ty: Ty,
        d: u32,
        a: Operand,
        f: FFlags,
    },
    /// `mad.lo/.hi/.wide` (integer) and `fma`/`mad` (float: single rounding).
    Mad {
        mode: BinOp,
        ty: Ty,
        d: u32,
        a: Operand,
        b: Operand,
        c: Operand,
        f: FFlags,
        rnd: Rounding,
    },
    Setp {
        cmp: CmpOp,
        ty: Ty,
        d: u32,
        d2: Option<u32>,
        a: Operand,
        b: Operand,
        comb: Option<(BoolOp, Operand, bool)>,
    },
    Selp {
        ty: Ty,
        d: u32,
        a: Operand,
        b: Operand,
        p: Operand,
    },
    /// `slct.dty.sty d, a, b, c` : d = c >= 0 ? a : b.
    Slct {
        ty: Ty,
        cty: Ty,
        d: u32,
        a: Operand,
        b: Operand,
        c: Operand,
        ftz: bool,
    },
    Cvt {
        dty: Ty,
        sty: Ty,
        d: u32,
        a: Operand,
        rnd: Rounding,
        sat: bool,
        ftz: bool,
        /// `.relu`/`.satfinite` of a conversion into `f16`/`bf16` (see [`HalfCvt`]).
        relu: bool,
        satfinite: bool,
    },
    /// `cvta.space` (to generic) or `cvta.to.space` (from generic).
    Cvta {
        to: bool,
        space: Space,
        d: u32,
        a: Operand,
    },
    Isspacep {
        space: Space,
        d: u32,
        a: Operand,
    },
    /// `lop3.b32 d, a, b, c, immLut`: any logic function of three inputs, bit by bit, `lut`
    /// its truth table (bit `4a + 2b + c` is the result for input bits a, b, c).
    Lop3 {
        d: u32,
        a: Operand,
        b: Operand,
        c: Operand,
        lut: u8,
    },
    /// `fns.b32 d, mask, base, offset` (`__fns`): the position of the `offset`-th set bit of
    /// `mask` counted from bit `base`.
    Fns {
        d: u32,
        a: Operand,
        b: Operand,
        c: Operand,
    },
    /// `bfe.ty d, a, pos, len`.
    Bfe {
        ty: Ty,
        d: u32,
        a: Operand,
        b: Operand,
        c: Operand,
    },
    /// `bfi.ty d, f, b, pos, len`.
    Bfi {
        ty: Ty,
        d: u32,
        a: Operand,
        b: Operand,
        c: Operand,
        e: Operand,
    },
    Prmt {
        d: u32,
        a: Operand,
        b: Operand,
        c: Operand,
    },
    /// `shf.l/.r.wrap/.clamp.b32 d, a, b, c`.
    Shf {
        left: bool,
        wrap: bool,
        d: u32,
        a: Operand,
        b: Operand,
        c: Operand,
    },
    Ld {
        space: Space,
        ty: Ty,
        d: Vec<u32>,
        addr: Address,
        volatile: bool,
    },
    St {
        space: Space,
        ty: Ty,
        src: Vec<Operand>,
        addr: Address,
    },
    Atom {
        space: Space,
        op: AtomOp,
        ty: Ty,
        d: Option<u32>,
        addr: Address,
        b: Operand,
        c: Operand,
    },
    Bra {
        target: u32,
    },
    /// `brx.idx index, tlist`: a jump to `targets[index]` (the `.branchtargets` list's labels);
    /// an index past the list is an error where it runs (`parse_brx.rs`).
    Brx {
        index: Operand,
        targets: Vec<u32>,
    },
    Call {
        callee: Callee,
        ret: Option<u32>,
        args: Vec<u32>,
    },
    Ret,
    Exit,
    Trap,
    BarSync {
        id: Operand,
    },
    BarRed {
        op: BarRedOp,
        d: u32,
        p: Operand,
        negate: bool,
    },
    BarWarpSync {
        mask: Operand,
    },
    Shfl {
        mode: ShflMode,
        d: u32,
        p: Option<u32>,
        a: Operand,
        b: Operand,
        c: Operand,
        mask: Operand,
    },
    Vote {
        mode: VoteMode,
        d: u32,
        p: Operand,
        negate: bool,
        mask: Operand,
    },
    Activemask {
        d: u32,
    },
    Redux {
        op: AtomOp,
        ty: Ty,
        d: u32,
        a: Operand,
        mask: Operand,
    },
    MatchAny {
        d: u32,
        a: Operand,
        mask: Operand,
    },
    /// `match.all.sync d[|p], a, mask`: the mask when every lane holds the same value, else 0.
    MatchAll {
        d: u32,
        p: Option<u32>,
        a: Operand,
        mask: Operand,
    },
    /// `sad.ty d, a, b, c`: d = c + |a - b|.
    Sad {
        ty: Ty,
        d: u32,
        a: Operand,
        b: Operand,
        c: Operand,
    },
    /// `dp4a` / `dp2a.lo` / `dp2a.hi`: integer dot products of packed bytes and halves, plus c.
    Dot {
        kind: DotKind,
        a_signed: bool,
        b_signed: bool,
        d: u32,
        a: Operand,
        b: Operand,
        c: Operand,
    },
    /// `mov.b64 d, {a, b}`: pack narrower registers (low part first).
    Pack {
        elem_bits: u32,
        d: u32,
        srcs: Vec<Operand>,
    },
    /// `mov.b64 {a, b}, s`: unpack into narrower registers (`None` for the `_` sink).
    Unpack {
        elem_bits: u32,
        ds: Vec<Option<u32>>,
        a: Operand,
    },
    /// An `.f16x2`/`.bf16x2` instruction: two 16-bit floats (`ty`) packed in a 32-bit
    /// register, low half and high half computed alike (`__hadd2`, `__hfma2`), or
    /// `cvt.rn.f16x2.f32 d, a, b` packing two floats (a high, b low). With `pair` false, the
    /// scalar `.f16`/`.bf16` forms the other ops cannot express (`fma.rn.relu.f16`), and `set`
    /// of any source type `ty` (a scalar `set` compares whole registers).
    Half2 {
        op: Half2Op,
        ty: Ty,
        pair: bool,
        d: u32,
        /// The high halves' predicate of `setp.f16x2 p|q` (`_` or absent: `None`).
        d2: Option<u32>,
        a: Operand,
        b: Operand,
        c: Operand,
        f: FFlags,
    },
    /// A warp-wide WMMA load, store or multiply-accumulate (`mma.h`; `ptx/wmma.rs`).
    Wmma(Box<super::wmma::Wmma>),
    /// The async-copy family, mbarriers and named barriers (`ptx/parse_async.rs`).
    Async(Box<AsyncOp>),
    /// The tensor-core family (`mma.sync`, `ldmatrix`, ...): see [`super::tensor`].
    Tensor(Box<super::tensor::TensorOp>),
    /// Thread-block clusters and `elect.sync` (sm_90, `emu/cluster.rs`).
    Cluster(ClusterOp),
    /// `atom`/`red.global.add.v2/.v4.f32` (sm_90, `atomicAdd(float2*)`/`float4*`): each
    /// element its own atomic `op` on consecutive elements from `addr` (`emu/cluster.rs`); `d`
    /// the old values (`red`: none).
    AtomVec {
        space: Space,
        op: AtomOp,
        ty: Ty,
        d: Vec<u32>,
        addr: Address,
        b: Vec<Operand>,
    },
    /// Parsed but not implemented: an error naming it if it is ever executed.
    Unsupported {
        text: String,
    },
    /// `membar.gl`/`.sys`, `fence.sc`/`.acq_rel` at GPU or system scope (`__threadfence()`):
    /// memory is sequentially consistent here, but the global race checker needs to know that
    /// a thread fenced before an atomic (a release, see `emu/race.rs`).
    Fence,
    /// Other fences, prefetches, nanosleep, pragmas: nothing to do in a sequentially consistent emulator.
    Nop,
}

#[derive(Clone, Debug, PartialEq)]
pub struct Inst {
    pub op: Op,
    /// `@p` / `@!p` guard: (predicate register, negated).
    pub guard: Option<(u32, bool)>,
    /// Source line from `.loc` (0 when unknown).
    pub line: u32,
    /// Index into `Module::files` for `line` (0 when unknown).
    pub file: u32,
}

/// A variable declared in a state space (module level or function level).
#[derive(Clone, Debug, PartialEq)]
pub struct Variable {
    pub name: String,
    pub space: Space,
    pub size: u64,
    pub align: u64,
    /// Element size for diagnostics (`s[8]`): the declared element type's size.
    pub elem_size: u64,
    /// The declared element type (`.b8` for NVRTC's arrays, whatever their C type).
    pub ty: Ty,
    /// Initial bytes (module globals and consts with initialisers).
    pub init: Option<Vec<u8>>,
    /// `.extern .shared ... []`: dynamic shared memory sized at launch.
    pub dynamic: bool,
    /// The function whose body declares it (NVRTC's demoted `__shared__` variables); `None`
    /// at module level.
    pub owner: Option<u32>,
    /// Initialised words that hold another module variable's address
    /// (`__device__ int* p = &x;`: `= generic(x)`), filled in when a launch places it.
    pub relocs: Vec<Reloc>,
}

/// An 8-byte word of a variable's initial bytes, at `offset`, that holds the address of module
/// variable `target` (index into `Module::globals`) plus `addend`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Reloc {
    pub offset: u64,
    pub target: u32,
    pub addend: u64,
}

/// A kernel or device-function parameter.
#[derive(Clone, Debug, PartialEq)]
pub struct Param {
    pub name: String,
    pub ty: Ty,
    /// Bytes (for `.b8 name[N]` byte-array params: structs by value).
    pub size: u32,
    pub align: u32,
    /// True when declared `.ptr` or when the kernel code converts it with `cvta.to.global`
    /// (a best guess that this is a pointer).
    pub is_array: bool,
    /// Byte offset of this param in the frame's param area.
    pub offset: u32,
}

/// Why [`Module::lookup_entry`] found no single kernel.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum EntryLookup {
    Missing,
    /// Several kernels (template instantiations, overloads) have that name: their full names.
    Ambiguous(Vec<String>),
}

#[derive(Clone, Debug, PartialEq)]
pub struct Function {
    pub name: String,
    pub is_entry: bool,
    pub params: Vec<Param>,
    /// Return value slot (for `.func (.param .b32 func_retval0) f(...)`), offset in the param area.
    pub retval: Option<Param>,
    /// Size of the frame's param area: incoming params, retval, and call-sequence params.
    pub param_area: u32,
    pub num_regs: u32,
    /// Register names, for messages.
    pub reg_names: Vec<String>,
    /// Local-space variables of this function (depot), with frame-relative offsets.
    pub local_vars: Vec<(Variable, u64)>,
    pub local_size: u64,
    pub body: Vec<Inst>,
    /// First source line of the function, for messages about it.
    pub line: u32,
}

#[derive(Clone, Debug, Default, PartialEq)]
pub struct Module {
    pub version: String,
    pub target: String,
    pub functions: Vec<Function>,
    /// Module-level `.global`/`.const` variables (address assigned at load).
    pub globals: Vec<Variable>,
    /// Shared variables (module-level and function-level), with their offsets in the shared window.
    pub shared: Vec<(Variable, u64)>,
    /// Bytes of static shared memory (dynamic shared starts at the 16-aligned end of this).
    pub static_shared_size: u64,
    /// Some instruction reads a `%reserved_smem_offset_*` register: a launch lays out the
    /// reserved shared region after the dynamic shared memory.
    pub uses_reserved_smem: bool,
    /// (function, instruction) of each `trap` cooperative groups' headers execute when a
    /// grid or multi-grid group syncs in a launch that is not cooperative, placed at the
    /// learner's line that called `sync()`.
    pub group_sync_aborts: Vec<(u32, u32)>,
    /// Kernels declared with a cluster shape (`__cluster_dims__`: `.reqnctapercluster x, y,
    /// z`): (function, blocks per cluster along x, y, z).
    pub cluster_dims: Vec<(u32, [u32; 3])>,
    /// `.file` names by index.
    pub files: Vec<String>,
    /// Names of `.extern .func` declarations that are neither `vprintf` nor `__assertfail`.
    pub externs: Vec<String>,
}

impl Function {
    /// The name as written in source: `pooling`, `geo::shift`, `tmpl<128>` (the PTX name
    /// when it is not a mangled C++ name).
    pub fn display_name(&self) -> String {
        demangle::kernel_name(&self.name).unwrap_or_else(|| self.name.clone())
    }
}

impl Module {
    pub fn function(&self, name: &str) -> Option<(u32, &Function)> {
        self.functions
            .iter()
            .enumerate()
            .find(|(_, f)| f.name == name)
            .map(|(i, f)| (i as u32, f))
    }

    /// Names of the kernels (`.entry`) in the module.
    pub fn entries(&self) -> impl Iterator<Item = &Function> {
        self.functions.iter().filter(|f| f.is_entry)
    }

    /// Find a kernel by the name a learner wrote (see [`Module::lookup_entry`]); `None` when
    /// there is no such kernel or the name is ambiguous.
    pub fn find_entry(&self, name: &str) -> Option<(u32, &Function)> {
        self.lookup_entry(name).ok()
    }

    /// Find a kernel by its C name: exact, or the name a C++ (non-`extern "C"`) kernel has in
    /// source: `pooling` for `_Z7poolingPfS_i`, `geo::shift`, and template instantiations by
    /// their arguments (`tmpl<128>`); a bare template name is fine when it has one instantiation.
    pub fn lookup_entry(&self, name: &str) -> Result<(u32, &Function), EntryLookup> {
        let entries = || {
            self.functions
                .iter()
                .enumerate()
                .filter(|(_, f)| f.is_entry)
                .map(|(i, f)| (i as u32, f))
        };
        if let Some(hit) = entries().find(|(_, f)| f.name == name) {
            return Ok(hit);
        }
        if let Some(hit) = entries().find(|(_, f)| demangle::same_name(&f.display_name(), name)) {
            return Ok(hit);
        }
        let by_base: Vec<(u32, &Function)> = entries()
            .filter(|(_, f)| {
                demangle::same_name(demangle::without_template_args(&f.display_name()), name)
            })
            .collect();
        match by_base.len() {
            0 => Err(EntryLookup::Missing),
            1 => Ok(by_base[0]),
            _ => Err(EntryLookup::Ambiguous(
                by_base.iter().map(|(_, f)| f.display_name()).collect(),
            )),
        }
    }

    /// Indices of `entry` and every function it calls, directly or not.
    pub fn reachable_functions(&self, entry: u32) -> Vec<u32> {
        let mut seen = vec![false; self.functions.len()];
        let mut stack = vec![entry];
        let mut out = Vec::new();
        while let Some(f) = stack.pop() {
            match seen.get_mut(f as usize) {
                Some(s) if !*s => *s = true,
                _ => continue,
            }
            out.push(f);
            for inst in &self.functions[f as usize].body {
                match inst.op {
                    Op::Call {
                        callee: Callee::Func(g),
                        ..
                    } => stack.push(g),
                    // A function pointer may reach any function that is not a kernel.
                    Op::Call {
                        callee: Callee::Indirect(_),
                        ..
                    } => stack.extend(
                        (0..self.functions.len() as u32)
                            .filter(|&g| !self.functions[g as usize].is_entry),
                    ),
                    _ => {}
                }
            }
        }
        out.sort_unstable();
        out
    }

    /// Bytes of static `__shared__` memory a kernel can use: the variables declared in it and
    /// in the functions it calls, plus those declared at module level.
    pub fn static_shared_of(&self, entry: u32) -> u64 {
        let reach = self.reachable_functions(entry);
        self.shared
            .iter()
            .filter(|(v, _)| !v.dynamic && v.owner.is_none_or(|o| reach.contains(&o)))
            .map(|(v, _)| v.size)
            .sum()
    }

    pub fn file_name(&self, idx: u32) -> Option<&str> {
        self.files
            .get(idx as usize)
            .map(|s| s.as_str())
            .filter(|s| !s.is_empty())
    }
}

/// The name a learner wrote for a (possibly mangled, possibly demoted) variable:
/// `_ZZ13reduce_sharedE1s` → `s` (a function's own variable: its name inside the function),
/// `_ZN4PMPP4CUDA11partial_sumE` → `PMPP::CUDA::partial_sum` (a namespace's variable: its
/// qualified name, as the learner would write it from outside).
pub fn demangle_var(name: &str) -> String {
    if let Some(rest) = name.strip_prefix("_ZZ") {
        if let Some(id) = local_name(rest) {
            return id.to_string();
        }
    }
    if name.starts_with("_ZN") {
        if let Some(qualified) = demangle::kernel_name(name) {
            return qualified;
        }
    }
    if let Some(rest) = name.strip_prefix("_Z") {
        let digits: String = rest.chars().take_while(|c| c.is_ascii_digit()).collect();
        if let Ok(n) = digits.parse::<usize>() {
            if let Some(id) = rest.get(digits.len()..digits.len() + n) {
                return id.to_string();
            }
        }
    }
    name.to_string()
}

/// The `<n><identifier>` after the function's encoding of a local name (`<encoding> E <name>
/// [discriminator]`). The encoding (parameter types) is not decoded: the name is the last `E`
/// whose length-prefixed identifier runs to the end, or to a `_<n>`/`__<n>_` discriminator, so
/// an identifier holding an `E` (`SHARED_MEM`) is not cut at it.
fn local_name(rest: &str) -> Option<&str> {
    let bytes = rest.as_bytes();
    for (e, _) in rest.match_indices('E').rev() {
        let tail = &rest[e + 1..];
        let digits = tail.bytes().take_while(u8::is_ascii_digit).count();
        let Ok(n) = tail[..digits].parse::<usize>() else {
            continue;
        };
        let start = e + 1 + digits;
        let Some(end) = start.checked_add(n).filter(|&end| end <= bytes.len()) else {
            continue;
        };
        let after = &rest[end..];
        let discriminator = after.is_empty()
            || after.strip_prefix('_').is_some_and(|d| {
                d.trim_start_matches('_')
                    .trim_end_matches('_')
                    .bytes()
                    .all(|b| b.is_ascii_digit())
            });
        let id = &rest[start..end];
        if n > 0 && discriminator && id.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_') {
            return Some(id);
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn demangles_demoted_shared_names() {
        assert_eq!(demangle_var("_ZZ13reduce_sharedE1s"), "s");
        assert_eq!(demangle_var("_ZZ4tmplILi128EEvP6float4PiPKhPfiE2sh"), "sh");
        assert_eq!(demangle_var("_Z6helperfi"), "helper");
        assert_eq!(demangle_var("dyn"), "dyn");
    }

    #[test]
    fn names_namespace_variables_with_their_qualified_name() {
        assert_eq!(
            demangle_var("_ZN4PMPP4CUDA11partial_sumE"),
            "PMPP::CUDA::partial_sum"
        );
        assert_eq!(
            demangle_var("_ZN4PMPP4CUDA7counterE"),
            "PMPP::CUDA::counter"
        );
        // A function's own variable keeps its plain name, even in a namespaced function.
        assert_eq!(
            demangle_var("_ZZN4PMPP4CUDA10neg_sharedEPKfPfiE5cache"),
            "cache"
        );
        // An `E` inside the identifier is not where the name starts.
        assert_eq!(demangle_var("_ZZ6kernelPfE10SHARED_MEM"), "SHARED_MEM");
        assert_eq!(demangle_var("_ZZ6kernelPfE4tile_0"), "tile");
        assert_eq!(demangle_var("_ZZ6kernelPfE4tile__12_"), "tile");
    }
}
