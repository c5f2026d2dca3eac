//! Learner-like mutations of a kernel's source text: the mistakes people make while writing a
//! puzzle's kernel (a line lost, doubled or out of order; an index off by one or along the
//! wrong axis; a comparison off by one; a barrier missing, moved or made divergent; an early
//! return; a loop that never ends; printf in a loop; a huge local array; an atomic written as
//! a plain `+=`). Each operator works on lines and text, never on a parse, so it can produce
//! anything a learner could type, including code that does not compile.

use super::rng::Rng;

/// The mutation operators, by name (the name is what the campaign reports).
pub const OPERATORS: [&str; 14] = [
    "delete-line",
    "duplicate-line",
    "swap-lines",
    "index-offset",
    "swap-xy",
    "flip-comparison",
    "barrier",
    "early-return",
    "endless-loop",
    "printf-in-loop",
    "huge-local-array",
    "change-constant",
    "atomic-to-plain",
    "swap-operator",
];

/// One mutant: its text and what was done to it.
#[derive(Clone, Debug)]
pub struct Mutant {
    pub text: String,
    pub operators: Vec<&'static str>,
    pub what: Vec<String>,
}

/// `source` with one mutation (or, one time in four, two), drawn from `rng`; `None` when no
/// operator drawn found anything to change (a few tries).
pub fn mutate(source: &str, rng: &mut Rng) -> Option<Mutant> {
    let mut lines: Vec<String> = source.lines().map(str::to_string).collect();
    let rounds = if rng.chance(0.25) { 2 } else { 1 };
    let mut operators = Vec::new();
    let mut what = Vec::new();
    for _ in 0..rounds {
        for _try in 0..12 {
            let op = *rng.pick(&OPERATORS);
            if let Some(desc) = apply(op, &mut lines, rng) {
                operators.push(op);
                what.push(desc);
                break;
            }
        }
    }
    let mut text = lines.join("\n");
    text.push('\n');
    (!operators.is_empty() && text != source).then_some(Mutant {
        text,
        operators,
        what,
    })
}

/// Indices of the lines inside a function body that hold code (not blank, not a comment, not
/// a preprocessor line), and of those, the ones that open a block with `{`.
fn body_lines(lines: &[String]) -> Vec<usize> {
    let mut depth: i32 = 0;
    let mut body = Vec::new();
    for (i, line) in lines.iter().enumerate() {
        let code = strip_comment(line);
        let t = code.trim();
        if depth >= 1 && !t.is_empty() && !t.starts_with('#') {
            body.push(i);
        }
        for c in code.chars() {
            match c {
                '{' => depth += 1,
                '}' => depth -= 1,
                _ => {}
            }
        }
    }
    body
}

fn strip_comment(line: &str) -> &str {
    match line.find("//") {
        Some(at) => &line[..at],
        None => line,
    }
}

fn indent_of(line: &str) -> String {
    line.chars().take_while(|c| c.is_whitespace()).collect()
}

fn short(line: &str) -> String {
    let t = line.trim();
    if t.len() > 60 {
        format!(
            "{}...",
            &t[..t.char_indices().nth(57).map_or(t.len(), |(i, _)| i)]
        )
    } else {
        t.to_string()
    }
}

