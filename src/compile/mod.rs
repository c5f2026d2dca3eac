//! compile: CUDA C → PTX with NVRTC.
//!
//! Owns finding libnvrtc ([`locate`]) and CUDA's headers for it
//! ([`cuda_headers`]), compiling ([`compile`]), the PTX cache keyed by a
//! content hash ([`cache_dir`]; the learner's included files are part of it)
//! and mapping NVRTC's messages onto the learner's file ([`CompilerMessage`]).
//! It also finds NVIDIA's PTX assembler (`assembler.rs`) and keeps the CUBINs it makes
//! (`cubin.rs`), for the GPU backend. It never runs a kernel.
//!
//! Besides the options below, every compile gets `-I` for CUDA's include
//! folders, `--pre-include` of gcc's predefined macros and, by name, the
//! stand-ins for host headers (see `headers.rs`).
//!
//! Every kernel is compiled with `-lineinfo` (so the PTX has `.loc` lines for
//! diagnostics), for the virtual architecture [`DEFAULT_ARCH`] and C++17, and
//! with the learner's file name as NVRTC's program name, so that `.file`
//! directives and messages name `puzzles/09_pooling.cu`, not `default_program`.
//! (NVRTC 12.9 writes a relative program name into `.file` with the process's
//! working directory in front; gpuzzle puts back the name as given, so the PTX
//! and its cache entry do not depend on where gpuzzle was started.)

mod arch;
mod assembler;
mod cache;
mod constant_store;
mod cubin;
mod discovery;
mod error;
mod headers;
mod layout;
mod library;
mod messages;
mod search;
mod spec_cache;

pub use arch::{parse_arch_arg, Arch, ARCH_NAMES};
pub use assembler::{
    assembler, cubin_disabled, Assembler, AssemblerMissing, NO_CUBIN_ENV, PTXAS_ENV,
};
pub use cubin::{cubin_cache_dir, cubin_header, Cubin, CubinCache, CubinHeader};
pub use error::{CompileError, INSTALL_HINT};
pub use headers::CudaHeaders;
pub use messages::{parse_log, CompilerMessage, MessageSeverity};
pub use spec_cache::{
    spec_cache_dir, spec_cache_disabled, spec_cache_hits, SpecCache, SpecKey, SpecKeyBuilder,
    NO_SPEC_CACHE_ENV,
};

use cache::{CacheEntry, CacheKey, DiskCache};
use discovery::Location;
use library::{LibrarySpec, NvrtcLibrary};
use std::collections::HashMap;
use std::ffi::CString;
use std::path::PathBuf;
use std::sync::{Arc, Mutex, MutexGuard, OnceLock};

/// The virtual architecture every kernel is compiled for. compute_80
/// (Ampere) has everything the puzzles use (`cp.async` aside) and is what the
/// emulator implements.
pub const DEFAULT_ARCH: &str = "compute_80";

/// The NVRTC library this process uses.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NvrtcInfo {
    /// The file that was loaded.
    pub path: PathBuf,
    /// How it was found: `GPUZZLE_NVRTC`, `CUDA_PATH`, `CUDA_HOME`,
    /// `/usr/local/cuda-12.9`, `dynamic loader`,
    /// `python site-packages (/usr/bin/python3)` or `user site-packages`.
    pub found_by: String,
    /// NVRTC's own version, e.g. (12, 9).
    pub version: (i32, i32),
}

/// Finds and loads libnvrtc afresh, ignoring what earlier runs remembered
/// (for `gpuzzle doctor`, which checks the set-up), and remembers the answer
/// for later runs. See `search.rs` for the order of places.
pub fn locate() -> Result<NvrtcInfo, CompileError> {
    let location = match LOCATION.get() {
        // This process already found it (or took it from the memo): check that it loads.
        Some(_) => nvrtc().map(|(_, location)| location.clone())?,
        None => {
            let fresh = search_and_load();
            let location = match &fresh {
                Ok((_, location)) => Ok(location.clone()),
                Err(searched) => Err(searched.clone()),
            };
            // Whichever thread set it first, this process now uses one answer.
            let _ = LOCATION.set(location.clone());
            if let Ok((library, _)) = fresh {
                let _ = LOADED.set(Ok(library));
            }
            location.map_err(|searched| CompileError::NvrtcMissing { searched })?
        }
    };
    Ok(NvrtcInfo {
        path: location.path.clone(),
        found_by: location.found_by.clone(),
        version: location.version,
    })
}

