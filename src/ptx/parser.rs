//! Recursive-descent parser from tokens to the IR. Syntax errors are `ParseError`s with the PTX
//! line; instructions gpuzzle does not implement become `Op::Unsupported`, an error only if run.

use super::ir::*;
use super::lexer::{lex, Tok, Token};
use super::ParseError;
use std::collections::HashMap;

#[path = "parse_async.rs"]
pub(super) mod parse_async;
#[path = "parse_tensor.rs"]
mod parse_tensor;
mod wmma;

type PResult<T> = Result<T, ParseError>;

/// Thread-block clusters and `elect.sync` (sm_90), in a file of their own.
#[path = "parse_cluster.rs"]
mod parse_cluster;

/// `brx.idx` and its `.branchtargets` jump table.
#[path = "parse_brx.rs"]
mod parse_brx;

/// `{ ... }` blocks in a body and the declarations they scope.
#[path = "parse_scope.rs"]
mod parse_scope;

/// An operand as written, before it is typed by its instruction.
#[derive(Clone, Debug)]
enum Raw {
    Name(String),
    Pair(String, String),
    Int(u64),
    F32(u32),
    F64(u64),
    Vec(Vec<Raw>),
    Addr(Box<Raw>, i64),
    List(Vec<String>),
    Not(String),
    Sink,
}

/// (file index, line) of a `.loc`.
type SourceLoc = (u32, u32);

struct Parser<'a> {
    toks: &'a [Token],
    pos: usize,
    module: Module,
    /// name → index in module.globals
    global_idx: HashMap<String, u32>,
    /// name → index in module.shared
    shared_idx: HashMap<String, u32>,
    func_idx: HashMap<String, u32>,
    /// Calls to resolve after all functions are known: (function, instruction, callee name).
    pending_calls: Vec<(u32, usize, String)>,
    extern_funcs: Vec<String>,
    /// Per function, per instruction: the outermost source location it was inlined at.
    inlined_at: Vec<(u32, Vec<Option<SourceLoc>>)>,
    /// Per function, per instruction: every location it was inlined at, innermost first.
    inline_chains: Vec<(u32, Vec<Option<parse_async::Chain>>)>,
    /// Some operand named a `%reserved_smem_offset_*` register (set while operands are read).
    uses_reserved_smem: std::cell::Cell<bool>,
}

/// Per-function parsing state.
#[derive(Default)]
struct FnCtx {
    regs: HashMap<String, u32>,
    reg_names: Vec<String>,
    params: HashMap<String, u32>, // name → offset in param area
    param_area: u32,
    locals: HashMap<String, u64>, // name → frame-relative offset
    local_vars: Vec<(Variable, u64)>,
    local_size: u64,
    labels: HashMap<String, u32>,
    /// `.branchtargets` lists by their label (`parse_brx.rs`).
    branch_tables: HashMap<String, Vec<String>>,
    pending_bras: Vec<(usize, String, usize)>,
    body: Vec<Inst>,
    line: u32,
    file: u32,
    /// `.loc … inlined_at F L`: (file, line) of an inlined location → the outermost one.
    inline_map: HashMap<SourceLoc, SourceLoc>,
    /// Where the current location was inlined at, outermost, if it was.
    outer: Option<SourceLoc>,
    /// `outer` of each instruction of `body`.
    outer_locs: Vec<Option<SourceLoc>>,
    /// The same as chains, innermost first (`parse_async::Chain`): per location, the current
    /// one, and per instruction.
    chains: HashMap<SourceLoc, parse_async::Chain>,
    chain: Option<parse_async::Chain>,
    chain_locs: Vec<Option<parse_async::Chain>>,
    /// The `{ ... }` blocks open inside the body, innermost last (`parse_scope.rs`).
    blocks: Vec<parse_scope::Block>,
    /// The number the next declared register gets (below `reg_names.len()` once a closed
    /// block's numbers are free again).
    next_reg: usize,
}

pub fn parse(text: &str) -> PResult<Module> {
    let toks = lex(text).map_err(|(line, message)| ParseError { line, message })?;
    let mut p = Parser {
        toks: &toks,
        pos: 0,
        module: Module::default(),
        global_idx: HashMap::new(),
        shared_idx: HashMap::new(),
        func_idx: HashMap::new(),
        pending_calls: Vec::new(),
        extern_funcs: Vec::new(),
        inlined_at: Vec::new(),
        inline_chains: Vec::new(),
        uses_reserved_smem: std::cell::Cell::new(false),
    };
    p.place_functions();
    p.module_items()?;
    parse_async::note_apis(&mut p.module);
    p.locate_builtin_code();
    for f in &mut p.module.functions {
        wmma::mark_unset_accumulators(&mut f.body);
    }
    p.resolve_calls()?;
    p.layout_shared();
    p.module.uses_reserved_smem = p.uses_reserved_smem.get();
    p.module.externs = p.extern_funcs;
    Ok(p.module)
}

/// The largest `.align` gpuzzle reads (PTX uses at most a few hundred bytes).
const MAX_ALIGN: u64 = 1 << 16;
/// The largest parameter area of a function (CUDA's kernel limit is 32 KiB).
const MAX_PARAM_AREA: u64 = 1 << 20;

fn align_up(v: u64, a: u64) -> u64 {
    let a = a.max(1);
    v.div_ceil(a) * a
}

impl<'a> Parser<'a> {
    fn line(&self) -> usize {
        self.toks
            .get(self.pos)
            .or_else(|| self.toks.last())
            .map(|t| t.line)
            .unwrap_or(1)
    }

    fn err<T>(&self, message: impl Into<String>) -> PResult<T> {
        Err(ParseError {
            line: self.line(),
            message: message.into(),
        })
    }