/// Apply operator `op` to `lines`; a description of the change, or `None` if it found nothing
/// to change.
fn apply(op: &str, lines: &mut Vec<String>, rng: &mut Rng) -> Option<String> {
    let body = body_lines(lines);
    if body.is_empty() {
        return None;
    }
    // Lines with more than a brace: a learner loses or doubles a statement far more often
    // than a lone brace.
    let statements: Vec<usize> = body
        .iter()
        .copied()
        .filter(|&i| !matches!(strip_comment(&lines[i]).trim(), "{" | "}" | "};"))
        .collect();
    if statements.is_empty() {
        return None;
    }
    match op {
        "delete-line" => {
            let i = *rng.pick(&statements);
            let gone = lines.remove(i);
            Some(format!("line {}: deleted `{}`", i + 1, short(&gone)))
        }
        "duplicate-line" => {
            let i = *rng.pick(&statements);
            let copy = lines[i].clone();
            lines.insert(i + 1, copy);
            Some(format!("line {}: duplicated `{}`", i + 1, short(&lines[i])))
        }
        "swap-lines" => {
            let k = rng.below(statements.len().saturating_sub(1));
            let (a, b) = (*statements.get(k)?, *statements.get(k + 1)?);
            lines.swap(a, b);
            Some(format!("lines {} and {} swapped", a + 1, b + 1))
        }
        "index-offset" => edit_some(lines, &body, rng, index_offset),
        "swap-xy" => edit_some(lines, &body, rng, swap_xy),
        "flip-comparison" => edit_some(lines, &body, rng, flip_comparison),
        "barrier" => barrier(lines, &body, rng),
        "early-return" => {
            let i = *rng.pick(&body);
            let ret = *rng.pick(&[
                "return;",
                "if (threadIdx.x == 3) return;",
                "if (threadIdx.x % 2 == 1) return;",
                "if (blockIdx.x > 0) return;",
                "if (threadIdx.x >= 16) return;",
            ]);
            let indent = indent_of(&lines[i]);
            lines.insert(i, format!("{indent}{ret}"));
            Some(format!("line {}: inserted `{ret}`", i + 1))
        }
        "endless-loop" => endless_loop(lines, &body, rng),
        "printf-in-loop" => {
            let i = *rng.pick(&body);
            let p = *rng.pick(&[
                "printf(\"thread %d\\n\", (int)threadIdx.x);",
                "for (int q = 0; q < 1000; q++) printf(\"%d %d\\n\", (int)threadIdx.x, q);",
                "for (int q = 0; q < 100000; q++) { printf(\"%d: a rather long line of device output, q = %d\\n\", (int)threadIdx.x, q); }",
                "while (true) printf(\"stuck %d\\n\", (int)threadIdx.x);",
            ]);
            let indent = indent_of(&lines[i]);
            lines.insert(i, format!("{indent}{p}"));
            Some(format!("line {}: inserted `{}`", i + 1, short(p)))
        }
        "huge-local-array" => {
            let i = *rng.pick(&body);
            let n = *rng.pick(&[1000u64, 100_000, 1 << 20, 1 << 24]);
            // Every element touched, a few, or one per 16 KiB.
            let touch = *rng.pick(&["q < N; q++", "q < 4; q++", "q < N; q += 4096"]);
            let touch = touch.replace('N', &n.to_string());
            let init = rng.chance(0.8);
            let text = if init {
                format!(
                    "float big[{n}]; for (int q = 0; {touch}) big[q] = q * 0.5f; if (big[threadIdx.x % {n}] < -1.0f) return;"
                )
            } else {
                format!("float big[{n}]; if (big[threadIdx.x % {n}] < -1.0f) return;")
            };
            let indent = indent_of(&lines[i]);
            lines.insert(i, format!("{indent}{text}"));
            Some(format!("line {}: inserted `{}`", i + 1, short(&text)))
        }
        "change-constant" => edit_some(lines, &body, rng, change_constant),
        "atomic-to-plain" => edit_some(lines, &body, rng, atomic_to_plain),
        "swap-operator" => edit_some(lines, &body, rng, swap_operator),
        _ => None,
    }
}

/// Apply `edit` to one of the body lines where it finds something, chosen at random.
fn edit_some(
    lines: &mut [String],
    body: &[usize],
    rng: &mut Rng,
    edit: fn(&str, &mut Rng) -> Option<(String, String)>,
) -> Option<String> {
    let mut candidates: Vec<usize> = body.to_vec();
    while !candidates.is_empty() {
        let k = rng.below(candidates.len());
        let i = candidates.swap_remove(k);
        if let Some((new, desc)) = edit(&lines[i], rng) {
            lines[i] = new;
            return Some(format!("line {}: {desc}", i + 1));
        }
    }
    None
}

/// Byte offsets of the starts of `pat` in `line`'s code part.
fn find_all(line: &str, pat: &str) -> Vec<usize> {
    strip_comment(line)
        .match_indices(pat)
        .map(|(i, _)| i)
        .collect()
}