/// Where the process's NVRTC is: remembered by an earlier run (no search, no
/// load; see `discovery.rs`), else searched for and loaded now.
static LOCATION: OnceLock<Result<Location, Vec<String>>> = OnceLock::new();
/// The process's NVRTC, loaded on first compile and never unloaded.
static LOADED: OnceLock<Result<NvrtcLibrary, Vec<String>>> = OnceLock::new();

fn memo_path() -> PathBuf {
    cache_dir().join(discovery::MEMO_FILE)
}

/// NVRTC's version, without loading it when an earlier run found it (`None` when there is
/// no NVRTC): for messages that compare it with the driver's.
pub fn nvrtc_version() -> Option<(i32, i32)> {
    nvrtc_location().ok().map(|l| l.version)
}

/// Where NVRTC is, without loading it when an earlier run found it.
fn nvrtc_location() -> Result<&'static Location, CompileError> {
    LOCATION
        .get_or_init(|| {
            let fingerprint = discovery::fingerprint();
            if let Some(location) = discovery::remembered(&memo_path(), &fingerprint) {
                return Ok(location);
            }
            let (library, location) = search_and_load()?;
            // Loaded by the search: compiles in this process use that copy.
            let _ = LOADED.set(Ok(library));
            Ok(location)
        })
        .as_ref()
        .map_err(|searched| CompileError::NvrtcMissing {
            searched: searched.clone(),
        })
}

/// The full search (which loads what it finds); the answer is remembered.
fn search_and_load() -> Result<(NvrtcLibrary, Location), Vec<String>> {
    let env = search::SearchEnv::from_process();
    let mut host = search::SystemHost {
        load: NvrtcLibrary::open,
    };
    let found = search::search(&env, &mut host)?;
    let library = found.library;
    let location = Location::of(library.path(), &found.found_by, library.version());
    match location {
        Some(location) => {
            discovery::remember(&memo_path(), &discovery::fingerprint(), &location);
            Ok((library, location))
        }
        // Loaded, but its file cannot be examined (found by bare name and not
        // traced back to a file): usable, never remembered, keyed by version.
        None => {
            let location = Location {
                path: library.path().to_path_buf(),
                found_by: found.found_by,
                version: library.version(),
                size: 0,
                modified_ns: 0,
            };
            Ok((library, location))
        }
    }
}

/// The process's NVRTC, loaded: only needed when something must compile.
fn nvrtc() -> Result<(&'static NvrtcLibrary, &'static Location), CompileError> {
    let location = nvrtc_location()?;
    let library = LOADED.get_or_init(|| {
        NvrtcLibrary::open(&LibrarySpec::File(location.path.clone())).map_err(|why| {
            // The same file loaded when it was remembered; start afresh next run.
            discovery::forget(&memo_path());
            vec![
                format!(
                    "{} (found by {} on an earlier run): {why}",
                    location.path.display(),
                    location.found_by
                ),
                "gpuzzle forgot that place and searches afresh on its next run".to_string(),
            ]
        })
    });
    match library {
        Ok(library) => Ok((library, location)),
        Err(searched) => Err(CompileError::NvrtcMissing {
            searched: searched.clone(),
        }),
    }
}

/// Where CUDA's headers are for the process's NVRTC (found once, on first
/// use; for `gpuzzle doctor` and every compile). Needs no load of NVRTC.
pub fn cuda_headers() -> Result<&'static CudaHeaders, CompileError> {
    static HEADERS: OnceLock<CudaHeaders> = OnceLock::new();
    let location = nvrtc_location()?;
    Ok(HEADERS.get_or_init(|| {
        let places = || {
            let env = search::SearchEnv::from_process();
            let mut toolkits: Vec<(String, PathBuf)> = env
                .cuda_roots
                .iter()
                .map(|(name, root)| (name.to_string(), root.clone()))
                .collect();
            for dir in search::cuda_toolkit_dirs(&env.usr_local) {
                toolkits.push((dir.display().to_string(), dir));
            }
            headers::HeaderPlaces {
                toolkits,
                sites: search::known_site_dirs(env.home.as_deref()),
            }
        };
        headers::find_cuda_headers_lazily(&location.path, location.version.0, places)
    }))
}

