//! Module variables set before a launch and read after it, as `cudaMemcpyToSymbol` and
//! `cudaMemcpyFromSymbol` would: `exec --symbol NAME=SPEC` (and a puzzle's `symbols.NAME`) give
//! a `__constant__` or `__device__` variable its bytes; every `__device__` variable's final
//! value comes back for the JSON result.

use super::value::{Buffer, ElemType};
use super::EmuError;
use crate::ptx::ir::{demangle_var, Module, Space, Ty, Variable};

/// The bytes to load into each named module variable: (index in `module.globals`, bytes).
pub type SymbolBytes = Vec<(usize, Vec<u8>)>;

/// Match each given value to the module variable it names (by the C++ name, qualified or
/// not, or the mangled name) and check its size. An unknown name lists the variables there
/// are; a wrong size says both sizes.
pub fn resolve(module: &Module, given: &[Buffer]) -> Result<SymbolBytes, EmuError> {
    let mut out: SymbolBytes = Vec::new();
    for b in given {
        let index = find(module, &b.name)?;
        let var = &module.globals[index];
        if b.data.len() as u64 != var.size {
            let elem = b.ty.size().max(1) as u64;
            let given_n = b.data.len() as u64 / elem;
            let wanted_n = var.size / elem;
            let plural = |n: u64| if n == 1 { "" } else { "s" };
            return Err(EmuError::Launch(format!(
                "`{}`: {given_n} {} value{} {} {} bytes, but `{}` is {} bytes; give it {wanted_n} {} value{}",
                b.name,
                b.ty,
                plural(given_n),
                if given_n == 1 { "is" } else { "are" },
                b.data.len(),
                demangle_var(&var.name),
                var.size,
                b.ty,
                plural(wanted_n),
            )));
        }
        if out.iter().any(|(i, _)| *i == index) {
            return Err(EmuError::Launch(format!(
                "`{}`: `{}` is given a value twice",
                b.name,
                demangle_var(&var.name)
            )));
        }
        out.push((index, b.data.clone()));
    }
    Ok(out)
}

/// Whether the module has a `__constant__` or `__device__` variable of this name.
pub fn declares(module: &Module, name: &str) -> bool {
    find(module, name).is_ok()
}

fn find(module: &Module, name: &str) -> Result<usize, EmuError> {
    let globals = &module.globals;
    let exact = globals
        .iter()
        .position(|g| g.name == name || demangle_var(&g.name) == name);
    if let Some(i) = exact {
        return Ok(i);
    }
    // `partial_sum` for `PMPP::CUDA::partial_sum`, when only one variable has that last part.
    let tail = |g: &Variable| demangle_var(&g.name).rsplit("::").next() == Some(name);
    let hits: Vec<usize> = (0..globals.len()).filter(|&i| tail(&globals[i])).collect();
    if let [i] = hits.as_slice() {
        return Ok(*i);
    }
    let names: Vec<String> = globals
        .iter()
        .filter(|g| !compiler_made(g))
        .map(|g| demangle_var(&g.name))
        .collect();
    let there = if names.is_empty() {
        "the kernel file declares no __constant__ or __device__ variable".to_string()
    } else {
        format!("the kernel file declares: {}", names.join(", "))
    };
    let what = if hits.len() > 1 {
        "more than one __constant__ or __device__ variable is named"
    } else {
        "no __constant__ or __device__ variable is named"
    };
    Err(EmuError::Launch(format!("{what} `{name}` ({there})")))
}

/// The final value of every `__device__` variable (not `__constant__`: a kernel cannot change
/// those), read as the type it was given with `--symbol`, else as its declared type.
/// `read(i)` gives the bytes of `module.globals[i]`.
pub fn device_values(
    module: &Module,
    given: &[Buffer],
    read: impl Fn(usize) -> Vec<u8>,
) -> Vec<Buffer> {
    module
        .globals
        .iter()
        .enumerate()
        .filter(|(_, g)| g.space == Space::Global && g.size > 0 && !compiler_made(g))
        .map(|(i, g)| {
            let ty = given
                .iter()
                .find(|b| find(module, &b.name).ok() == Some(i))
                .map_or_else(|| declared_type(g), |b| b.ty);
            let mut data = read(i);
            data.resize(g.size as usize, 0);
            // A size that is not a whole number of the type's elements reads as bytes.
            let ty = if data.len().is_multiple_of(ty.size()) {
                ty
            } else {
                ElemType::U8
            };
            Buffer {
                name: demangle_var(&g.name),
                ty,
                data,
            }
        })
        .collect()
}