fn index_offset(line: &str, rng: &mut Rng) -> Option<(String, String)> {
    let opens = find_all(line, "[");
    if opens.is_empty() {
        return None;
    }
    let open = *rng.pick(&opens);
    let mut depth = 0;
    let mut close = None;
    for (k, c) in line[open..].char_indices() {
        match c {
            '[' => depth += 1,
            ']' => {
                depth -= 1;
                if depth == 0 {
                    close = Some(open + k);
                    break;
                }
            }
            _ => {}
        }
    }
    let close = close?;
    let inner = &line[open + 1..close];
    let new_inner = match rng.below(10) {
        0..=3 => format!("{inner} + 1"),
        4..=6 => format!("{inner} - 1"),
        7 => format!("({inner}) * 320"),
        8 => format!("{inner} + blockDim.x"),
        _ => format!("({inner}) * 2"),
    };
    let new = format!("{}[{new_inner}]{}", &line[..open], &line[close + 1..]);
    Some((new, format!("`[{inner}]` became `[{new_inner}]`")))
}

fn swap_xy(line: &str, rng: &mut Rng) -> Option<(String, String)> {
    let is_axis = |line: &str, at: usize| {
        line[at + 2..]
            .chars()
            .next()
            .is_none_or(|c| !(c.is_alphanumeric() || c == '_'))
    };
    let mut spots: Vec<usize> = find_all(line, ".x")
        .into_iter()
        .chain(find_all(line, ".y"))
        .filter(|&at| is_axis(line, at))
        .collect();
    spots.sort_unstable();
    if spots.is_empty() {
        return None;
    }
    let swap = |c: &str| if c == ".x" { ".y" } else { ".x" };
    if rng.chance(0.3) {
        // Every axis of the line swapped.
        let mut new = String::new();
        let mut last = 0;
        for &at in &spots {
            new.push_str(&line[last..at]);
            new.push_str(swap(&line[at..at + 2]));
            last = at + 2;
        }
        new.push_str(&line[last..]);
        Some((new, "x and y swapped on the whole line".into()))
    } else {
        let at = *rng.pick(&spots);
        let from = &line[at..at + 2];
        let new = format!("{}{}{}", &line[..at], swap(from), &line[at + 2..]);
        Some((new, format!("`{from}` became `{}` once", swap(from))))
    }
}

/// The comparison operators of a line's code: (offset, operator).
fn comparisons(line: &str) -> Vec<(usize, &'static str)> {
    let code = strip_comment(line);
    if code.contains("#include") || code.contains("template") || code.contains("<<<") {
        return Vec::new();
    }
    let b = code.as_bytes();
    let mut found = Vec::new();
    let mut i = 0;
    while i < b.len() {
        let next = b.get(i + 1).copied();
        let prev = if i > 0 { Some(b[i - 1]) } else { None };
        match b[i] {
            b'<' | b'>' if next == Some(b[i]) || prev == Some(b'-') => {
                // `<<`, `>>` (shifts) and `->`.
                i += 2;
                continue;
            }
            b'<' if next == Some(b'=') => found.push((i, "<=")),
            b'>' if next == Some(b'=') => found.push((i, ">=")),
            b'<' => found.push((i, "<")),
            b'>' => found.push((i, ">")),
            b'=' if next == Some(b'=') => found.push((i, "==")),
            b'!' if next == Some(b'=') => found.push((i, "!=")),
            _ => {}
        }
        i += found
            .last()
            .map_or(1, |&(at, op)| if at == i { op.len() } else { 1 });
    }
    found
}

fn flip_comparison(line: &str, rng: &mut Rng) -> Option<(String, String)> {
    let found = comparisons(line);
    if found.is_empty() {
        return None;
    }
    let (at, op) = *rng.pick(&found);
    let to = match op {
        "<" => "<=",
        "<=" => "<",
        ">" => ">=",
        ">=" => ">",
        "==" => "!=",
        _ => "==",
    };
    let new = format!("{}{to}{}", &line[..at], &line[at + op.len()..]);
    Some((new, format!("`{op}` became `{to}`")))
}