/// Where compiled PTX is kept between runs (for `gpuzzle doctor`).
pub fn cache_dir() -> PathBuf {
    let var = |name: &str| std::env::var_os(name).map(PathBuf::from);
    cache::cache_dir_from(
        var("GPUZZLE_CACHE_DIR").as_deref(),
        var("XDG_CACHE_HOME").as_deref(),
        var("HOME").as_deref(),
    )
}

/// One translation unit to compile.
#[derive(Debug, Clone, Copy)]
pub struct CompileRequest<'a> {
    /// Shown in messages and PTX `.file` directives: `puzzles/09_pooling.cu`.
    pub file_name: &'a str,
    pub source: &'a str,
    /// `-DNAME` (`None`) or `-DNAME=VALUE`.
    pub defines: &'a [(String, Option<String>)],
    /// Passed to NVRTC after gpuzzle's own options.
    pub extra_options: &'a [String],
}

impl<'a> CompileRequest<'a> {
    /// A request with no defines and no extra options.
    pub fn new(file_name: &'a str, source: &'a str) -> Self {
        CompileRequest {
            file_name,
            source,
            defines: &[],
            extra_options: &[],
        }
    }
}

/// A successful compile.
#[derive(Debug, Clone)]
pub struct Compiled {
    pub ptx: Arc<str>,
    /// NVRTC's warnings, also when the PTX came from the cache.
    pub warnings: Vec<CompilerMessage>,
    /// True when no compile happened (memory or disk cache).
    pub cached: bool,
}

/// Compiles with the process-wide compiler (disk cache in [`cache_dir`]).
/// Safe to call from several threads at once.
pub fn compile(req: &CompileRequest) -> Result<Compiled, CompileError> {
    static COMPILER: OnceLock<PtxCompiler> = OnceLock::new();
    COMPILER
        .get_or_init(|| PtxCompiler::new(Some(cache_dir())))
        .compile(req)
}

/// NVRTC's options for a request, in order: gpuzzle's fixed ones, the
/// defines, then the request's extra options.
pub fn options_for(req: &CompileRequest) -> Result<Vec<String>, CompileError> {
    let mut options = vec!["-lineinfo".to_string()];
    // A target given in the request's options (`Arch::nvrtc_option`, `--arch`) replaces the
    // default; either way it is among the options, so the cache key holds it.
    if !(req.extra_options.iter()).any(|o| o.starts_with("--gpu-architecture=")) {
        options.push(format!("--gpu-architecture={DEFAULT_ARCH}"));
    }
    options.push("-std=c++17".to_string());
    for (name, value) in req.defines {
        check_define_name(name)?;
        options.push(match value {
            Some(value) => format!("-D{name}={value}"),
            None => format!("-D{name}"),
        });
    }
    options.extend(req.extra_options.iter().cloned());
    Ok(options)
}

/// A macro name NVRTC accepts: an identifier, optionally with a parameter
/// list (`F(x)`). Anything else would be misread as several options.
fn check_define_name(name: &str) -> Result<(), CompileError> {
    let identifier_end = name
        .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
        .unwrap_or(name.len());
    let starts_well = name.starts_with(|c: char| c.is_ascii_alphabetic() || c == '_');
    let rest = &name[identifier_end..];
    let rest_ok = rest.is_empty()
        || (rest.starts_with('(') && rest.ends_with(')') && !rest.contains(char::is_whitespace));
    if starts_well && rest_ok {
        Ok(())
    } else {
        Err(CompileError::BadRequest(format!(
            "define name {name:?} is not a C identifier (write NAME or NAME=VALUE, e.g. TPB=8)"
        )))
    }
}

/// A compiler with its own caches. [`compile`] uses one for the whole
/// process; tests and tools can make their own (e.g. with a temporary cache
/// directory, or none).
pub struct PtxCompiler {
    disk: Option<DiskCache>,
    /// One slot per key. A slot's lock is held while its key compiles, so
    /// threads asking for the same kernel wait for one compile instead of
    /// each running NVRTC; failures are not stored.
    memory: Mutex<HashMap<CacheKey, Slot>>,
}

/// The memory cache's place for one key: empty until a compile succeeds.
type Slot = Arc<Mutex<Option<Arc<Success>>>>;

/// A successful compile as kept in memory.
struct Success {
    ptx: Arc<str>,
    warnings: Vec<CompilerMessage>,
    log: String,
}