    fn peek(&self) -> Option<&'a Tok> {
        self.toks.get(self.pos).map(|t| &t.tok)
    }

    fn peek_at(&self, n: usize) -> Option<&'a Tok> {
        self.toks.get(self.pos + n).map(|t| &t.tok)
    }

    fn next(&mut self) -> PResult<&'a Tok> {
        match self.toks.get(self.pos) {
            Some(t) => {
                self.pos += 1;
                Ok(&t.tok)
            }
            None => self.err("unexpected end of PTX"),
        }
    }

    fn is_punct(&self, c: char) -> bool {
        matches!(self.peek(), Some(Tok::Punct(p)) if *p == c)
    }

    fn eat_punct(&mut self, c: char) -> bool {
        if self.is_punct(c) {
            self.pos += 1;
            true
        } else {
            false
        }
    }

    fn expect_punct(&mut self, c: char) -> PResult<()> {
        if self.eat_punct(c) {
            Ok(())
        } else {
            let found = self
                .peek()
                .map_or("the end of the PTX".to_string(), |t| t.to_string());
            self.err(format!("expected `{c}`, found {found}"))
        }
    }

    fn ident(&mut self) -> PResult<String> {
        match self.next()? {
            Tok::Ident(s) => Ok(s.clone()),
            t => {
                self.pos -= 1;
                self.err(format!("expected a name, found {t}"))
            }
        }
    }

    /// `.align N`: a power of two no larger than any alignment PTX asks for; a wild value
    /// (from damaged PTX) is an error instead of an overflow in the layout arithmetic.
    fn align_value(&mut self) -> PResult<u64> {
        let n = self.int()?;
        if n == 0 || !n.is_power_of_two() || n > MAX_ALIGN {
            return self.err(format!(
                "`.align {n}`: an alignment is a power of two up to {MAX_ALIGN}"
            ));
        }
        Ok(n)
    }

    fn int(&mut self) -> PResult<u64> {
        let neg = self.eat_punct('-');
        match self.next()? {
            Tok::Int(v) => Ok(if neg { v.wrapping_neg() } else { *v }),
            t => {
                self.pos -= 1;
                self.err(format!("expected a number, found {t}"))
            }
        }
    }

    /// Skip every token on the current PTX line (for `.loc`, `.file` and other line directives).
    fn skip_line(&mut self, line: usize) {
        while let Some(t) = self.toks.get(self.pos) {
            if t.line != line {
                break;
            }
            self.pos += 1;
        }
    }

    /// The `inlined_at FILE LINE` of the rest of a `.loc` on PTX line `line`, if any.
    fn inlined_at_of(&self, line: usize) -> Option<(u32, u32)> {
        let rest = self.toks[self.pos..]
            .iter()
            .take_while(|t| t.line == line)
            .map(|t| &t.tok)
            .collect::<Vec<_>>();
        let at = rest
            .iter()
            .position(|t| matches!(t, Tok::Ident(w) if w == "inlined_at"))?;
        match (rest.get(at + 1), rest.get(at + 2)) {
            (Some(Tok::Int(f)), Some(Tok::Int(l))) if *l > 0 => Some((*f as u32, *l as u32)),
            _ => None,
        }
    }

    /// Code NVRTC inlined from its own built-in header (texture fetches and other intrinsics)
    /// or from the CUDA runtime's headers (`__half2` loads in `cuda_fp16.h`) is placed at the
    /// learner's line that called it: the header's lines mean nothing to them.
    fn locate_builtin_code(&mut self) {
        let builtin = |m: &Module, idx: u32| {
            m.file_name(idx)
                .is_some_and(|n| is_nvidia_header(n) || parse_async::is_nvidia_async_header(n))
        };
        for (fidx, outer) in std::mem::take(&mut self.inlined_at) {
            let Some(f) = self.module.functions.get(fidx as usize) else {
                continue;
            };
            let moves: Vec<(usize, (u32, u32))> = f
                .body
                .iter()
                .zip(&outer)
                .enumerate()
                .filter_map(|(i, (inst, o))| {
                    o.filter(|_| {
                        builtin(&self.module, inst.file)
                            || super::header_code::at_call_site(&self.module, inst)
                    })
                    .map(|o| (i, o))
                })
                .collect();
            // Cooperative groups' `_CG_ABORT()` (a grid group's `sync()` outside a cooperative
            // launch): named at the line that called it.
            let aborts: Vec<(usize, (u32, u32))> = f
                .body
                .iter()
                .zip(&outer)
                .enumerate()
                .filter_map(|(i, (inst, o))| {
                    let cg = self
                        .module
                        .file_name(inst.file)
                        .is_some_and(|n| n.contains("cooperative_groups"));
                    o.filter(|_| cg && inst.op == Op::Trap).map(|o| (i, o))
                })
                .collect();
            let chains = self
                .inline_chains
                .iter()
                .find(|(f, _)| *f == fidx)
                .map(|(_, c)| c.as_slice())
                .unwrap_or(&[]);
            let moves = parse_async::innermost_user(&self.module, fidx, &moves, chains);
            let body = &mut self.module.functions[fidx as usize].body;
            for &(i, (file, line)) in moves.iter().chain(&aborts) {
                body[i].file = file;
                body[i].line = line;
            }
            self.module
                .group_sync_aborts
                .extend(aborts.iter().map(|&(i, _)| (fidx, i as u32)));
        }
    }

    fn skip_to_semicolon(&mut self) -> PResult<()> {
        loop {
            if self.eat_punct(';') {
                return Ok(());
            }
            self.next()?;
        }
    }

    fn module_items(&mut self) -> PResult<()> {
        while let Some(tok) = self.peek() {
            let Tok::Ident(word) = tok else {
                return self.err(format!("unexpected {tok} at module level"));
            };
            let tok_line = self.line();
            match word.as_str() {
                ".version" => {
                    self.pos += 1;
                    self.module.version = match self.next()? {
                        Tok::Float64(b) => format!("{}", f64::from_bits(*b)),
                        Tok::Int(v) => v.to_string(),
                        _ => String::new(),
                    };
                }
                ".target" => {
                    self.pos += 1;
                    let mut t = vec![self.ident()?];
                    while self.eat_punct(',') {
                        t.push(self.ident()?);
                    }
                    self.module.target = t.join(",");
                }
                ".address_size" => {
                    self.pos += 1;
                    let n = self.int()?;
                    if n != 64 {
                        return self.err(format!(
                            ".address_size {n} is not supported (gpuzzle needs 64-bit PTX)"
                        ));
                    }
                }
                ".file" => {
                    self.pos += 1;
                    let idx = self.int()? as usize;
                    let name = match self.next()? {
                        Tok::Str(s) => s.clone(),
                        _ => return self.err("expected a file name after .file N"),
                    };
                    if idx > 100_000 {
                        return self.err(".file index too large");
                    }
                    if self.module.files.len() <= idx {
                        self.module.files.resize(idx + 1, String::new());
                    }
                    self.module.files[idx] = name;
                    self.skip_line(tok_line);
                }
                ".pragma" => {
                    self.pos += 1;
                    self.skip_to_semicolon()?;
                }
                ".section" => {
                    // DWARF sections (only with -G): skip the braced block.
                    self.pos += 1;
                    while !self.is_punct('{') {
                        self.next()?;
                    }
                    self.skip_braces()?;
                }
                _ => self.declaration()?,
            }
        }
        Ok(())
    }

    fn skip_braces(&mut self) -> PResult<()> {
        self.expect_punct('{')?;
        let mut depth = 1;
        while depth > 0 {
            match self.next()? {
                Tok::Punct('{') => depth += 1,
                Tok::Punct('}') => depth -= 1,
                _ => {}
            }
        }
        Ok(())
    }

    /// A module-level declaration: linkage words, then `.entry`/`.func` or a variable.
    fn declaration(&mut self) -> PResult<()> {
        let mut is_extern = false;
        loop {
            match self.peek() {
                Some(Tok::Ident(w)) if w == ".visible" || w == ".weak" || w == ".common" => {
                    self.pos += 1
                }
                Some(Tok::Ident(w)) if w == ".extern" => {
                    is_extern = true;
                    self.pos += 1
                }
                _ => break,
            }
        }
        let word = self.ident()?;
        match word.as_str() {
            ".entry" => self.function(true, is_extern),
            ".func" => self.function(false, is_extern),
            ".global" | ".const" | ".shared" => {
                let space = match word.as_str() {
                    ".global" => Space::Global,
                    ".const" => Space::Const,
                    _ => Space::Shared,
                };
                let var = self.variable(space)?;
                match space {
                    Space::Shared => {
                        self.shared_idx
                            .insert(var.name.clone(), self.module.shared.len() as u32);
                        self.module.shared.push((var, 0));
                    }
                    _ => {
                        self.global_idx
                            .insert(var.name.clone(), self.module.globals.len() as u32);
                        self.module.globals.push(var);
                    }
                }
                Ok(())
            }
            other => {
                self.pos -= 1;
                self.err(format!("unexpected `{other}` at module level"))
            }
        }
    }

    /// `[.align N] [.vN] .type name[dims] [= init];` after the space word.
    fn variable(&mut self, space: Space) -> PResult<Variable> {
        let mut align = 0u64;
        let mut ty = None;
        let mut vec = 1u64;
        loop {
            let w = match self.peek() {
                Some(Tok::Ident(w)) if w.starts_with('.') => w.clone(),
                _ => break,
            };
            self.pos += 1;
            match w.as_str() {
                ".align" => align = self.align_value()?,
                ".v2" => vec = 2,
                ".v4" => vec = 4,
                ".ptr" | ".attribute" => {}
                _ => match Ty::parse(&w[1..]) {
                    Some(t) => ty = Some(t),
                    None => return self.err(format!("unknown variable attribute `{w}`")),
                },
            }
            if self.is_punct('(') {
                // .attribute(.managed)
                while !self.eat_punct(')') {
                    self.next()?;
                }
            }
        }
        let Some(ty) = ty else {
            return self.err("variable declaration without a type");
        };
        let name = self.ident()?;
        let elem = ty.size() as u64 * vec;
        let mut count = 1u64;
        let mut dynamic = false;
        while self.eat_punct('[') {
            if self.eat_punct(']') {
                dynamic = true;
                count = 0;
                continue;
            }
            let n = self.int()?;
            self.expect_punct(']')?;
            count = count.saturating_mul(n);
        }
        let size = elem.saturating_mul(count);
        // Shared and local arrays are only sized here (the launch refuses one over a block's
        // or a thread's limit, by name); initialised bytes are kept, so those stay small.
        let limit = if matches!(space, Space::Shared | Space::Local) && !self.is_punct('=') {
            MAX_UNBACKED_VARIABLE
        } else {
            1 << 32
        };
        if size > limit {
            return self.err(format!("variable `{name}` is too large ({size} bytes)"));
        }
        let mut init = None;
        let mut relocs = Vec::new();
        if self.eat_punct('=') {
            let mut bytes = Vec::new();
            self.initializer(ty, &mut bytes, &mut relocs)?;
            if dynamic {
                count = bytes.len() as u64 / elem.max(1);
                dynamic = false;
            }
            bytes.resize(elem.saturating_mul(count) as usize, 0);
            init = Some(bytes);
        }
        self.expect_punct(';')?;
        let size = elem.saturating_mul(count);
        Ok(Variable {
            name,
            space,
            size,
            align: align.max(ty.size() as u64),
            elem_size: elem,
            ty,
            init,
            dynamic,
            owner: None,
            relocs,
        })
    }

    fn initializer(&mut self, ty: Ty, out: &mut Vec<u8>, relocs: &mut Vec<Reloc>) -> PResult<()> {
        if self.eat_punct('{') {
            if self.eat_punct('}') {
                return Ok(());
            }
            loop {
                self.initializer(ty, out, relocs)?;
                if self.eat_punct('}') {
                    return Ok(());
                }
                self.expect_punct(',')?;
            }
        }
        let neg = self.eat_punct('-');
        let bits = match self.next()? {
            Tok::Int(v) => {
                let v = if neg { v.wrapping_neg() } else { *v };
                if ty.is_float() {
                    let f = if neg {
                        -((v.wrapping_neg()) as f64)
                    } else {
                        v as f64
                    };
                    float_bits(ty, f)
                } else {
                    v
                }
            }
            Tok::Float32(b) => {
                let f = f32::from_bits(*b);
                let f = if neg { -f } else { f };
                if ty == Ty::F64 {
                    (f as f64).to_bits()
                } else {
                    f.to_bits() as u64
                }
            }
            Tok::Float64(b) => {
                let f = f64::from_bits(*b);
                float_bits(ty, if neg { -f } else { f })
            }
            Tok::Ident(w) if self.func_idx.contains_key(w) => {
                // A vtable's entry: the function's address.
                self.func_idx.get(w).map_or(0, |&fi| function_address(fi))
            }
            Tok::Ident(w) if w == "generic" || self.global_idx.contains_key(w) => {
                // `generic(x)`, `generic(arr)+8` or `x`: a module variable's address (generic
                // and global addresses of global memory are the same here).
                let name = if w == "generic" {
                    self.expect_punct('(')?;
                    let n = self.ident()?;
                    self.expect_punct(')')?;
                    n
                } else {
                    w.clone()
                };
                let Some(&target) = self.global_idx.get(&name) else {
                    return self.err(format!("`generic({name})` names no module variable"));
                };
                let addend = if self.eat_punct('+') { self.int()? } else { 0 };
                if ty.size() != 8 {
                    return self.err(format!(
                        "the address of `{name}` in an initialiser of {}-byte elements",
                        ty.size()
                    ));
                }
                relocs.push(Reloc {
                    offset: out.len() as u64,
                    target,
                    addend,
                });
                0
            }
            t => return self.err(format!("unexpected {t} in an initialiser")),
        };
        out.extend_from_slice(&bits.to_le_bytes()[..ty.size() as usize]);
        Ok(())
    }

    fn function(&mut self, is_entry: bool, is_extern: bool) -> PResult<()> {
        let mut ctx = FnCtx::default();
        let start_line = self.line() as u32;
        // Optional return value: `(.param .b32 func_retval0)`.
        let mut retval = None;
        if self.is_punct('(') {
            self.pos += 1;
            let mut r = self.param_decl(&mut ctx)?;
            self.expect_punct(')')?;
            r.offset = 0;
            retval = Some(r);
        }
        let name = self.ident()?;
        let mut params = Vec::new();
        if self.eat_punct('(') && !self.eat_punct(')') {
            loop {
                params.push(self.param_decl(&mut ctx)?);
                if self.eat_punct(')') {
                    break;
                }
                self.expect_punct(',')?;
            }
        }
        // Re-lay out the param area: incoming params first, then the return value.
        ctx.params.clear();
        ctx.param_area = 0;
        for p in params.iter_mut() {
            // Each param was checked when read; together they may still add up (a return
            // value after many params), so the sum is checked too.
            let offset = align_up(ctx.param_area as u64, p.align as u64);
            let end = offset + p.size as u64;
            if end > MAX_PARAM_AREA {
                return self.err(format!(
                    "parameters take {end} bytes, more than the {MAX_PARAM_AREA} gpuzzle accepts"
                ));
            }
            p.offset = offset as u32;
            ctx.params.insert(p.name.clone(), p.offset);
            ctx.param_area = end as u32;
        }
        if let Some(r) = retval.as_mut() {
            ctx.param_area = align_up(ctx.param_area as u64, 8) as u32;
            r.offset = ctx.param_area;
            ctx.params.insert(r.name.clone(), r.offset);
            ctx.param_area += r.size;
        }
        // Performance directives and attributes before the body (a cluster's shape is kept).
        let mut cluster = None;
        while let Some(Tok::Ident(w)) = self.peek() {
            if !w.starts_with('.') {
                break;
            }
            let directive = w.clone();
            self.pos += 1;
            let mut args = Vec::new();
            while !self.is_punct('{')
                && !self.is_punct(';')
                && !matches!(self.peek(), Some(Tok::Ident(w)) if w.starts_with('.'))
            {
                args.push(self.next()?.clone());
            }
            cluster = parse_cluster::cluster_directive(&directive, &args).or(cluster);
        }
        if self.eat_punct(';') {
            // A prototype (or an extern declaration such as vprintf).
            if is_extern
                && !self.func_idx.contains_key(&name)
                && name != "vprintf"
                && name != "__assertfail"
            {
                self.extern_funcs.push(name.clone());
            }
            return Ok(());
        }
        if is_extern {
            return self.err(format!("extern function `{name}` has a body"));
        }
        let fidx = match self.func_idx.get(&name) {
            Some(&i) => i,
            None => {
                let i = self.module.functions.len() as u32;
                self.func_idx.insert(name.clone(), i);
                self.module.functions.push(Function {
                    name: name.clone(),
                    is_entry,
                    params: Vec::new(),
                    retval: None,
                    param_area: 0,
                    num_regs: 0,
                    reg_names: Vec::new(),
                    local_vars: Vec::new(),
                    local_size: 0,
                    body: Vec::new(),
                    line: 0,
                });
                i
            }
        };
        if let Some(dims) = cluster {
            self.module.cluster_dims.push((fidx, dims));
        }
        self.expect_punct('{')?;
        self.body(&mut ctx, fidx)?;
        for (inst, label, line) in std::mem::take(&mut ctx.pending_bras) {
            if parse_brx::resolve(&mut ctx, inst, &label, line)? {
                continue;
            }
            match ctx.labels.get(&label) {
                Some(&t) => {
                    if let Some(Inst {
                        op: Op::Bra { target },
                        ..
                    }) = ctx.body.get_mut(inst)
                    {
                        *target = t;
                    }
                }
                None => {
                    return Err(ParseError {
                        line,
                        message: format!("branch to unknown label `{label}`"),
                    })
                }
            }
        }
        // Every body ends in a return; make falling off the end safe.
        ctx.outer_locs.push(ctx.outer);
        ctx.chain_locs.push(ctx.chain.clone());
        ctx.body.push(Inst {
            op: if is_entry { Op::Exit } else { Op::Ret },
            guard: None,
            line: ctx.line,
            file: ctx.file,
        });
        let first_line = ctx
            .body
            .iter()
            .map(|i| i.line)
            .find(|&l| l > 0)
            .unwrap_or(start_line);
        let f = &mut self.module.functions[fidx as usize];
        f.is_entry = is_entry;
        f.params = params;
        f.retval = retval;
        f.param_area = ctx.param_area;
        f.num_regs = ctx.reg_names.len() as u32;
        f.reg_names = ctx.reg_names;
        f.local_vars = ctx.local_vars;
        f.local_size = ctx.local_size;
        f.body = ctx.body;
        f.line = first_line;
        self.inlined_at.push((fidx, ctx.outer_locs));
        self.inline_chains.push((fidx, ctx.chain_locs));
        Ok(())
    }

    /// `.param .u64 name`, `.param .align 8 .b8 name[16]`, `.param .u64 .ptr .global .align 4 name`.
    fn param_decl(&mut self, ctx: &mut FnCtx) -> PResult<Param> {
        let w = self.ident()?;
        if w != ".param" && w != ".reg" {
            self.pos -= 1;
            return self.err(format!("expected `.param`, found `{w}`"));
        }
        let mut ty = None;
        let mut align = 0u32;
        let mut is_ptr = false;
        while let Some(Tok::Ident(w)) = self.peek() {
            if !w.starts_with('.') {
                break;
            }
            self.pos += 1;
            match w.as_str() {
                ".align" => align = self.align_value()? as u32,
                ".ptr" => is_ptr = true,
                ".global" | ".shared" | ".local" | ".const" => {}
                _ => match Ty::parse(&w[1..]) {
                    Some(t) => ty = Some(t),
                    None => return self.err(format!("unknown param attribute `{w}`")),
                },
            }
        }
        let Some(ty) = ty else {
            return self.err("param without a type");
        };
        let name = self.ident()?;
        let mut size = ty.size();
        let mut is_array = false;
        while self.eat_punct('[') {
            let n = self.int()?;
            self.expect_punct(']')?;
            if n > 1 << 20 {
                return self.err("param array too large");
            }
            size = size.saturating_mul(n as u32);
            is_array = true;
        }
        let align = align.max(ty.size());
        // The param area stays far below u32 (PTX caps kernel params at a few KiB): damaged
        // PTX with huge arrays or alignments is an error, not an overflow.
        let offset = align_up(ctx.param_area as u64, align as u64);
        let end = offset + size as u64;
        if end > MAX_PARAM_AREA {
            return self.err(format!(
                "parameters take {end} bytes, more than the {MAX_PARAM_AREA} gpuzzle accepts"
            ));
        }
        let offset = offset as u32;
        ctx.param_area = end as u32;
        parse_scope::bind(ctx, parse_scope::Names::Param, &name, offset as u64);
        Ok(Param {
            name,
            ty,
            size,
            align,
            is_array: is_array || is_ptr,
            offset,
        })
    }

    fn body(&mut self, ctx: &mut FnCtx, fidx: u32) -> PResult<()> {
        let mut depth = 1;
        loop {
            let tok_line = self.line();
            match self.peek() {
                None => return self.err("unexpected end of PTX inside a function body"),
                Some(Tok::Punct('{')) => {
                    self.pos += 1;
                    depth += 1;
                    parse_scope::open(ctx);
                }
                Some(Tok::Punct('}')) => {
                    self.pos += 1;
                    depth -= 1;
                    if depth == 0 {
                        return Ok(());
                    }
                    parse_scope::close(ctx);
                }
                Some(Tok::Punct(';')) => self.pos += 1,
                Some(Tok::Ident(w)) if w == ".loc" => {
                    self.pos += 1;
                    let file = self.int()? as u32;
                    let line = self.int()? as u32;
                    if line > 0 {
                        ctx.line = line;
                        ctx.file = file;
                        let at = self.inlined_at_of(tok_line);
                        ctx.outer = at.map(|at| {
                            let outer = ctx.inline_map.get(&at).copied().unwrap_or(at);
                            ctx.inline_map.insert((file, line), outer);
                            outer
                        });
                        ctx.chain =
                            at.map(|at| parse_async::chain(&mut ctx.chains, (file, line), at));
                    }
                    self.skip_line(tok_line);
                }
                Some(Tok::Ident(w)) if w == ".pragma" => {
                    self.pos += 1;
                    self.skip_to_semicolon()?;
                }
                Some(Tok::Ident(w)) if w == ".reg" => {
                    self.pos += 1;
                    self.reg_decl(ctx, false)?;
                }
                Some(Tok::Ident(w)) if w.starts_with(".reg.") => {
                    // `.reg.b32 f, ULP;` (cuda_fp16.h's inline assembly writes it so): the
                    // type is part of the directive's word.
                    let suffix = w[".reg.".len()..].to_string();
                    for part in suffix.split('.') {
                        if !part.starts_with('v') && Ty::parse(part).is_none() {
                            return self.err(format!("unknown register type `.{part}` in `{w}`"));
                        }
                    }
                    self.pos += 1;
                    self.reg_decl(ctx, true)?;
                }
                Some(Tok::Ident(w)) if w == ".param" => {
                    // A call sequence's `.param`: param_decl gives it a slot in the frame.
                    self.param_decl(ctx)?;
                    self.expect_punct(';')?;
                }
                Some(Tok::Ident(w)) if w == ".local" => {
                    self.pos += 1;
                    let v = self.variable(Space::Local)?;
                    let off = align_up(ctx.local_size, v.align);
                    ctx.local_size = off + v.size;
                    parse_scope::bind(ctx, parse_scope::Names::Local, &v.name, off);
                    ctx.local_vars.push((v, off));
                }
                Some(Tok::Ident(w)) if w == ".shared" => {
                    self.pos += 1;
                    let mut v = self.variable(Space::Shared)?;
                    v.owner = Some(fidx);
                    self.shared_idx
                        .insert(v.name.clone(), self.module.shared.len() as u32);
                    self.module.shared.push((v, 0));
                }
                Some(Tok::Ident(w)) if w == ".global" || w == ".const" => {
                    let space = if w == ".global" {
                        Space::Global
                    } else {
                        Space::Const
                    };
                    self.pos += 1;
                    let v = self.variable(space)?;
                    self.global_idx
                        .insert(v.name.clone(), self.module.globals.len() as u32);
                    self.module.globals.push(v);
                }
                Some(Tok::Ident(w))
                    if matches!(self.peek_at(1), Some(Tok::Punct(':'))) && !w.starts_with('%') =>
                {
                    let label = w.clone();
                    self.pos += 2;
                    if matches!(self.peek(), Some(Tok::Ident(w)) if w == ".callprototype") {
                        // `prototype_0 : .callprototype (.param .b32 _) _ (.param .b32 _);`:
                        // the signature of an indirect call, which the call's own parameters
                        // already give.
                        self.skip_to_semicolon()?;
                        continue;
                    }
                    if parse_brx::at_table(self) {
                        parse_brx::table(self, ctx, label)?;
                        continue;
                    }
                    ctx.labels.insert(label, ctx.body.len() as u32);
                }
                Some(Tok::Ident(_)) | Some(Tok::Punct('@')) => self.instruction(ctx, fidx)?,
                Some(t) => return self.err(format!("unexpected {t} in a function body")),
            }
        }
    }

    /// `.reg .b32 %r<29>;` or `.reg .f32 %f1, %f2;`.
    fn reg_decl(&mut self, ctx: &mut FnCtx, typed: bool) -> PResult<()> {
        let mut ty_seen = typed;
        while let Some(Tok::Ident(w)) = self.peek() {
            if !w.starts_with('.') {
                break;
            }
            self.pos += 1;
            if w.starts_with(".v") || w == ".align" {
                if w == ".align" {
                    self.align_value()?;
                }
                continue;
            }
            if Ty::parse(&w[1..]).is_none() {
                return self.err(format!("unknown register type `{w}`"));
            }
            ty_seen = true;
        }
        if !ty_seen {
            return self.err(".reg without a type");
        }
        loop {
            let name = self.ident()?;
            if self.eat_punct('<') {
                let n = self.int()?;
                self.expect_punct('>')?;
                if n.saturating_add(ctx.reg_names.len() as u64) > MAX_REGS {
                    return self.err(format!(
                        "too many registers (gpuzzle supports up to {MAX_REGS} per function)"
                    ));
                }
                for i in 0..n {
                    parse_scope::declare_reg(ctx, format!("{name}{i}"));
                }
            } else {
                parse_scope::declare_reg(ctx, name);
            }
            if self.eat_punct(';') {
                return Ok(());
            }
            self.expect_punct(',')?;
        }
    }

    fn raw_operand(&mut self) -> PResult<Raw> {
        match self.peek() {
            Some(Tok::Punct('{')) => {
                self.pos += 1;
                let mut v = Vec::new();
                if !self.eat_punct('}') {
                    loop {
                        v.push(self.raw_operand()?);
                        if self.eat_punct('}') {
                            break;
                        }
                        self.expect_punct(',')?;
                    }
                }
                Ok(Raw::Vec(v))
            }
            Some(Tok::Punct('[')) => {
                self.pos += 1;
                let base = match self.peek() {
                    Some(Tok::Int(_)) => Raw::Int(self.int()?),
                    _ => Raw::Name(self.ident()?),
                };
                let mut off: i64 = 0;
                if self.is_punct(',') {
                    // `[tex, {coords}]` or `[tex, sampler, {coords}]` (texture and surface
                    // instructions): kept as a list; the builder reports them unsupported.
                    let mut parts = vec![base];
                    while self.eat_punct(',') {
                        parts.push(self.raw_operand()?);
                    }
                    self.expect_punct(']')?;
                    return Ok(Raw::Vec(parts));
                }
                while !self.eat_punct(']') {
                    let neg = if self.eat_punct('+') {
                        self.eat_punct('-')
                    } else if self.eat_punct('-') {
                        true
                    } else {
                        return self.err("expected `+`, `-` or `]` in an address");
                    };
                    let v = self.int()? as i64;
                    off = if neg {
                        off.wrapping_sub(v)
                    } else {
                        off.wrapping_add(v)
                    };
                }
                Ok(Raw::Addr(Box::new(base), off))
            }
            Some(Tok::Punct('(')) => {
                self.pos += 1;
                let mut v = Vec::new();
                if !self.eat_punct(')') {
                    loop {
                        v.push(self.ident()?);
                        if self.eat_punct(')') {
                            break;
                        }
                        self.expect_punct(',')?;
                    }
                }
                Ok(Raw::List(v))
            }
            Some(Tok::Punct('!')) => {
                self.pos += 1;
                Ok(Raw::Not(self.ident()?))
            }
            Some(Tok::Punct('-')) => {
                self.pos += 1;
                match self.next()? {
                    Tok::Int(v) => Ok(Raw::Int(v.wrapping_neg())),
                    Tok::Float32(b) => Ok(Raw::F32(b ^ 0x8000_0000)),
                    Tok::Float64(b) => Ok(Raw::F64(b ^ (1 << 63))),
                    t => {
                        self.pos -= 1;
                        self.err(format!("unexpected {t} after `-`"))
                    }
                }
            }
            Some(Tok::Int(v)) => {
                self.pos += 1;
                Ok(Raw::Int(*v))
            }
            Some(Tok::Float32(b)) => {
                self.pos += 1;
                Ok(Raw::F32(*b))
            }
            Some(Tok::Float64(b)) => {
                self.pos += 1;
                Ok(Raw::F64(*b))
            }
            Some(Tok::Ident(w)) => {
                self.pos += 1;
                if w == "_" {
                    return Ok(Raw::Sink);
                }
                if self.eat_punct('|') {
                    let second = self.ident()?;
                    return Ok(Raw::Pair(w.clone(), second));
                }
                // `sym+4` as a plain operand (mov of an offset symbol address).
                if self.is_punct('+') && matches!(self.peek_at(1), Some(Tok::Int(_))) {
                    self.pos += 1;
                    let off = self.int()? as i64;
                    return Ok(Raw::Addr(Box::new(Raw::Name(w.clone())), off));
                }
                Ok(Raw::Name(w.clone()))
            }
            Some(t) => self.err(format!("unexpected {t} as an operand")),
            None => self.err("unexpected end of PTX in an operand list"),
        }
    }

    fn instruction(&mut self, ctx: &mut FnCtx, fidx: u32) -> PResult<()> {
        let line = self.line();
        let mut guard = None;
        if self.eat_punct('@') {
            let neg = self.eat_punct('!');
            let p = self.ident()?;
            let r = self.reg(ctx, &p)?;
            guard = Some((r, neg));
        }
        let opcode = self.ident()?;
        let mut ops = Vec::new();
        if !self.eat_punct(';') {
            loop {
                ops.push(self.raw_operand()?);
                if self.eat_punct(';') {
                    break;
                }
                if !self.eat_punct(',') {
                    // call's operand lists are comma-separated; anything else is a syntax error.
                    let found = self
                        .peek()
                        .map_or("the end of the PTX".to_string(), |t| t.to_string());
                    return self.err(format!(
                        "expected `,` or `;` after an operand of `{opcode}`, found {found}"
                    ));
                }
            }
        }
        let b = Builder {
            ctx,
            parser_line: line,
            opcode: &opcode,
        };
        // A special register gpuzzle does not know (valid PTX of a newer ISA): the instruction
        // fails if it runs, naming the register, and the rest of the file runs.
        let (op, call_name, bra_label) = match parse_cluster::unknown_special(&ops, &b.ctx.regs) {
            Some(name) => (Op::Unsupported { text: name }, None, None),
            None => b.build(self, &ops)?,
        };
        let idx = ctx.body.len();
        if let Some(name) = call_name {
            self.pending_calls.push((fidx, idx, name));
        }
        if let Some(label) = bra_label {
            ctx.pending_bras.push((idx, label, line));
        }
        ctx.outer_locs.push(ctx.outer);
        ctx.chain_locs.push(ctx.chain.clone());
        ctx.body.push(Inst {
            op,
            guard,
            line: ctx.line,
            file: ctx.file,
        });
        Ok(())
    }

    /// Give every function and kernel defined in the module its index, in the order of their
    /// definitions, before anything is read, so a function's address can be taken
    /// (`mov.u64 %rd1, _Z5twicei;`, a vtable's initialiser) before its body:
    /// `.func [(ret)] name [(params)] [directives] {` defines one.
    fn place_functions(&mut self) {
        let toks = self.toks;
        let punct = |i: usize, c: char| matches!(toks.get(i), Some(t) if t.tok == Tok::Punct(c));
        // Index past the parenthesised list opening at `i` (or `i` when none opens there).
        let skip_parens = |mut i: usize| {
            if !punct(i, '(') {
                return i;
            }
            let mut depth = 0usize;
            while let Some(t) = toks.get(i) {
                match t.tok {
                    Tok::Punct('(') => depth += 1,
                    Tok::Punct(')') => {
                        depth -= 1;
                        if depth == 0 {
                            return i + 1;
                        }
                    }
                    _ => {}
                }
                i += 1;
            }
            i
        };
        for (i, t) in toks.iter().enumerate() {
            let is_entry = matches!(&t.tok, Tok::Ident(w) if w == ".entry");
            if !is_entry && !matches!(&t.tok, Tok::Ident(w) if w == ".func") {
                continue;
            }
            let at = skip_parens(i + 1);
            let Some(Tok::Ident(name)) = toks.get(at).map(|t| &t.tok) else {
                continue;
            };
            let mut j = skip_parens(at + 1);
            // Directives before the body: `.noreturn`, `.attribute(...)`, `.pragma "..."`.
            loop {
                match toks.get(j).map(|t| &t.tok) {
                    Some(Tok::Ident(_) | Tok::Int(_) | Tok::Str(_) | Tok::Punct(',')) => j += 1,
                    Some(Tok::Punct('(')) => j = skip_parens(j),
                    _ => break,
                }
            }
            if punct(j, '{') && !self.func_idx.contains_key(name) {
                self.func_idx
                    .insert(name.clone(), self.module.functions.len() as u32);
                self.module.functions.push(Function {
                    name: name.clone(),
                    is_entry,
                    params: Vec::new(),
                    retval: None,
                    param_area: 0,
                    num_regs: 0,
                    reg_names: Vec::new(),
                    local_vars: Vec::new(),
                    local_size: 0,
                    body: Vec::new(),
                    line: 0,
                });
            }
        }
    }

    fn reg(&self, ctx: &FnCtx, name: &str) -> PResult<u32> {
        match ctx.regs.get(name) {
            Some(&r) => Ok(r),
            None => self.err(format!("undeclared register `{name}`")),
        }
    }

    fn resolve_calls(&mut self) -> PResult<()> {
        for (f, i, name) in std::mem::take(&mut self.pending_calls) {
            let callee = match name.as_str() {
                "vprintf" => Callee::Vprintf,
                "__assertfail" => Callee::AssertFail,
                _ => match self.func_idx.get(&name) {
                    Some(&idx) if !self.module.functions[idx as usize].body.is_empty() => {
                        Callee::Func(idx)
                    }
                    _ if name == "malloc" => Callee::Malloc,
                    _ if name == "free" => Callee::Free,
                    _ => {
                        let pos = match self.extern_funcs.iter().position(|n| *n == name) {
                            Some(p) => p,
                            None => {
                                self.extern_funcs.push(name.clone());
                                self.extern_funcs.len() - 1
                            }
                        };
                        Callee::Unknown(pos as u32)
                    }
                },
            };
            if let Some(Inst {
                op: Op::Call { callee: c, .. },
                ..
            }) = self
                .module
                .functions
                .get_mut(f as usize)
                .and_then(|func| func.body.get_mut(i))
            {
                *c = callee;
            }
        }
        Ok(())
    }

    /// Static shared variables get offsets with a red zone between them so an overflow of one
    /// array is reported instead of silently landing in the next; dynamic shared follows.
    fn layout_shared(&mut self) {
        let mut off = 0u64;
        for (v, o) in self.module.shared.iter_mut() {
            if v.dynamic {
                continue;
            }
            off = align_up(off, v.align.max(16));
            *o = off;
            off += v.size + SHARED_RED_ZONE;
        }
        let dyn_base = align_up(off, 16);
        for (v, o) in self.module.shared.iter_mut() {
            if v.dynamic {
                *o = dyn_base;
            }
        }
        self.module.static_shared_size = dyn_base;
    }
}