fn barrier(lines: &mut Vec<String>, body: &[usize], rng: &mut Rng) -> Option<String> {
    let barriers: Vec<usize> = body
        .iter()
        .copied()
        .filter(|&i| lines[i].contains("__syncthreads()") || lines[i].contains("__syncwarp("))
        .collect();
    if barriers.is_empty() {
        // No barrier to move: add one where a learner might, maybe inside a branch.
        let i = *rng.pick(body);
        let indent = indent_of(&lines[i]);
        let b = *rng.pick(&[
            "__syncthreads();",
            "if (threadIdx.x < 4) __syncthreads();",
            "__syncwarp();",
        ]);
        lines.insert(i, format!("{indent}{b}"));
        return Some(format!("line {}: inserted `{b}`", i + 1));
    }
    let i = *rng.pick(&barriers);
    let was = short(&lines[i]);
    match rng.below(6) {
        0 | 1 => {
            lines.remove(i);
            Some(format!("line {}: deleted `{was}`", i + 1))
        }
        2 | 3 => {
            let line = lines.remove(i);
            let places: Vec<usize> = body.iter().copied().filter(|&j| j != i).collect();
            let j = *rng.pick(&places);
            let j = if j > i { j - 1 } else { j };
            let at = (j + usize::from(rng.chance(0.5))).min(lines.len());
            lines.insert(at, line);
            Some(format!("line {}: `{was}` moved to line {}", i + 1, at + 1))
        }
        4 => {
            let to = *rng.pick(&[
                "if (threadIdx.x == 0) __syncwarp(1);",
                "__syncwarp(3);",
                "__syncwarp();",
                "if (threadIdx.x < 16) __syncthreads();",
                "if (threadIdx.x % 2 == 0) __syncthreads();",
            ]);
            let indent = indent_of(&lines[i]);
            lines[i] = format!("{indent}{to}");
            Some(format!("line {}: `{was}` became `{to}`", i + 1))
        }
        _ => {
            let indent = indent_of(&lines[i]);
            lines[i] = format!("{indent}if (threadIdx.x == 0) {{ {} }}", lines[i].trim());
            Some(format!("line {}: `{was}` run by thread 0 only", i + 1))
        }
    }
}

fn endless_loop(lines: &mut Vec<String>, body: &[usize], rng: &mut Rng) -> Option<String> {
    let loops: Vec<usize> = body
        .iter()
        .copied()
        .filter(|&i| {
            lines[i].trim_start().starts_with("for (") && lines[i].matches(';').count() >= 2
        })
        .collect();
    if !loops.is_empty() && rng.chance(0.6) {
        let i = *rng.pick(&loops);
        let line = lines[i].clone();
        let second = line.match_indices(';').nth(1)?.0;
        let close = line[second..].find(')')? + second;
        let step = line[second + 1..close].trim().to_string();
        let new_step = if rng.chance(0.5) {
            String::new()
        } else if step.contains("*=") || step.contains("/=") {
            format!("{} 1", &step[..step.find('=')? + 1])
        } else if step.contains("++") {
            step.replace("++", "--")
        } else {
            String::new()
        };
        lines[i] = format!("{} {new_step}{}", &line[..=second], &line[close..]);
        return Some(format!(
            "line {}: loop step `{step}` became `{new_step}`",
            i + 1
        ));
    }
    let i = *rng.pick(body);
    let l = *rng.pick(&[
        "while (true) { }",
        "for (int q = 0; q < 10; q += 0) { }",
        "while (threadIdx.x < 100000) { }",
        "volatile int spin = 1; while (spin) { }",
    ]);
    let indent = indent_of(&lines[i]);
    lines.insert(i, format!("{indent}{l}"));
    Some(format!("line {}: inserted `{l}`", i + 1))
}