impl Success {
    fn new(entry: &CacheEntry, req: &CompileRequest) -> Self {
        let warnings = parse_log(&entry.log, req.file_name, req.source)
            .into_iter()
            .filter(|m| m.severity == MessageSeverity::Warning)
            .collect();
        Success {
            ptx: Arc::from(entry.ptx.as_str()),
            warnings,
            log: entry.log.clone(),
        }
    }

    /// The compile as the learner gets it: a store to `__constant__` memory, which NVRTC only
    /// warns about, is refused at its line (`constant_store.rs`).
    fn compiled(&self, cached: bool, req: &CompileRequest) -> Result<Compiled, CompileError> {
        constant_store::refuse(req.file_name, &self.log)?;
        Ok(Compiled {
            ptx: Arc::clone(&self.ptx),
            warnings: self.warnings.clone(),
            cached,
        })
    }
}

impl PtxCompiler {
    /// `disk_cache`: the directory for PTX files, or `None` for memory only.
    pub fn new(disk_cache: Option<PathBuf>) -> Self {
        PtxCompiler {
            disk: disk_cache.map(DiskCache::new),
            memory: Mutex::new(HashMap::new()),
        }
    }

    pub fn compile(&self, req: &CompileRequest) -> Result<Compiled, CompileError> {
        let compiled = self.compile_ptx(req)?;
        // A call of a function declared and never defined compiles, and fails to link on a
        // GPU: it is the learner's compile error, not a call the emulator refuses.
        let undefined = messages::undefined_functions(&compiled.ptx, req.file_name, req.source);
        if !undefined.is_empty() {
            return Err(CompileError::Compilation {
                file: req.file_name.to_string(),
                log: String::new(),
                messages: undefined,
            });
        }
        Ok(compiled)
    }

    fn compile_ptx(&self, req: &CompileRequest) -> Result<Compiled, CompileError> {
        // A UTF-8 byte-order mark (some Windows editors write one) is no C++ token to NVRTC;
        // nvcc ignores it, so gpuzzle does too.
        let unmarked = CompileRequest {
            source: req.source.strip_prefix('\u{feff}').unwrap_or(req.source),
            ..*req
        };
        let req = &unmarked;
        let mut options = options_for(req)?;
        // Where NVRTC is, but not NVRTC itself: a cached kernel needs no load.
        let location = nvrtc_location()?;
        let headers = cuda_headers()?;
        // CUDA's folders go after the learner's own -I (in extra_options), as
        // nvcc searches them; the stand-ins are served by name.
        for dir in headers.dirs() {
            options.push(format!("-I{}", dir.display()));
        }
        options.push(format!("--pre-include={}", headers::PRE_INCLUDE));
        if headers::needs_math_constants(req.source) {
            options.push(format!("--pre-include={}", headers::MATH_CONSTANTS));
        }
        let stand_ins = headers::stand_ins(headers.runtime.is_some());
        // Everything that decides the output is in the key (the request's
        // source and file name are the same for equal keys), so an entry can
        // be reused as it is, warnings included: the options, the stand-ins'
        // text, and the contents of the learner's own included files.
        let learner_dirs = headers::learner_include_dirs(req.extra_options);
        let mut key_inputs = options.clone();
        key_inputs.push(format!(
            "stand-ins:{}",
            stand_ins
                .iter()
                .map(|(name, text)| format!("{name}\n{text}"))
                .collect::<Vec<_>>()
                .join("\0")
        ));
        key_inputs.push(format!(
            "includes:{}",
            headers::include_digest(req.file_name, req.source, &learner_dirs)
        ));
        let key = CacheKey::new(req.file_name, req.source, &key_inputs, &location.identity());

        let slot = Arc::clone(lock(&self.memory).entry(key.clone()).or_default());
        let mut slot = lock(&slot);
        if let Some(success) = slot.as_ref() {
            return success.compiled(true, req);
        }
        if let Some(entry) = self.disk.as_ref().and_then(|disk| disk.load(&key)) {
            let success = Arc::new(Success::new(&entry, req));
            *slot = Some(Arc::clone(&success));
            return success.compiled(true, req);
        }

        let (library, _) = nvrtc()?;
        let (ptx, log) = run_nvrtc(library, req, &options, &stand_ins, headers)?;
        let entry = CacheEntry::new(key.as_str().to_string(), ptx, log);
        if let Some(disk) = &self.disk {
            disk.store(&entry);
        }
        let success = Arc::new(Success::new(&entry, req));
        *slot = Some(Arc::clone(&success));
        success.compiled(false, req)
    }
}