/// The largest shared or local variable read (the launch states the real limits): sums of a
/// few stay far from overflowing.
const MAX_UNBACKED_VARIABLE: u64 = 1 << 48;

/// Virtual registers one function may declare (NVRTC's largest kernels use a few thousand).
const MAX_REGS: u64 = 1 << 18;

/// Bytes left unused after each static shared variable, so overflows hit no other variable.
pub const SHARED_RED_ZONE: u64 = 64;

fn float_bits(ty: Ty, f: f64) -> u64 {
    match ty {
        Ty::F32 => (f as f32).to_bits() as u64,
        _ => f.to_bits(),
    }
}

/// Types one instruction: maps raw operands to IR operands given the opcode's modifiers.
struct Builder<'c> {
    ctx: &'c mut FnCtx,
    parser_line: usize,
    opcode: &'c str,
}

struct Mods<'s> {
    words: Vec<&'s str>,
}

impl<'s> Mods<'s> {
    fn has(&self, w: &str) -> bool {
        self.words.contains(&w)
    }
    fn types(&self) -> Vec<Ty> {
        self.words.iter().filter_map(|w| Ty::parse(w)).collect()
    }
    /// The type suffixes in order, a packed pair (`.f16x2`, `.bf16x2`) as its half type with
    /// `true` (`set.lt.u32.f16x2`: `[(U32, false), (F16, true)]`).
    fn typed_pairs(&self) -> Vec<(Ty, bool)> {
        self.words
            .iter()
            .filter_map(|w| match *w {
                "f16x2" => Some((Ty::F16, true)),
                "bf16x2" => Some((Ty::BF16, true)),
                w => Ty::parse(w).map(|t| (t, false)),
            })
            .collect()
    }
    /// The boolean operation (`.and`/`.or`/`.xor`) of a `set`/`setp` given a predicate operand.
    fn bool_op(&self) -> BoolOp {
        if self.has("and") {
            BoolOp::And
        } else if self.has("or") {
            BoolOp::Or
        } else {
            BoolOp::Xor
        }
    }
    fn space(&self) -> Space {
        for w in &self.words {
            match *w {
                "global" => return Space::Global,
                // A `shared::cluster` address is this block's shared memory, or another block's
                // as `mapa` makes it (`emu/cluster.rs`).
                "shared" | "shared::cta" | "shared::cluster" => return Space::Shared,
                "local" => return Space::Local,
                "const" => return Space::Const,
                "param" => return Space::Param,
                _ => {}
            }
        }
        Space::Generic
    }
    fn rounding(&self) -> Rounding {
        for w in &self.words {
            match *w {
                "rn" => return Rounding::Rn,
                "rz" => return Rounding::Rz,
                "rm" => return Rounding::Rm,
                "rp" => return Rounding::Rp,
                "rni" => return Rounding::Rni,
                "rzi" => return Rounding::Rzi,
                "rmi" => return Rounding::Rmi,
                "rpi" => return Rounding::Rpi,
                _ => {}
            }
        }
        Rounding::Default
    }
    fn fflags(&self) -> FFlags {
        FFlags {
            ftz: self.has("ftz"),
            sat: self.has("sat"),
            approx: self.has("approx"),
            nan: self.has("NaN"),
        }
    }
    fn vec(&self) -> usize {
        if self.has("v4") {
            4
        } else if self.has("v2") {
            2
        } else if self.has("v8") {
            8
        } else {
            1
        }
    }
}