fn change_constant(line: &str, rng: &mut Rng) -> Option<(String, String)> {
    let code = strip_comment(line);
    let b = code.as_bytes();
    let mut spots = Vec::new();
    let mut i = 0;
    while i < b.len() {
        if b[i].is_ascii_digit()
            && (i == 0
                || !(b[i - 1].is_ascii_alphanumeric() || b[i - 1] == b'_' || b[i - 1] == b'.'))
        {
            let start = i;
            while i < b.len() && b[i].is_ascii_digit() {
                i += 1;
            }
            let next = b.get(i).copied();
            if !matches!(next, Some(b'.') | Some(b'f') | Some(b'x') | Some(b'e')) {
                spots.push((start, i));
            }
        } else {
            i += 1;
        }
    }
    if spots.is_empty() {
        return None;
    }
    let (s, e) = *rng.pick(&spots);
    let n: i64 = code[s..e].parse().ok()?;
    let to = match rng.below(3) {
        0 => n + 1,
        1 => n - 1,
        _ => i64::from(n == 0),
    };
    if to == n {
        return None;
    }
    let new = format!("{}{to}{}", &line[..s], &line[e..]);
    Some((new, format!("`{n}` became `{to}`")))
}

fn atomic_to_plain(line: &str, _rng: &mut Rng) -> Option<(String, String)> {
    let at = line.find("atomicAdd(")?;
    let args_start = at + "atomicAdd(".len();
    let mut depth = 1;
    let mut comma = None;
    let mut close = None;
    for (k, c) in line[args_start..].char_indices() {
        match c {
            '(' | '[' => depth += 1,
            ')' | ']' => {
                depth -= 1;
                if depth == 0 {
                    close = Some(args_start + k);
                    break;
                }
            }
            ',' if depth == 1 && comma.is_none() => comma = Some(args_start + k),
            _ => {}
        }
    }
    let (comma, close) = (comma?, close?);
    let target = line[args_start..comma].trim();
    let target = target
        .strip_prefix('&')
        .map_or(format!("*({target})"), str::to_string);
    let value = line[comma + 1..close].trim();
    let new = format!("{}{target} += {value}{}", &line[..at], &line[close + 1..]);
    Some((new, format!("`atomicAdd` became `{target} += {value}`")))
}

fn swap_operator(line: &str, rng: &mut Rng) -> Option<(String, String)> {
    let code = strip_comment(line);
    let mut spots: Vec<(usize, &str)> = Vec::new();
    for op in [" + ", " - ", " * "] {
        spots.extend(code.match_indices(op).map(|(i, _)| (i, op)));
    }
    if spots.is_empty() {
        return None;
    }
    let (at, op) = *rng.pick(&spots);
    let to = match op {
        " + " => " - ",
        " - " => " + ",
        _ => " + ",
    };
    let new = format!("{}{to}{}", &line[..at], &line[at + op.len()..]);
    Some((new, format!("`{}` became `{}`", op.trim(), to.trim())))
}

#[cfg(test)]
mod tests {
    use super::*;

    const SRC: &str = "extern \"C\" __global__ void k(float* out, const float* a, int size) {\n    int i = blockIdx.x * blockDim.x + threadIdx.x;\n    if (i < size) {\n        out[i] = a[i] + 10.0f;\n    }\n    __syncthreads();\n    for (int k = 0; k < 4; k++) { atomicAdd(&out[0], 1.0f); }\n}\n";

    #[test]
    fn every_operator_changes_the_kernel_and_says_how() {
        for op in OPERATORS {
            let mut rng = Rng::new(1);
            let mut lines: Vec<String> = SRC.lines().map(str::to_string).collect();
            let desc =
                apply(op, &mut lines, &mut rng).unwrap_or_else(|| panic!("{op} found nothing"));
            assert_ne!(lines.join("\n") + "\n", SRC, "{op}: {desc}");
            assert!(desc.starts_with("line"), "{op}: {desc}");
        }
    }

    #[test]
    fn comparisons_skip_shifts_and_arrows() {
        let ops: Vec<&str> = comparisons("if (a << 2 < b->c && x >= 3 && y != 1)")
            .iter()
            .map(|p| p.1)
            .collect();
        assert_eq!(ops, ["<", ">=", "!="]);
    }

    #[test]
    fn atomics_become_plain_read_modify_writes() {
        let mut rng = Rng::new(0);
        let (new, _) =
            atomic_to_plain("    atomicAdd(&hist[a[i] % 8], 1);", &mut rng).expect("an atomic");
        assert_eq!(new, "    hist[a[i] % 8] += 1;");
    }
}