/// A variable the compiler made, not the learner: printf's format strings and other string
/// constants (`$str`, `$str$1`); no C++ name starts with `$`.
fn compiler_made(g: &Variable) -> bool {
    g.name.starts_with('$')
}

/// The element type a variable is read as without a `--symbol` to say: its declared type, or
/// for NVRTC's byte arrays (`.align 4 .b8 counts[16]`) a signed integer as wide as its
/// alignment (most device arrays that report results are counters).
fn declared_type(g: &Variable) -> ElemType {
    match g.ty {
        Ty::F32 => ElemType::F32,
        Ty::F64 => ElemType::F64,
        Ty::S8 => ElemType::I8,
        Ty::S16 => ElemType::I16,
        Ty::S32 | Ty::B32 => ElemType::I32,
        Ty::S64 | Ty::B64 => ElemType::I64,
        Ty::U8 => ElemType::U8,
        Ty::U16 | Ty::B16 | Ty::F16 | Ty::BF16 => ElemType::U16,
        Ty::U32 => ElemType::U32,
        Ty::U64 => ElemType::U64,
        Ty::B8 | Ty::Pred => match g.align {
            8 if g.size.is_multiple_of(8) => ElemType::I64,
            4 if g.size.is_multiple_of(4) => ElemType::I32,
            2 if g.size.is_multiple_of(2) => ElemType::I16,
            _ => ElemType::U8,
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn module() -> Module {
        crate::ptx::parse(
            ".version 8.0\n.target sm_80\n.address_size 64\n\
             .const .align 4 .b8 _ZN4taps6coeffsE[12];\n\
             .global .align 4 .u32 counter;\n\
             .global .align 4 .b8 _ZN4PMPP4CUDA9histogramE[16];\n\
             .global .align 1 .b8 $str[6] = {120, 61, 37, 100, 10, 0};\n\
             .global .align 1 .b8 $str$1[3] = {104, 105, 0};\n",
        )
        .expect("parses")
    }

    fn buf(name: &str, ty: ElemType, values: &[f64]) -> Buffer {
        Buffer::from_values(name, ty, values)
    }

    #[test]
    fn names_resolve_qualified_unqualified_or_mangled() {
        let m = module();
        let given = [
            buf("taps::coeffs", ElemType::F32, &[1.0, 2.0, 3.0]),
            buf("histogram", ElemType::I32, &[0.0; 4]),
            buf("counter", ElemType::U32, &[7.0]),
            buf("_ZN4taps6coeffsE", ElemType::F32, &[1.0, 2.0, 3.0]),
        ];
        let e = resolve(&m, &given).unwrap_err().to_string();
        assert!(e.contains("is given a value twice"), "{e}");
        let r = resolve(&m, &given[..3]).expect("resolves");
        assert_eq!(r.iter().map(|(i, _)| *i).collect::<Vec<_>>(), [0, 2, 1]);
        assert_eq!(r[2].1, 7u32.to_le_bytes());
    }

    #[test]
    fn an_unknown_name_lists_the_variables_and_a_wrong_size_says_both() {
        let m = module();
        let e = resolve(&m, &[buf("coefs", ElemType::F32, &[1.0])])
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("no __constant__ or __device__ variable is named `coefs`"),
            "{e}"
        );
        assert!(
            e.contains("(the kernel file declares: taps::coeffs, counter, PMPP::CUDA::histogram)"),
            "{e}"
        );
        let e = resolve(&m, &[buf("coeffs", ElemType::F32, &[1.0, 2.0])])
            .unwrap_err()
            .to_string();
        assert!(
            e.contains(
                "2 f32 values are 8 bytes, but `taps::coeffs` is 12 bytes; give it 3 f32 values"
            ),
            "{e}"
        );
    }

    #[test]
    fn device_variables_come_back_typed_and_constants_do_not() {
        let m = module();
        let given = [buf("counter", ElemType::I32, &[0.0])];
        assert_eq!(m.globals.len(), 5);
        let got = device_values(&m, &given, |i| vec![i as u8; 16]);
        let names: Vec<&str> = got.iter().map(|b| b.name.as_str()).collect();
        // printf's format strings (`$str`, `$str$1`) are the compiler's, not the learner's.
        assert_eq!(names, ["counter", "PMPP::CUDA::histogram"]);
        assert_eq!(got[0].ty, ElemType::I32);
        assert_eq!(got[0].data.len(), 4);
        assert_eq!(got[1].ty, ElemType::I32);
        assert_eq!(got[1].data.len(), 16);
    }
}