type Built = (Op, Option<String>, Option<String>);

impl<'c> Builder<'c> {
    fn err<T>(&self, message: impl Into<String>) -> PResult<T> {
        Err(ParseError {
            line: self.parser_line,
            message: message.into(),
        })
    }

    fn unsupported(&self) -> PResult<Built> {
        Ok((
            Op::Unsupported {
                text: self.opcode.to_string(),
            },
            None,
            None,
        ))
    }

    fn dreg(&self, r: &Raw) -> PResult<u32> {
        match r {
            Raw::Name(n) => match self.ctx.regs.get(n) {
                Some(&i) => Ok(i),
                None => self.err(format!(
                    "`{n}` is not a declared register (in `{}`)",
                    self.opcode
                )),
            },
            _ => self.err(format!(
                "expected a destination register in `{}`",
                self.opcode
            )),
        }
    }

    fn src(&self, p: &Parser, r: &Raw, ty: Ty) -> PResult<Operand> {
        Ok(match r {
            Raw::Name(n) => self.name_operand(p, n)?,
            Raw::Int(v) => Operand::Imm(if ty.is_float() && !matches!(ty, Ty::F16 | Ty::BF16) {
                // An integer literal in a float instruction is its value, not its bits.
                float_bits(ty, *v as i64 as f64)
            } else {
                *v
            }),
            Raw::F32(b) => Operand::Imm(if ty == Ty::F64 {
                (f32::from_bits(*b) as f64).to_bits()
            } else {
                *b as u64
            }),
            Raw::F64(b) => Operand::Imm(if ty == Ty::F32 {
                (f64::from_bits(*b) as f32).to_bits() as u64
            } else {
                *b
            }),
            Raw::Addr(base, off) => {
                // `sym+4` used as a value.
                let Raw::Name(n) = base.as_ref() else {
                    return self.err("malformed operand");
                };
                match self.name_operand(p, n)? {
                    Operand::Imm(v) => Operand::Imm(v.wrapping_add(*off as u64)),
                    _ => return self.err(format!("`{n}+{off}` as a value is not supported")),
                }
            }
            Raw::Not(n) => {
                return self.err(format!("`!{n}` is only allowed on a predicate source"))
            }
            _ => return self.err(format!("unexpected operand form in `{}`", self.opcode)),
        })
    }

    fn name_operand(&self, p: &Parser, n: &str) -> PResult<Operand> {
        if let Some(&r) = self.ctx.regs.get(n) {
            return Ok(Operand::Reg(r));
        }
        if let Some(s) = special(n) {
            if matches!(s, Special::ReservedSmem(_)) {
                p.uses_reserved_smem.set(true);
            }
            return Ok(Operand::Special(s));
        }
        if let Some(&off) = self.ctx.locals.get(n) {
            return Ok(Operand::LocalSym(off as u32));
        }
        if let Some(&off) = self.ctx.params.get(n) {
            return Ok(Operand::ParamSym(off));
        }
        if let Some(&i) = p.shared_idx.get(n) {
            return Ok(Operand::SharedSym(i));
        }
        if let Some(&i) = p.global_idx.get(n) {
            return Ok(Operand::GlobalSym(i));
        }
        self.err(format!("unknown name `{n}` in `{}`", self.opcode))
    }

    fn addr(&self, p: &Parser, r: &Raw) -> PResult<Address> {
        match r {
            Raw::Addr(base, off) => {
                let base = match base.as_ref() {
                    Raw::Int(v) => Operand::Imm(*v),
                    Raw::Name(n) => self.name_operand(p, n)?,
                    _ => return self.err("malformed address"),
                };
                Ok(Address { base, offset: *off })
            }
            _ => self.err(format!("expected an address `[...]` in `{}`", self.opcode)),
        }
    }