/// One NVRTC compile: (PTX, log) on success.
fn run_nvrtc(
    library: &NvrtcLibrary,
    req: &CompileRequest,
    options: &[String],
    stand_ins: &[(&str, &str)],
    headers: &CudaHeaders,
) -> Result<(String, String), CompileError> {
    let arch = messages::target_of(options).map(str::to_string);
    let source = CString::new(req.source).map_err(|err| {
        // NVRTC would silently stop reading at the NUL; say where it is.
        let line = req.source[..err.nul_position()].matches('\n').count() + 1;
        let message = CompilerMessage {
            file: req.file_name.to_string(),
            line: u32::try_from(line).ok(),
            column: None,
            severity: MessageSeverity::Error,
            code: None,
            message: "the file contains a NUL byte (\\0); remove it".to_string(),
            notes: Vec::new(),
        };
        CompileError::Compilation {
            file: req.file_name.to_string(),
            log: String::new(),
            messages: vec![message],
        }
    })?;
    let name = CString::new(req.file_name).map_err(|_| {
        CompileError::BadRequest(format!("file name {:?} contains a NUL byte", req.file_name))
    })?;
    let options = options
        .iter()
        .map(|option| {
            CString::new(option.as_str()).map_err(|_| {
                CompileError::BadRequest(format!("option {option:?} contains a NUL byte"))
            })
        })
        .collect::<Result<Vec<_>, _>>()?;
    // Embedded texts without NUL bytes: the conversion cannot fail, but a
    // failure would only drop that stand-in.
    let stand_ins: Vec<(CString, CString)> = stand_ins
        .iter()
        .filter_map(|(name, text)| Some((CString::new(*name).ok()?, CString::new(*text).ok()?)))
        .collect();

    let raw = library
        .compile(&name, &source, &stand_ins, &options)
        .map_err(CompileError::Nvrtc)?;
    match raw.ptx {
        Some(ptx) => Ok((restore_file_name(&ptx, req.file_name), raw.log)),
        None => {
            let mut messages = parse_log(&raw.log, req.file_name, req.source);
            messages::add_hints(
                &mut messages,
                headers.install_hint.as_deref(),
                arch.as_deref(),
            );
            messages::add_wmma_hint(&mut messages, headers.wmma_install_hint.as_deref());
            Err(CompileError::Compilation {
                file: req.file_name.to_string(),
                messages,
                log: raw.log,
            })
        }
    }
}

/// Rewrites `.file 1 "/cwd/puzzles/09.cu"` back to `.file 1 "puzzles/09.cu"`:
/// NVRTC prefixes relative program names with the working directory. Only
/// the entry for the program itself is touched (an absolute name is kept).
fn restore_file_name(ptx: &str, file_name: &str) -> String {
    if std::path::Path::new(file_name).is_absolute() {
        return ptx.to_string();
    }
    let escaped = ptx_string_escape(file_name);
    let suffix = format!("/{escaped}\"");
    let mut out = String::with_capacity(ptx.len());
    for line in ptx.split_inclusive('\n') {
        let is_file = line.trim_start().starts_with(".file");
        match line.find('"') {
            Some(open) if is_file && line[open..].trim_end().ends_with(&suffix) => {
                let close = open + line[open..].trim_end().len();
                out.push_str(&line[..open + 1]);
                out.push_str(&escaped);
                out.push('"');
                out.push_str(&line[close..]);
            }
            _ => out.push_str(line),
        }
    }
    out
}

/// A string as NVRTC writes it inside PTX quotes: C escapes for `\\` and
/// `"`, octal for every byte outside printable ASCII (`ü` → `\303\274`).
fn ptx_string_escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for byte in text.bytes() {
        match byte {
            b'\\' => out.push_str("\\\\"),
            b'"' => out.push_str("\\\""),
            0x20..=0x7e => out.push(char::from(byte)),
            _ => out.push_str(&format!("\\{byte:03o}")),
        }
    }
    out
}

/// Locks a mutex even if another thread panicked while holding it: the maps
/// hold only finished entries, so they are never left half-updated.
fn lock<T>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
    mutex
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner())
}

#[cfg(test)]
mod tests;