    fn pred_src(&self, p: &Parser, r: &Raw) -> PResult<(Operand, bool)> {
        match r {
            Raw::Not(n) => Ok((self.name_operand(p, n)?, true)),
            other => Ok((self.src(p, other, Ty::Pred)?, false)),
        }
    }

    fn n(&self, ops: &[Raw], n: usize) -> PResult<()> {
        if ops.len() < n {
            self.err(format!(
                "`{}` needs {n} operands, found {}",
                self.opcode,
                ops.len()
            ))
        } else {
            Ok(())
        }
    }

    /// `set.CmpOp{.BoolOp}.dtype.stype d, a, b{, {!}c}`, `stype` packed (`.f16x2`) or not.
    fn set(&self, p: &Parser, ops: &[Raw], m: &Mods) -> PResult<Built> {
        self.n(ops, 3)?;
        let cmp = cmp_op(m)
            .ok_or(())
            .or_else(|_| self.err(format!("unknown comparison in `{}`", self.opcode)))?;
        let typed = m.typed_pairs();
        let [(out, out_pair), (ty, pair)] = typed[..] else {
            return self.err(format!(
                "`{}` needs a result type and a source type",
                self.opcode
            ));
        };
        // A packed result needs packed sources.
        if out_pair && !pair {
            return self.unsupported();
        }
        let (comb, c) = if ops.len() >= 4 {
            let (c, neg) = self.pred_src(p, &ops[3])?;
            (Some((m.bool_op(), neg)), c)
        } else {
            (None, Operand::Imm(0))
        };
        let src_ty = if pair { Ty::B32 } else { ty };
        Ok((
            Op::Half2 {
                op: Half2Op::Set { cmp, comb, out },
                ty,
                pair,
                d: self.dreg(&ops[0])?,
                d2: None,
                a: self.src(p, &ops[1], src_ty)?,
                b: self.src(p, &ops[2], src_ty)?,
                c,
                f: m.fflags(),
            },
            None,
            None,
        ))
    }

    /// `atom`/`red`: `pair` is the half type of a packed `.f16x2`/`.bf16x2` one.
    fn atom(&self, p: &Parser, ops: &[Raw], m: &Mods, pair: Option<Ty>) -> PResult<Built> {
        let base = if self.opcode.starts_with("red") {
            "red"
        } else {
            "atom"
        };
        let Some(aop) = atom_op(m) else {
            return self.unsupported();
        };
        if m.has("v2") || m.has("v4") || m.has("v8") {
            return parse_cluster::vector_atom(self, p, ops, m, aop, pair, base == "red")
                .map(|op| (op, None, None));
        }
        let ty = m.types().last().copied().unwrap_or(Ty::B32);
        let (aop, ty) = match (pair, aop) {
            // Two halves in 32 bits, each added (or min/max) alone.
            (Some(half), AtomOp::Add | AtomOp::Min | AtomOp::Max) => {
                let op = match aop {
                    AtomOp::Add => BinOp::Add,
                    AtomOp::Min => BinOp::Min,
                    _ => BinOp::Max,
                };
                (AtomOp::Pair { op, half }, Ty::B32)
            }
            (Some(_), _) => return self.unsupported(),
            // One half: `bin` adds it as a half (`atom.add.noftz.f16`).
            (None, AtomOp::Add | AtomOp::Min | AtomOp::Max) => (aop, ty),
            (None, _) if matches!(ty, Ty::F16 | Ty::BF16) => return self.unsupported(),
            (None, _) => (aop, ty),
        };
        let space = m.space();
        if base == "red" {
            self.n(ops, 2)?;
            return Ok((
                Op::Atom {
                    space,
                    op: aop,
                    ty,
                    d: None,
                    addr: self.addr(p, &ops[0])?,
                    b: self.src(p, &ops[1], ty)?,
                    c: Operand::Imm(0),
                },
                None,
                None,
            ));
        }
        self.n(ops, 3)?;
        let c = if aop == AtomOp::Cas {
            self.n(ops, 4)?;
            self.src(p, &ops[3], ty)?
        } else {
            Operand::Imm(0)
        };
        Ok((
            Op::Atom {
                space,
                op: aop,
                ty,
                d: Some(self.dreg(&ops[0])?),
                addr: self.addr(p, &ops[1])?,
                b: self.src(p, &ops[2], ty)?,
                c,
            },
            None,
            None,
        ))
    }

    fn build(self, p: &Parser, ops: &[Raw]) -> PResult<Built> {
        let mut parts = self.opcode.split('.');
        let base = parts.next().unwrap_or("");
        let m = Mods {
            words: parts.collect(),
        };
        if parse_tensor::is_tensor(base, &m.words) {
            return self.tensor(p, base, &m.words, ops);
        }
        let types = m.types();
        let ty = types.last().copied().unwrap_or(Ty::B32);
        let f = m.fflags();
        let rnd = m.rounding();
        let o = |i: usize| -> &Raw { &ops[i] };
        let plain = |op: Op| -> PResult<Built> { Ok((op, None, None)) };
        if let Some(built) = parse_async::build(&self, p, base, &m, ops) {
            return built;
        }
        // `set`: a comparison as a value, of any source type, packed halves too.
        if base == "set" {
            return self.set(p, ops, &m);
        }
        // Two packed 16-bit floats: their own op, or unsupported (as integers they would be
        // computed wrong, silently).
        let pair = if m.has("f16x2") {
            Some(Ty::F16)
        } else if m.has("bf16x2") {
            Some(Ty::BF16)
        } else {
            None
        };
        if let Some(hty) = pair {
            if base == "atom" || base == "red" {
                return self.atom(p, ops, &m, Some(hty));
            }
            // `.oob` and stochastic rounding (`cvt.rs`) are not implemented: computed without
            // them the result would be wrong.
            if m.has("oob") || m.has("rs") || (m.has("xorsign") && !m.has("abs")) {
                return self.unsupported();
            }
            let relu = m.has("relu");
            let op = match base {
                "min" | "max" if m.has("xorsign") && !relu => {
                    Half2Op::XorsignAbs { max: base == "max" }
                }
                "ex2" => Half2Op::Un(UnOp::Ex2),
                "tanh" => Half2Op::Un(UnOp::Tanh),
                "add" => Half2Op::Bin(BinOp::Add),
                "sub" => Half2Op::Bin(BinOp::Sub),
                "mul" => Half2Op::Bin(BinOp::MulLo),
                "min" if !relu => Half2Op::Bin(BinOp::Min),
                "max" if !relu => Half2Op::Bin(BinOp::Max),
                "fma" => Half2Op::Fma { relu },
                "neg" => Half2Op::Neg,
                "abs" => Half2Op::Abs,
                "cvt" if types.last() == Some(&Ty::F32) => Half2Op::PackCvt(HalfCvt {
                    rnd,
                    relu,
                    satfinite: m.has("satfinite"),
                }),
                "setp" => {
                    let cmp = cmp_op(&m).ok_or(()).or_else(|_| {
                        self.err(format!("unknown comparison in `{}`", self.opcode))
                    })?;
                    Half2Op::Setp { cmp, comb: None }
                }
                _ => return self.unsupported(),
            };
            let n = match op {
                Half2Op::Fma { .. } => 4,
                Half2Op::Neg | Half2Op::Abs | Half2Op::Un(_) => 2,
                _ => 3,
            };
            self.n(ops, n)?;
            let src_ty = if let Half2Op::PackCvt(_) = op {
                Ty::F32
            } else {
                Ty::B32
            };
            let opnd = |i: usize| -> PResult<Operand> {
                if i < n {
                    self.src(p, o(i), src_ty)
                } else {
                    Ok(Operand::Imm(0))
                }
            };
            if let Half2Op::Setp { cmp, .. } = op {
                // setp.lt.f16x2 p|q, a, b{, {!}c}
                let (d, d2) = match o(0) {
                    Raw::Pair(a, b) => (
                        self.dreg(&Raw::Name(a.clone()))?,
                        Some(self.dreg(&Raw::Name(b.clone()))?),
                    ),
                    r => (self.dreg(r)?, None),
                };
                let (comb, c) = if ops.len() >= 4 {
                    let (c, neg) = self.pred_src(p, o(3))?;
                    (Some((m.bool_op(), neg)), c)
                } else {
                    (None, Operand::Imm(0))
                };
                return plain(Op::Half2 {
                    op: Half2Op::Setp { cmp, comb },
                    ty: hty,
                    pair: true,
                    d,
                    d2,
                    a: opnd(1)?,
                    b: opnd(2)?,
                    c,
                    f,
                });
            }
            return plain(Op::Half2 {
                op,
                ty: hty,
                pair: true,
                d: self.dreg(o(0))?,
                d2: None,
                a: opnd(1)?,
                b: opnd(2)?,
                c: opnd(3)?,
                f,
            });
        }
        match base {
            "add" | "sub" | "mul" | "div" | "rem" | "min" | "max" | "and" | "or" | "xor"
            | "shl" | "shr" | "copysign" => {
                // `min.xorsign.abs` of one half (`.f16`, `.bf16`): the packed form's op, alone.
                if m.has("xorsign") && m.has("abs") && matches!(ty, Ty::F16 | Ty::BF16) {
                    self.n(ops, 3)?;
                    return plain(Op::Half2 {
                        op: Half2Op::XorsignAbs { max: base == "max" },
                        ty,
                        pair: false,
                        d: self.dreg(o(0))?,
                        d2: None,
                        a: self.src(p, o(1), ty)?,
                        b: self.src(p, o(2), ty)?,
                        c: Operand::Imm(0),
                        f,
                    });
                }
                // `.cc` carries, `max.relu`, `min.xorsign.abs` of f32: not implemented, and
                // wrong if computed without.
                if m.has("cc") || m.has("relu") || m.has("xorsign") {
                    return self.unsupported();
                }
                self.n(ops, 3)?;
                let op = match base {
                    "add" => BinOp::Add,
                    "sub" => BinOp::Sub,
                    "mul" if m.has("hi") => BinOp::MulHi,
                    "mul" if m.has("wide") => BinOp::MulWide,
                    "mul" => BinOp::MulLo,
                    "div" => BinOp::Div,
                    "rem" => BinOp::Rem,
                    "min" => BinOp::Min,
                    "max" => BinOp::Max,
                    "and" => BinOp::And,
                    "or" => BinOp::Or,
                    "xor" => BinOp::Xor,
                    "shl" => BinOp::Shl,
                    "shr" => BinOp::Shr,
                    _ => BinOp::Copysign,
                };
                let bty = if matches!(op, BinOp::Shl | BinOp::Shr) {
                    Ty::U32
                } else {
                    ty
                };
                plain(Op::Bin {
                    op,
                    ty,
                    d: self.dreg(o(0))?,
                    a: self.src(p, o(1), ty)?,
                    b: self.src(p, o(2), bty)?,
                    f,
                    rnd,
                })
            }
            "mad" | "fma" => {
                if m.has("cc") || m.has("oob") {
                    return self.unsupported();
                }
                self.n(ops, 4)?;
                if m.has("relu") {
                    // fma.rn.relu.f16 / .bf16: Mad has no `.relu`; the half op does.
                    if !matches!(ty, Ty::F16 | Ty::BF16) {
                        return self.unsupported();
                    }
                    return plain(Op::Half2 {
                        op: Half2Op::Fma { relu: true },
                        ty,
                        pair: false,
                        d: self.dreg(o(0))?,
                        d2: None,
                        a: self.src(p, o(1), ty)?,
                        b: self.src(p, o(2), ty)?,
                        c: self.src(p, o(3), ty)?,
                        f,
                    });
                }
                let mode = if m.has("hi") {
                    BinOp::MulHi
                } else if m.has("wide") {
                    BinOp::MulWide
                } else {
                    BinOp::MulLo
                };
                plain(Op::Mad {
                    mode,
                    ty,
                    d: self.dreg(o(0))?,
                    a: self.src(p, o(1), ty)?,
                    b: self.src(p, o(2), ty)?,
                    c: self.src(p, o(3), if mode == BinOp::MulWide { wide(ty) } else { ty })?,
                    f,
                    rnd,
                })
            }
            "neg" | "abs" | "not" | "cnot" | "popc" | "clz" | "brev" | "bfind" | "sqrt"
            | "rsqrt" | "rcp" | "ex2" | "lg2" | "sin" | "cos" | "tanh" => {
                self.n(ops, 2)?;
                let op = match base {
                    "neg" => UnOp::Neg,
                    "abs" => UnOp::Abs,
                    "not" => UnOp::Not,
                    "cnot" => UnOp::Cnot,
                    "popc" => UnOp::Popc,
                    "clz" => UnOp::Clz,
                    "brev" => UnOp::Brev,
                    "bfind" if m.has("shiftamt") => UnOp::BfindShift,
                    "bfind" => UnOp::Bfind,
                    "sqrt" => UnOp::Sqrt,
                    "rsqrt" => UnOp::Rsqrt,
                    "rcp" => UnOp::Rcp,
                    "ex2" => UnOp::Ex2,
                    "lg2" => UnOp::Lg2,
                    "sin" => UnOp::Sin,
                    "cos" => UnOp::Cos,
                    _ => UnOp::Tanh,
                };
                plain(Op::Un {
                    op,
                    ty,
                    d: self.dreg(o(0))?,
                    a: self.src(p, o(1), ty)?,
                    f,
                })
            }
            "mov" => {
                self.n(ops, 2)?;
                match (o(0), o(1)) {
                    (Raw::Vec(ds), src) => {
                        let n = ds.len().max(1) as u32;
                        let mut regs = Vec::new();
                        for d in ds {
                            regs.push(if matches!(d, Raw::Sink) {
                                None
                            } else {
                                Some(self.dreg(d)?)
                            });
                        }
                        plain(Op::Unpack {
                            elem_bits: ty.bits() / n,
                            ds: regs,
                            a: self.src(p, src, ty)?,
                        })
                    }
                    (d, Raw::Vec(srcs)) => {
                        let n = srcs.len().max(1) as u32;
                        let mut v = Vec::new();
                        for s in srcs {
                            v.push(self.src(p, s, Ty::B64)?);
                        }
                        plain(Op::Pack {
                            elem_bits: ty.bits() / n,
                            d: self.dreg(d)?,
                            srcs: v,
                        })
                    }
                    (d, s) => {
                        if let Raw::Name(n) = s {
                            if let Some(&fi) = p.func_idx.get(n) {
                                // A function pointer: `mov.u64 %rd3, _Z6thricei;`.
                                return plain(Op::Un {
                                    op: UnOp::Mov,
                                    ty,
                                    d: self.dreg(d)?,
                                    a: Operand::Imm(function_address(fi)),
                                    f,
                                });
                            }
                            if p.extern_funcs.contains(n) {
                                return self.unsupported();
                            }
                        }
                        plain(Op::Un {
                            op: UnOp::Mov,
                            ty,
                            d: self.dreg(d)?,
                            a: self.src(p, s, ty)?,
                            f,
                        })
                    }
                }
            }
            "setp" => {
                self.n(ops, 3)?;
                let cmp = cmp_op(&m)
                    .ok_or(())
                    .or_else(|_| self.err(format!("unknown comparison in `{}`", self.opcode)))?;
                let (d, d2) = match o(0) {
                    Raw::Pair(a, b) => (
                        self.dreg(&Raw::Name(a.clone()))?,
                        Some(self.dreg(&Raw::Name(b.clone()))?),
                    ),
                    r => (self.dreg(r)?, None),
                };
                let comb = if ops.len() >= 4 {
                    let bop = if m.has("and") {
                        BoolOp::And
                    } else if m.has("or") {
                        BoolOp::Or
                    } else {
                        BoolOp::Xor
                    };
                    let (c, neg) = self.pred_src(p, o(3))?;
                    Some((bop, c, neg))
                } else {
                    None
                };
                plain(Op::Setp {
                    cmp,
                    ty,
                    d,
                    d2,
                    a: self.src(p, o(1), ty)?,
                    b: self.src(p, o(2), ty)?,
                    comb,
                })
            }
            "selp" => {
                self.n(ops, 4)?;
                plain(Op::Selp {
                    ty,
                    d: self.dreg(o(0))?,
                    a: self.src(p, o(1), ty)?,
                    b: self.src(p, o(2), ty)?,
                    p: self.src(p, o(3), Ty::Pred)?,
                })
            }
            "slct" => {
                self.n(ops, 4)?;
                let dty = types.first().copied().unwrap_or(Ty::B32);
                plain(Op::Slct {
                    ty: dty,
                    cty: ty,
                    d: self.dreg(o(0))?,
                    a: self.src(p, o(1), dty)?,
                    b: self.src(p, o(2), dty)?,
                    c: self.src(p, o(3), ty)?,
                    ftz: f.ftz,
                })
            }
            "cvt" => {
                self.n(ops, 2)?;
                if types.len() < 2 || m.has("pack") || m.has("tf32") || m.has("rs") {
                    return self.unsupported();
                }
                let (dty, sty) = (types[0], types[1]);
                let (relu, satfinite) = (m.has("relu"), m.has("satfinite"));
                // `.relu`/`.satfinite` are implemented for 16-bit float results only (fp8 and
                // tf32 are not types here).
                if (relu || satfinite) && !matches!(dty, Ty::F16 | Ty::BF16) {
                    return self.unsupported();
                }
                plain(Op::Cvt {
                    dty,
                    sty,
                    d: self.dreg(o(0))?,
                    a: self.src(p, o(1), sty)?,
                    rnd,
                    sat: f.sat,
                    ftz: f.ftz,
                    relu,
                    satfinite,
                })
            }
            "cvta" => {
                self.n(ops, 2)?;
                plain(Op::Cvta {
                    to: m.has("to"),
                    space: m.space(),
                    d: self.dreg(o(0))?,
                    a: self.src(p, o(1), Ty::U64)?,
                })
            }
            "isspacep" => {
                self.n(ops, 2)?;
                plain(Op::Isspacep {
                    space: m.space(),
                    d: self.dreg(o(0))?,
                    a: self.src(p, o(1), Ty::U64)?,
                })
            }
            "bfe" => {
                self.n(ops, 4)?;
                plain(Op::Bfe {
                    ty,
                    d: self.dreg(o(0))?,
                    a: self.src(p, o(1), ty)?,
                    b: self.src(p, o(2), Ty::U32)?,
                    c: self.src(p, o(3), Ty::U32)?,
                })
            }
            "bfi" => {
                self.n(ops, 5)?;
                plain(Op::Bfi {
                    ty,
                    d: self.dreg(o(0))?,
                    a: self.src(p, o(1), ty)?,
                    b: self.src(p, o(2), ty)?,
                    c: self.src(p, o(3), Ty::U32)?,
                    e: self.src(p, o(4), Ty::U32)?,
                })
            }
            "sad" => {
                self.n(ops, 4)?;
                plain(Op::Sad {
                    ty,
                    d: self.dreg(o(0))?,
                    a: self.src(p, o(1), ty)?,
                    b: self.src(p, o(2), ty)?,
                    c: self.src(p, o(3), ty)?,
                })
            }
            "dp4a" | "dp2a" => {
                // dp4a.atype.btype d, a, b, c   dp2a.mode.atype.btype d, a, b, c
                self.n(ops, 4)?;
                if types.len() != 2 {
                    return self.err(format!("`{}` needs two types", self.opcode));
                }
                let kind = match base {
                    "dp4a" => DotKind::Dp4a,
                    _ if m.has("hi") => DotKind::Dp2aHi,
                    _ => DotKind::Dp2aLo,
                };
                plain(Op::Dot {
                    kind,
                    a_signed: types[0].is_signed(),
                    b_signed: types[1].is_signed(),
                    d: self.dreg(o(0))?,
                    a: self.src(p, o(1), Ty::B32)?,
                    b: self.src(p, o(2), Ty::B32)?,
                    c: self.src(p, o(3), Ty::B32)?,
                })
            }
            "lop3" if m.words == ["b32"] && ops.len() == 5 => {
                let Raw::Int(lut) = o(4) else {
                    return self.err("lop3 needs an immediate truth table");
                };
                plain(Op::Lop3 {
                    d: self.dreg(o(0))?,
                    a: self.src(p, o(1), Ty::B32)?,
                    b: self.src(p, o(2), Ty::B32)?,
                    c: self.src(p, o(3), Ty::B32)?,
                    lut: *lut as u8,
                })
            }
            "fns" => {
                self.n(ops, 4)?;
                plain(Op::Fns {
                    d: self.dreg(o(0))?,
                    a: self.src(p, o(1), Ty::B32)?,
                    b: self.src(p, o(2), Ty::B32)?,
                    c: self.src(p, o(3), Ty::S32)?,
                })
            }
            "prmt" => {
                if m.words.len() > 1 {
                    return self.unsupported();
                }
                self.n(ops, 4)?;
                plain(Op::Prmt {
                    d: self.dreg(o(0))?,
                    a: self.src(p, o(1), Ty::B32)?,
                    b: self.src(p, o(2), Ty::B32)?,
                    c: self.src(p, o(3), Ty::B32)?,
                })
            }
            "shf" => {
                self.n(ops, 4)?;
                plain(Op::Shf {
                    left: m.has("l"),
                    wrap: m.has("wrap"),
                    d: self.dreg(o(0))?,
                    a: self.src(p, o(1), Ty::B32)?,
                    b: self.src(p, o(2), Ty::B32)?,
                    c: self.src(p, o(3), Ty::U32)?,
                })
            }
            "ld" | "ldu" => {
                self.n(ops, 2)?;
                let d = match o(0) {
                    Raw::Vec(v) => v
                        .iter()
                        .map(|r| self.dreg(r))
                        .collect::<PResult<Vec<_>>>()?,
                    r => vec![self.dreg(r)?],
                };
                if d.len() != m.vec() {
                    return self.err(format!(
                        "`{}` expects {} destination registers",
                        self.opcode,
                        m.vec()
                    ));
                }
                plain(Op::Ld {
                    space: m.space(),
                    ty,
                    d,
                    addr: self.addr(p, o(1))?,
                    volatile: m.has("volatile"),
                })
            }
            "st" => {
                self.n(ops, 2)?;
                let src = match o(1) {
                    Raw::Vec(v) => v
                        .iter()
                        .map(|r| self.src(p, r, ty))
                        .collect::<PResult<Vec<_>>>()?,
                    r => vec![self.src(p, r, ty)?],
                };
                if src.len() != m.vec() {
                    return self.err(format!(
                        "`{}` expects {} source operands",
                        self.opcode,
                        m.vec()
                    ));
                }
                plain(Op::St {
                    space: m.space(),
                    ty,
                    src,
                    addr: self.addr(p, o(0))?,
                })
            }
            "atom" | "red" => self.atom(p, ops, &m, None),
            "bra" | "brx" => {
                if base == "brx" {
                    return parse_brx::build(&self, p, ops);
                }
                self.n(ops, 1)?;
                let Raw::Name(label) = o(0) else {
                    return self.err("bra needs a label");
                };
                Ok((Op::Bra { target: 0 }, None, Some(label.clone())))
            }
            "call" => {
                // call (ret), name, (args);  call name, (args);  call (ret), name;  call name;
                let mut i = 0;
                let mut ret = None;
                if let Some(Raw::List(r)) = ops.first() {
                    if let Some(name) = r.first() {
                        let off = self.ctx.params.get(name).copied();
                        ret = Some(
                            off.ok_or(())
                                .or_else(|_| self.err(format!("unknown return param `{name}`")))?,
                        );
                    }
                    i = 1;
                }
                let Some(Raw::Name(callee)) = ops.get(i) else {
                    return self.err("call needs a function name");
                };
                let indirect = self.ctx.regs.get(callee).copied();
                let mut args = Vec::new();
                if let Some(Raw::List(a)) = ops.get(i + 1) {
                    for name in a {
                        let off = self.ctx.params.get(name).copied();
                        args.push(
                            off.ok_or(()).or_else(|_| {
                                self.err(format!("unknown argument param `{name}`"))
                            })?,
                        );
                    }
                }
                if let Some(r) = indirect {
                    // `call (retval0), %rd5, (param0), prototype_0;`
                    return Ok((
                        Op::Call {
                            callee: Callee::Indirect(r),
                            ret,
                            args,
                        },
                        None,
                        None,
                    ));
                }
                Ok((
                    Op::Call {
                        callee: Callee::Unknown(0),
                        ret,
                        args,
                    },
                    Some(callee.clone()),
                    None,
                ))
            }
            "ret" => plain(Op::Ret),
            "exit" => plain(Op::Exit),
            "trap" => plain(Op::Trap),
            // A fence wider than the block (`__threadfence()`) matters to the global race
            // checker; block-scope and proxy fences order nothing it tracks.
            "membar" | "fence" if !m.has("cta") && !m.has("proxy") => plain(Op::Fence),
            "brkpt" | "membar" | "fence" | "prefetch" | "prefetchu" | "nanosleep" | "pmevent"
            | "discard" | "griddepcontrol" => plain(Op::Nop),
            "barrier" | "mapa" | "elect" if parse_cluster::is_cluster(base, &m) => {
                parse_cluster::parse(&self, p, ops, base, &m).map(|op| (op, None, None))
            }
            "bar" | "barrier" => {
                if m.has("warp") {
                    self.n(ops, 1)?;
                    return plain(Op::BarWarpSync {
                        mask: self.src(p, o(0), Ty::B32)?,
                    });
                }
                if m.has("red") {
                    let rop = if m.has("popc") {
                        BarRedOp::Popc
                    } else if m.has("and") {
                        BarRedOp::And
                    } else if m.has("or") {
                        BarRedOp::Or
                    } else {
                        return self.unsupported();
                    };
                    // bar.red.op d, id, [count,] {!}p
                    self.n(ops, 3)?;
                    let (pr, neg) = self.pred_src(p, &ops[ops.len() - 1])?;
                    if ops.len() > 3 {
                        return self.unsupported();
                    }
                    return plain(Op::BarRed {
                        op: rop,
                        d: self.dreg(o(0))?,
                        p: pr,
                        negate: neg,
                    });
                }
                if m.has("arrive") || ops.len() > 1 || !matches!(ops.first(), Some(Raw::Int(0))) {
                    // Named barriers (a number other than 0, a thread count, an arrival).
                    return parse_async::named_barrier(&self, p, ops, &m);
                }
                self.n(ops, 1)?;
                plain(Op::BarSync {
                    id: self.src(p, o(0), Ty::U32)?,
                })
            }
            "shfl" => {
                self.n(ops, 5)?;
                let mode = if m.has("up") {
                    ShflMode::Up
                } else if m.has("down") {
                    ShflMode::Down
                } else if m.has("bfly") {
                    ShflMode::Bfly
                } else if m.has("idx") {
                    ShflMode::Idx
                } else {
                    return self.err("shfl needs .up, .down, .bfly or .idx");
                };
                if !m.has("sync") {
                    return self.unsupported();
                }
                let (d, pd) = match o(0) {
                    Raw::Pair(a, b) => (
                        self.dreg(&Raw::Name(a.clone()))?,
                        Some(self.dreg(&Raw::Name(b.clone()))?),
                    ),
                    r => (self.dreg(r)?, None),
                };
                plain(Op::Shfl {
                    mode,
                    d,
                    p: pd,
                    a: self.src(p, o(1), Ty::B32)?,
                    b: self.src(p, o(2), Ty::B32)?,
                    c: self.src(p, o(3), Ty::B32)?,
                    mask: self.src(p, o(4), Ty::B32)?,
                })
            }
            "vote" => {
                self.n(ops, 3)?;
                let mode = if m.has("all") {
                    VoteMode::All
                } else if m.has("any") {
                    VoteMode::Any
                } else if m.has("uni") {
                    VoteMode::Uni
                } else if m.has("ballot") {
                    VoteMode::Ballot
                } else {
                    return self.err("vote needs .all, .any, .uni or .ballot");
                };
                if !m.has("sync") {
                    return self.unsupported();
                }
                let (pr, negate) = self.pred_src(p, o(1))?;
                plain(Op::Vote {
                    mode,
                    d: self.dreg(o(0))?,
                    p: pr,
                    negate,
                    mask: self.src(p, o(2), Ty::B32)?,
                })
            }
            "activemask" => {
                self.n(ops, 1)?;
                plain(Op::Activemask {
                    d: self.dreg(o(0))?,
                })
            }
            "redux" => {
                self.n(ops, 3)?;
                let Some(rop) = atom_op(&m) else {
                    return self.unsupported();
                };
                plain(Op::Redux {
                    op: rop,
                    ty,
                    d: self.dreg(o(0))?,
                    a: self.src(p, o(1), ty)?,
                    mask: self.src(p, o(2), Ty::B32)?,
                })
            }
            "match" if m.has("all") => {
                self.n(ops, 3)?;
                let (d, pd) = match o(0) {
                    Raw::Pair(a, b) => (
                        self.dreg(&Raw::Name(a.clone()))?,
                        Some(self.dreg(&Raw::Name(b.clone()))?),
                    ),
                    r => (self.dreg(r)?, None),
                };
                plain(Op::MatchAll {
                    d,
                    p: pd,
                    a: self.src(p, o(1), ty)?,
                    mask: self.src(p, o(2), Ty::B32)?,
                })
            }
            "match" => {
                if !m.has("any") {
                    return self.unsupported();
                }
                self.n(ops, 3)?;
                plain(Op::MatchAny {
                    d: self.dreg(o(0))?,
                    a: self.src(p, o(1), ty)?,
                    mask: self.src(p, o(2), Ty::B32)?,
                })
            }
            "wmma" => wmma::build(&self, p, ops, &m.words),
            _ => self.unsupported(),
        }
    }
}

fn wide(ty: Ty) -> Ty {
    match ty {
        Ty::S16 => Ty::S32,
        Ty::U16 => Ty::U32,
        Ty::S32 => Ty::S64,
        Ty::U32 => Ty::U64,
        other => other,
    }
}

fn cmp_op(m: &Mods) -> Option<CmpOp> {
    for w in &m.words {
        let c = match *w {
            "eq" => CmpOp::Eq,
            "ne" => CmpOp::Ne,
            "lt" => CmpOp::Lt,
            "le" => CmpOp::Le,
            "gt" => CmpOp::Gt,
            "ge" => CmpOp::Ge,
            "lo" => CmpOp::Lo,
            "ls" => CmpOp::Ls,
            "hi" => CmpOp::Hi,
            "hs" => CmpOp::Hs,
            "equ" => CmpOp::Equ,
            "neu" => CmpOp::Neu,
            "ltu" => CmpOp::Ltu,
            "leu" => CmpOp::Leu,
            "gtu" => CmpOp::Gtu,
            "geu" => CmpOp::Geu,
            "num" => CmpOp::Num,
            "nan" => CmpOp::Nan,
            _ => continue,
        };
        return Some(c);
    }
    None
}

fn atom_op(m: &Mods) -> Option<AtomOp> {
    for w in &m.words {
        let a = match *w {
            "add" => AtomOp::Add,
            "min" => AtomOp::Min,
            "max" => AtomOp::Max,
            "inc" => AtomOp::Inc,
            "dec" => AtomOp::Dec,
            "and" => AtomOp::And,
            "or" => AtomOp::Or,
            "xor" => AtomOp::Xor,
            "exch" => AtomOp::Exch,
            "cas" => AtomOp::Cas,
            _ => continue,
        };
        return Some(a);
    }
    None
}

fn special(n: &str) -> Option<Special> {
    let dim = |s: &str| match s {
        "x" => Some(0),
        "y" => Some(1),
        "z" => Some(2),
        _ => None,
    };
    if let Some((head, d)) = n.rsplit_once('.') {
        let d = dim(d)?;
        return match head {
            "%tid" => Some(Special::Tid(d)),
            "%ntid" => Some(Special::Ntid(d)),
            "%ctaid" => Some(Special::Ctaid(d)),
            "%nctaid" => Some(Special::Nctaid(d)),
            "%clusterid" => Some(Special::ClusterId(d)),
            "%nclusterid" => Some(Special::NClusterId(d)),
            "%cluster_ctaid" => Some(Special::ClusterCtaId(d)),
            "%cluster_nctaid" => Some(Special::ClusterNCtaId(d)),
            _ => None,
        };
    }
    Some(match n {
        "%laneid" => Special::LaneId,
        "%warpid" => Special::WarpId,
        "%nwarpid" => Special::NWarpId,
        "WARP_SZ" => Special::WarpSize,
        "%clock" => Special::Clock,
        "%clock64" => Special::Clock64,
        "%lanemask_eq" => Special::LaneMaskEq,
        "%lanemask_lt" => Special::LaneMaskLt,
        "%lanemask_le" => Special::LaneMaskLe,
        "%lanemask_gt" => Special::LaneMaskGt,
        "%lanemask_ge" => Special::LaneMaskGe,
        "%smid" => Special::SmId,
        "%globaltimer" => Special::GlobalTimer,
        "%dynamic_smem_size" => Special::DynamicSmemSize,
        "%reserved_smem_offset_begin" => Special::ReservedSmem(ReservedSmem::Begin),
        "%reserved_smem_offset_end" => Special::ReservedSmem(ReservedSmem::End),
        "%reserved_smem_offset_cap" => Special::ReservedSmem(ReservedSmem::Cap),
        "%reserved_smem_offset_0" => Special::ReservedSmem(ReservedSmem::Offset(0)),
        "%reserved_smem_offset_1" => Special::ReservedSmem(ReservedSmem::Offset(1)),
        "%nsmid" => Special::NSmId,
        "%gridid" => Special::GridId,
        "%clock_hi" => Special::ClockHi,
        "%globaltimer_lo" => Special::GlobalTimerLo,
        "%globaltimer_hi" => Special::GlobalTimerHi,
        "%total_smem_size" => Special::TotalSmemSize,
        "%aggr_smem_size" => Special::AggrSmemSize,
        "%is_explicit_cluster" => Special::IsExplicitCluster,
        "%cluster_ctarank" => Special::ClusterCtaRank,
        "%cluster_nctarank" => Special::ClusterNCtaRank,
        "%current_graph_exec" => Special::CurrentGraphExec,
        _ => return numbered_special(n),
    })
}

/// `%pm0`..`%pm7`, `%pm0_64`..`%pm7_64` and `%envreg0`..`%envreg31`.
fn numbered_special(n: &str) -> Option<Special> {
    if let Some(k) = n.strip_prefix("%envreg") {
        return match k.parse::<u8>() {
            Ok(i) if i < 32 && !k.starts_with('+') && (k == "0" || !k.starts_with('0')) => {
                Some(Special::EnvReg(i))
            }
            _ => None,
        };
    }
    let k = n.strip_prefix("%pm")?;
    let k = k.strip_suffix("_64").unwrap_or(k);
    match k.as_bytes() {
        [d @ b'0'..=b'7'] => Some(Special::Pm(d - b'0')),
        _ => None,
    }
}

/// Whether a `.file` of the PTX is one of NVIDIA's headers rather than the learner's code:
/// NVRTC's built-in header, the runtime's `cuda_*.h`/`.hpp` and `sm_*` headers (`cuda_fp16.hpp`,
/// `sm_32_intrinsics.hpp`) and its `crt/` folder. The learner's own headers keep their lines.
fn is_nvidia_header(name: &str) -> bool {
    let base = name.rsplit(['/', '\\']).next().unwrap_or(name);
    let header = base.ends_with(".h") || base.ends_with(".hpp");
    name.contains("__nv_nvrtc_builtin_header")
        || (header && (base.starts_with("cuda_") || base.starts_with("sm_")))
        || (header && (name.contains("/crt/") || name.contains("\\crt\\")))
}

#[cfg(test)]
mod tests {
    use super::super::parse;
    use super::*;

    /// The ops of a kernel whose body is `body` (registers declared for it).
    fn ops(body: &str) -> Vec<Op> {
        let text = format!(
            ".version 8.5\n.target sm_80\n.address_size 64\n.visible .entry k(.param .u64 p)\n{{\n\
             .reg .pred %p<4>;\n.reg .b16 %rs<8>;\n.reg .b32 %r<8>;\n.reg .f32 %f<4>;\n.reg .b64 %rd<4>;\n\
             {body}\nret;\n}}\n"
        );
        let m = parse(&text).unwrap_or_else(|e| panic!("{e:?}\n{text}"));
        let (_, k) = m.find_entry("k").expect("the kernel");
        k.body.iter().map(|i| i.op.clone()).collect()
    }

    /// A `__half2` load inlined from `cuda_fp16.h` is placed at the learner's line that called
    /// it; code inlined from the learner's own header keeps its line there.
    #[test]
    fn code_inlined_from_cuda_headers_takes_the_callers_line() {
        let text =
            ".version 8.5\n.target sm_80\n.address_size 64\n.visible .entry k(.param .u64 p)\n{\n\
             .reg .b32 %r<4>;\n.reg .b64 %rd<4>;\n\
             ld.param.u64 %rd1, [p];\n\
             .loc 1 11 9\n\
             .loc 2 5122 1, function_name $L__info_string0, inlined_at 1 11 9\n\
             ld.global.u32 %r1, [%rd1];\n\
             .loc 3 4 1, function_name $L__info_string0, inlined_at 1 12 9\n\
             ld.global.u32 %r2, [%rd1];\n\
             ret;\n}\n\
             .file 1 \"puzzles/37_half2_axpy.cu\"\n\
             .file 2 \"/usr/local/cuda/include/cuda_fp16.hpp\"\n\
             .file 3 \"include/util.h\"\n";
        let m = parse(text).unwrap_or_else(|e| panic!("{e:?}"));
        let (_, k) = m.find_entry("k").expect("the kernel");
        let loads: Vec<(u32, u32)> = (k.body.iter())
            .filter(|i| matches!(i.op, Op::Ld { .. }) && i.line > 0)
            .map(|i| (i.file, i.line))
            .collect();
        assert_eq!(loads, vec![(1, 11), (3, 4)]);
        assert!(is_nvidia_header("/opt/cuda/include/crt/mma.hpp"));
        assert!(is_nvidia_header("C:\\CUDA\\include\\sm_32_intrinsics.hpp"));
        assert!(!is_nvidia_header("include/cuda_helpers.cu"));
        assert!(!is_nvidia_header("puzzles/37_half2_axpy.cu"));
    }

    /// Every special register of the PTX ISA (chapter "Special Registers") reads; none makes
    /// the reader fail, whatever a kernel's inline asm names.
    #[test]
    fn every_special_register_of_the_ptx_isa_reads() {
        let mut names: Vec<String> = [
            "%laneid",
            "%warpid",
            "%nwarpid",
            "%smid",
            "%nsmid",
            "%gridid",
            "%is_explicit_cluster",
            "%cluster_ctarank",
            "%cluster_nctarank",
            "%lanemask_eq",
            "%lanemask_le",
            "%lanemask_lt",
            "%lanemask_ge",
            "%lanemask_gt",
            "%clock",
            "%clock_hi",
            "%clock64",
            "%globaltimer",
            "%globaltimer_lo",
            "%globaltimer_hi",
            "%reserved_smem_offset_begin",
            "%reserved_smem_offset_end",
            "%reserved_smem_offset_cap",
            "%reserved_smem_offset_0",
            "%reserved_smem_offset_1",
            "%total_smem_size",
            "%aggr_smem_size",
            "%dynamic_smem_size",
            "%current_graph_exec",
            "WARP_SZ",
        ]
        .map(String::from)
        .to_vec();
        for v in [
            "%tid",
            "%ntid",
            "%ctaid",
            "%nctaid",
            "%clusterid",
            "%nclusterid",
        ] {
            names.extend(["x", "y", "z"].map(|d| format!("{v}.{d}")));
        }
        for v in ["%cluster_ctaid", "%cluster_nctaid"] {
            names.extend(["x", "y", "z"].map(|d| format!("{v}.{d}")));
        }
        names.extend((0..8).map(|i| format!("%pm{i}")));
        names.extend((0..8).map(|i| format!("%pm{i}_64")));
        names.extend((0..32).map(|i| format!("%envreg{i}")));
        for n in &names {
            let got = ops(&format!("mov.u64 %rd1, {n};"));
            assert!(
                matches!(
                    got[0],
                    Op::Un {
                        a: Operand::Special(_),
                        ..
                    }
                ),
                "{n}: {got:?}"
            );
        }
        assert_eq!(special("%envreg32"), None);
        assert_eq!(special("%envreg07"), None);
        assert_eq!(special("%pm8"), None);
        assert_eq!(special("%pm1_32"), None);
    }

    /// A function's address (a function pointer, a vtable entry) before its body, and a call
    /// through a register with its `.callprototype`.
    #[test]
    fn function_pointers_and_indirect_calls_parse() {
        let text = ".version 8.5\n.target sm_80\n.address_size 64\n\
            .func (.param .b32 r) f(.param .b32 a);\n\
            .global .align 8 .u64 vt[2] = {0, f};\n\
            .visible .entry k()\n{\n.reg .b32 %r<3>;\n.reg .b64 %rd<3>;\n\
            mov.u64 %rd1, f;\n\
            {\n.param .b32 param0;\nst.param.b32 [param0+0], 1;\n.param .b32 retval0;\n\
            prototype_0 : .callprototype (.param .b32 _) _ (.param .b32 _);\n\
            call (retval0), %rd1, (param0), prototype_0;\n\
            ld.param.b32 %r1, [retval0+0];\n}\nret;\n}\n\
            .func (.param .b32 r) f(.param .b32 a)\n{\n.reg .b32 %r<2>;\n\
            ld.param.u32 %r1, [a];\nst.param.b32 [r], %r1;\nret;\n}\n";
        let m = parse(text).unwrap_or_else(|e| panic!("{e}"));
        let (fi, _) = m.function("f").expect("f");
        let vt = &m.globals[0];
        let want = function_address(fi).to_le_bytes();
        assert_eq!(vt.init.as_deref().map(|b| &b[8..16]), Some(&want[..]));
        let (_, k) = m.find_entry("k").expect("k");
        assert!(k.body.iter().any(|i| matches!(
            i.op,
            Op::Un { a: Operand::Imm(a), .. } if function_at(a, m.functions.len()) == Some(fi)
        )));
        assert!(k.body.iter().any(|i| matches!(
            i.op,
            Op::Call {
                callee: Callee::Indirect(_),
                ret: Some(_),
                ..
            }
        )));
        assert!(!m.functions[fi as usize].body.is_empty());
    }

    /// `__device__ int* p = &arr[1];` is `= generic(arr)+4`: a word the launch fills in.
    #[test]
    fn address_initialisers_become_relocations() {
        let text = |init: &str| {
            format!(
                ".version 8.5\n.target sm_80\n.address_size 64\n\
                 .global .align 4 .b8 arr[16];\n{init}\n\
                 .visible .entry k()\n{{\nret;\n}}\n"
            )
        };
        let m = parse(&text(".global .align 8 .u64 s[2] = {7, generic(arr)+4};"))
            .unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(
            m.globals[1].relocs,
            vec![Reloc {
                offset: 8,
                target: 0,
                addend: 4
            }]
        );
        assert_eq!(m.globals[1].init.as_deref().map(|b| b[0]), Some(7));
        for bad in [
            ".global .align 4 .u32 p = generic(arr);",
            ".global .align 8 .u64 p = generic(nothing);",
        ] {
            assert!(parse(&text(bad)).is_err(), "{bad}");
        }
    }

    #[test]
    fn half_comparisons_parse_into_half_ops() {
        let got = ops("set.lt.f16x2.f16x2 %r1, %r2, %r3;\n\
                       set.le.u32.bf16x2 %r1, %r2, %r3;\n\
                       set.gt.and.f32.f32 %r1, %r2, %r3, !%p1;\n\
                       setp.ltu.f16x2 %p1|%p2, %r2, %r3;");
        let set = |i: usize| match &got[i] {
            Op::Half2 { op, ty, pair, .. } => (*op, *ty, *pair),
            other => panic!("{other:?}"),
        };
        assert_eq!(
            set(0),
            (
                Half2Op::Set {
                    cmp: CmpOp::Lt,
                    comb: None,
                    out: Ty::F16
                },
                Ty::F16,
                true
            )
        );
        assert_eq!(
            set(1),
            (
                Half2Op::Set {
                    cmp: CmpOp::Le,
                    comb: None,
                    out: Ty::U32
                },
                Ty::BF16,
                true
            )
        );
        assert_eq!(
            set(2),
            (
                Half2Op::Set {
                    cmp: CmpOp::Gt,
                    comb: Some((BoolOp::And, true)),
                    out: Ty::F32
                },
                Ty::F32,
                false
            )
        );
        assert!(matches!(
            &got[3],
            Op::Half2 {
                op: Half2Op::Setp {
                    cmp: CmpOp::Ltu,
                    comb: None
                },
                d2: Some(_),
                ..
            }
        ));
    }

    #[test]
    fn relu_satfinite_rounding_and_half_atomics_parse() {
        let got = ops("fma.rn.relu.f16 %rs1, %rs2, %rs3, %rs4;\n\
                       fma.rn.relu.bf16x2 %r1, %r2, %r3, %r4;\n\
                       cvt.rn.relu.f16.f32 %rs1, %f1;\n\
                       cvt.rz.satfinite.bf16x2.f32 %r1, %f1, %f2;\n\
                       cvt.rm.f16.f32 %rs1, %f1;\n\
                       atom.global.add.noftz.f16x2 %r1, [%rd1], %r2;\n\
                       red.global.add.noftz.bf16 [%rd1], %rs1;\n\
                       atom.add.noftz.f16 %rs1, [%rd1], %rs2;");
        assert!(matches!(
            &got[0],
            Op::Half2 {
                op: Half2Op::Fma { relu: true },
                ty: Ty::F16,
                pair: false,
                ..
            }
        ));
        assert!(matches!(
            &got[1],
            Op::Half2 {
                op: Half2Op::Fma { relu: true },
                ty: Ty::BF16,
                pair: true,
                ..
            }
        ));
        assert!(matches!(
            &got[2],
            Op::Cvt {
                dty: Ty::F16,
                relu: true,
                satfinite: false,
                ..
            }
        ));
        assert!(matches!(
            &got[3],
            Op::Half2 {
                op: Half2Op::PackCvt(HalfCvt {
                    rnd: Rounding::Rz,
                    relu: false,
                    satfinite: true
                }),
                ty: Ty::BF16,
                ..
            }
        ));
        assert!(matches!(
            &got[4],
            Op::Cvt {
                rnd: Rounding::Rm,
                ..
            }
        ));
        assert!(matches!(
            &got[5],
            Op::Atom {
                op: AtomOp::Pair {
                    op: BinOp::Add,
                    half: Ty::F16
                },
                ty: Ty::B32,
                d: Some(_),
                ..
            }
        ));
        assert!(matches!(
            &got[6],
            Op::Atom {
                op: AtomOp::Add,
                ty: Ty::BF16,
                d: None,
                ..
            }
        ));
        assert!(matches!(
            &got[7],
            Op::Atom {
                op: AtomOp::Add,
                ty: Ty::F16,
                ..
            }
        ));
    }

    /// Forms computed wrong without their modifier are reported, not run.
    #[test]
    fn unimplemented_half_modifiers_are_unsupported() {
        for line in [
            "min.xorsign.abs.f32 %f1, %f2, %f3;",
            "max.relu.s32 %r1, %r2, %r3;",
            "cvt.rn.satfinite.e4m3x2.f32 %rs1, %f1, %f2;",
            "cvt.rn.satfinite.s32.f32 %r1, %f1;",
            "cvt.rs.f16x2.f32 %r1, %f1, %f2, %r3;",
            "atom.global.v2.f16.add.noftz %r1, [%rd1], %r2;",
            "atom.exch.f16x2 %r1, [%rd1], %r2;",
        ] {
            let got = ops(line);
            assert!(
                matches!(&got[0], Op::Unsupported { .. }),
                "{line}: {:?}",
                got[0]
            );
        }
    }

    #[test]
    fn xorsign_and_the_half_special_functions_are_read() {
        for (line, want) in [
            (
                "min.xorsign.abs.f16 %rs1, %rs2, %rs3;",
                Half2Op::XorsignAbs { max: false },
            ),
            (
                "max.NaN.xorsign.abs.bf16x2 %r1, %r2, %r3;",
                Half2Op::XorsignAbs { max: true },
            ),
            ("ex2.approx.f16x2 %r1, %r2;", Half2Op::Un(UnOp::Ex2)),
            ("tanh.approx.bf16x2 %r1, %r2;", Half2Op::Un(UnOp::Tanh)),
        ] {
            let got = ops(line);
            assert!(
                matches!(&got[0], Op::Half2 { op, .. } if *op == want),
                "{line}: {:?}",
                got[0]
            );
        }
    }
}
