//! What gpuzzle says, through the real binary: compile errors drawn over the source once (in
//! `run`, `check` and `watch`), a step limit named as the loop that never ends, JUnit testcases
//! with time, file and line, puzzle-file errors at the key's line in the format's words, the
//! "no GPU" line only where it matters, `--help`'s groups, and completions of puzzle names.
//! Kernels are compiled, so these need NVRTC (`pip install nvidia-cuda-nvrtc-cu12`).

mod cli_support;

use assert_cmd::Command;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

const BIN: &str = env!("CARGO_BIN_EXE_gpuzzle");

fn gpuzzle() -> Command {
    let mut c = Command::cargo_bin("gpuzzle").expect("binary builds");
    c.env("NO_COLOR", "1")
        .env("GPUZZLE_BACKEND", "emu")
        // A runaway loop is stopped by its step limit, the same on any machine: a wall clock
        // (once a second here) would stop it first on a busy one, as a backstop that claims
        // no endless loop.
        .env_remove("GPUZZLE_TIME_LIMIT")
        .env_remove("GPUZZLE_PUZZLES");
    c
}

/// A fresh workspace made by `gpuzzle init`: (its temporary parent, the workspace).
fn workspace() -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let ws = dir.path().join("ws");
    gpuzzle().arg("init").arg(&ws).assert().success();
    (dir, ws)
}

fn in_ws(ws: &Path) -> Command {
    let mut c = gpuzzle();
    c.current_dir(ws);
    c
}

struct Ran {
    code: Option<i32>,
    stdout: String,
    stderr: String,
}

fn run(mut c: Command, args: &[&str]) -> Ran {
    let out = c.args(args).output().unwrap();
    Ran {
        code: out.status.code(),
        stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
    }
}

/// The 1-based line of `text` that contains `needle`.
fn line_of(text: &str, needle: &str) -> usize {
    text.lines()
        .position(|l| l.contains(needle))
        .unwrap_or_else(|| panic!("no `{needle}` in:\n{text}"))
        + 1
}

/// Guard (puzzle 3) with an undeclared identifier on its third line.
const UNDECLARED: &str =
    "extern \"C\" __global__ void guard(float* out, const float* a, int size) {
    int local_i = threadIdx.x;
    if (local_i < size) out[local_i] = a[local_i] + 10 + undefined_thing;
}
";

#[test]
fn a_compile_error_is_drawn_over_its_line_once_in_run_and_check() {
    let (_dir, ws) = workspace();
    std::fs::write(ws.join("puzzles/03_guard.cu"), UNDECLARED).unwrap();

    let r = run(in_ws(&ws), &["run", "3"]);
    println!("{}", r.stdout);
    assert_eq!(r.code, Some(1), "{}", r.stderr);
    let what = "identifier \"undefined_thing\" is undefined";
    assert_eq!(r.stdout.matches(what).count(), 1, "{}", r.stdout);
    assert_eq!(r.stdout.matches("DOES NOT COMPILE").count(), 1);
    assert!(!r.stdout.contains("does not compile"), "{}", r.stdout);
    assert!(r.stdout.contains("error: identifier"), "{}", r.stdout);
    assert!(
        r.stdout.contains("--> puzzles/03_guard.cu:3:58"),
        "{}",
        r.stdout
    );
    // The source line, then carets under the identifier NVRTC points at.
    let lines: Vec<&str> = r.stdout.lines().collect();
    let code = lines
        .iter()
        .position(|l| l.contains("3 |") && l.contains("+ undefined_thing;"))
        .unwrap_or_else(|| panic!("no source line:\n{}", r.stdout));
    let carets = lines[code + 1];
    assert_eq!(
        carets.find('^'),
        lines[code].find("undefined_thing"),
        "{}",
        r.stdout
    );
    assert_eq!(carets.matches('^').count(), "undefined_thing".len());
    assert!(
        !r.stderr.contains(what),
        "said again on stderr: {}",
        r.stderr
    );

    let r = run(in_ws(&ws), &["check", "3"]);
    println!("{}", r.stdout);
    assert_eq!(r.code, Some(1));
    assert_eq!(r.stdout.matches(what).count(), 1, "{}", r.stdout);
    assert_eq!(r.stdout.matches("does not compile").count(), 1);
    assert!(r.stdout.contains("at 03_guard.cu:3"), "{}", r.stdout);
}

/// Map (puzzle 1) with the `;` left off line 5, a blank line 6 and the `}` on line 7.
const NO_SEMICOLON: &str = "// Puzzle 1 · Map
// the starter's comment
extern \"C\" __global__ void map(float* out, const float* a) {
    int local_i = threadIdx.x;
    out[local_i] = a[local_i] + 10.0f

}
";

#[test]
fn a_missing_semicolon_is_shown_at_the_end_of_its_line_not_at_the_next_token() {
    let (_dir, ws) = workspace();
    std::fs::write(ws.join("puzzles/01_map.cu"), NO_SEMICOLON).unwrap();

    let r = run(in_ws(&ws), &["run", "1"]);
    println!("{}", r.stdout);
    assert_eq!(r.code, Some(1), "{}", r.stderr);
    assert!(
        r.stdout.contains(
            "error: expected a \";\" at the end of this line\n   --> puzzles/01_map.cu:5:38\n"
        ),
        "{}",
        r.stdout
    );
    // The caret just past the line's last character, and NVRTC's own place as a note.
    let lines: Vec<&str> = r.stdout.lines().collect();
    let code = line_of(&r.stdout, "5 |     out[local_i] = a[local_i] + 10.0f");
    let source_line = lines[code - 1].trim_end();
    assert_eq!(
        lines[code].find('^'),
        Some(source_line.len()),
        "{}",
        r.stdout
    );
    assert_eq!(lines[code].matches('^').count(), 1, "{}", r.stdout);
    assert!(
        r.stdout
            .contains("= note: NVRTC reported it at 7:1, at the next token"),
        "{}",
        r.stdout
    );
    assert!(!r.stdout.contains("7 | }"), "{}", r.stdout);

    let r = run(in_ws(&ws), &["check", "1"]);
    assert!(
        r.stdout
            .contains("FAIL  does not compile: expected a \";\" at the end of 01_map.cu:5\n"),
        "{}",
        r.stdout
    );

    let r = run(in_ws(&ws), &["check", "1", "--format", "json"]);
    assert_eq!(r.code, Some(1), "{}", r.stderr);
    assert!(
        r.stdout.contains(
            "puzzles/01_map.cu:5:38: error: expected a \\\";\\\" at the end of this line\\nNVRTC reported it at 7:1, at the next token"
        ),
        "{}",
        r.stdout
    );
}

#[test]
fn watch_draws_a_compile_error_once_per_grade() {
    let (_dir, ws) = workspace();
    std::fs::write(ws.join("puzzles/03_guard.cu"), UNDECLARED).unwrap();
    let mut child = std::process::Command::new(BIN)
        .args(["watch", "3"])
        .current_dir(&ws)
        .env("GPUZZLE_BACKEND", "emu")
        .env("NO_COLOR", "1")
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let rx = cli_support::stdout_chunks(&mut child);
    let mut text = String::new();
    let start = Instant::now();
    // The verdict is complete once the hint line after it is out.
    while !text.contains("Stuck?") {
        assert!(
            start.elapsed() < Duration::from_secs(120),
            "no verdict:\n{text}"
        );
        if let Ok(s) = rx.recv_timeout(Duration::from_millis(50)) {
            text.push_str(&s);
        }
    }
    std::thread::sleep(Duration::from_millis(500));
    while let Ok(s) = rx.try_recv() {
        text.push_str(&s);
    }
    let _ = child.kill();
    let _ = child.wait();
    println!("{text}");
    let what = "identifier \"undefined_thing\" is undefined";
    assert_eq!(text.matches(what).count(), 1, "{text}");
    assert!(text.contains("--> puzzles/03_guard.cu:3:58"), "{text}");
}

#[test]
fn a_step_limit_in_a_loop_names_the_loop_and_its_condition() {
    let (_dir, ws) = workspace();
    // A loop whose test reads memory nothing in it changes: it has a way out, never taken.
    let stuck = "extern \"C\" __global__ void guard(float* out, const float* a, int size) {
    int local_i = threadIdx.x;
    if (local_i >= size) return;
    out[local_i] = 0.0f;
    while (a[local_i] < 100.0f) {
        out[local_i] += 1.0f;
    }
}
";
    std::fs::write(ws.join("puzzles/03_guard.cu"), stuck).unwrap();
    let r = run(in_ws(&ws), &["run", "3"]);
    println!("{}", r.stdout);
    assert_eq!(r.code, Some(1));
    assert!(
        r.stdout.contains(
            "error[step-limit]: the loop on line 5 never ends: its condition `a[local_i] < 100.0f` stays true for thread"
        ),
        "{}",
        r.stdout
    );
    assert!(
        r.stdout.contains("--> puzzles/03_guard.cu:5"),
        "{}",
        r.stdout
    );

    // The learner's classic: a step that computes a value and drops it. NVRTC folds the test
    // away, so the loop body is all the PTX has; the `for` line above it is named.
    let reduction = std::fs::read_to_string(ws.join("solutions/12_block_sum.cu"))
        .or_else(|_| {
            std::fs::read_to_string(
                Path::new(env!("CARGO_MANIFEST_DIR")).join("solutions/12_block_sum.cu"),
            )
        })
        .unwrap();
    let broken = reduction.replace("stride /= 2)", "stride * 2)");
    assert_ne!(
        broken, reduction,
        "the solution's loop changed; update this test"
    );
    let for_line = line_of(&broken, "stride * 2)");
    std::fs::write(ws.join("puzzles/12_block_sum.cu"), &broken).unwrap();
    let r = run(in_ws(&ws), &["run", "12"]);
    println!("{}", r.stdout);
    assert_eq!(r.code, Some(1));
    let named = format!("the loop on line {for_line} never ends");
    assert!(r.stdout.contains(&named), "{}", r.stdout);
    assert!(r.stdout.contains("`stride > 0`"), "{}", r.stdout);
    // The NVRTC warning about the dropped value is shown over the same line.
    assert!(r.stdout.contains("warning: expression has no effect"));

    // JUnit points each failing testcase at the loop's line.
    let r = run(in_ws(&ws), &["check", "12", "--format", "junit"]);
    assert_eq!(r.code, Some(1));
    for case in r.stdout.split("<testcase ").skip(1) {
        let tag = &case[..case.find('>').unwrap()];
        assert!(
            tag.contains(&format!(
                "file=\"puzzles/12_block_sum.cu\" line=\"{for_line}\""
            )),
            "{tag}"
        );
    }
}

/// The attributes of each `<testcase ...>` tag of a JUnit report, and whether it failed.
fn testcases(xml: &str) -> Vec<(String, bool)> {
    xml.split("<testcase ")
        .skip(1)
        .map(|case| {
            let tag = case[..case.find('>').unwrap()].to_string();
            let end = case.find("</testcase>").unwrap_or(case.len());
            (tag, case[..end].contains("<failure "))
        })
        .collect()
}

#[test]
fn junit_gives_time_file_and_line_and_fails_each_test_on_a_compile_error() {
    let (_dir, ws) = workspace();
    std::fs::write(ws.join("puzzles/03_guard.cu"), UNDECLARED).unwrap();
    let solution =
        std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("solutions/02_zip.cu"))
            .unwrap();
    std::fs::write(ws.join("puzzles/02_zip.cu"), solution).unwrap();
    let r = run(in_ws(&ws), &["check", "2", "3", "--format", "junit"]);
    println!("{}", r.stdout);
    assert_eq!(r.code, Some(1));
    let xml = &r.stdout;
    assert!(xml.starts_with("<?xml"), "{xml}");
    assert!(
        !xml.contains("name=\"compile\""),
        "an invented testcase: {xml}"
    );
    // Every testcase is a child of a testsuite, and every failure of a testcase.
    assert_eq!(
        xml.matches("<testsuite ").count(),
        xml.matches("</testsuite>").count()
    );
    assert_eq!(xml.matches("<testsuite ").count(), 2);
    let cases = testcases(xml);
    let zip: Vec<_> = cases
        .iter()
        .filter(|(t, _)| t.contains("classname=\"gpuzzle.02_zip\""))
        .collect();
    let guard: Vec<_> = cases
        .iter()
        .filter(|(t, _)| t.contains("classname=\"gpuzzle.03_guard\""))
        .collect();
    assert!(zip.len() >= 2 && guard.len() >= 2, "{xml}");
    for (tag, failed) in &zip {
        assert!(!failed, "{tag}");
        assert!(tag.contains("file=\"puzzles/02_zip.cu\""), "{tag}");
        assert!(tag.contains(" time=\""), "{tag}");
    }
    // The compile error fails each of guard's tests, at the error's line.
    for (tag, failed) in &guard {
        assert!(failed, "{tag}");
        assert!(
            tag.contains("file=\"puzzles/03_guard.cu\" line=\"3\""),
            "{tag}"
        );
        assert!(tag.contains(" time=\""), "{tag}");
    }
    let tests = cases.len();
    let failures = guard.len();
    assert!(
        xml.contains(&format!(
            "<testsuites name=\"gpuzzle\" tests=\"{tests}\" failures=\"{failures}\""
        )),
        "{xml}"
    );
    // No phrase said twice in a failure's message.
    for message in xml.split("message=\"").skip(1) {
        let message = &message[..message.find('"').unwrap()];
        assert_eq!(message.matches("compile").count(), 1, "{message}");
        assert_eq!(message.matches("undefined_thing").count(), 1, "{message}");
    }
}

#[test]
fn puzzle_file_errors_point_at_the_key_in_the_formats_words() {
    let dir = tempfile::tempdir().unwrap();
    let repo = Path::new(env!("CARGO_MANIFEST_DIR"));
    let toml = std::fs::read_to_string(repo.join("puzzles/03_guard.toml")).unwrap();
    let starter = std::fs::read_to_string(repo.join("puzzles/03_guard.cu")).unwrap();
    let check = |text: &str, expected: &str| {
        std::fs::write(dir.path().join("03_guard.toml"), text).unwrap();
        std::fs::write(dir.path().join("03_guard.cu"), &starter).unwrap();
        let mut c = gpuzzle();
        c.current_dir(dir.path());
        let r = run(c, &["list", "--puzzles", "."]);
        // `list` shows a broken file's errors as `file:line: error: message`.
        let all = format!("{}{}", r.stdout, r.stderr).replace(": error: ", ": ");
        assert!(all.contains(expected), "wanted {expected:?} in:\n{all}");
        assert!(!all.contains("panicked"), "{all}");
    };
    let text = toml.replace("hints = [", "hint = [");
    let line = line_of(&text, "hint = [");
    check(
        &text,
        &format!("03_guard.toml:{line}: `hint`: unknown field `hint`; did you mean `hints`?"),
    );
    let text = toml.replace("{ len = 4, output = true }", "{ len = 4, outptu = true }");
    let line = line_of(&text, "outptu");
    check(
        &text,
        &format!(
            "03_guard.toml:{line}: `test[0].buffers.out.outptu`: unknown field `outptu`; did you mean `output`?"
        ),
    );
    let text = toml.replace("scalars = { size = 4 }", "scalars = { size = \"four\" }");
    let line = line_of(&text, "\"four\"");
    check(
        &text,
        &format!(
            "03_guard.toml:{line}: `test[0].scalars.size`: expected i32, found the string \"four\""
        ),
    );
    let text = toml.replace("scalars = { size = 4 }", "scalars = { size = 4.5 }");
    let line = line_of(&text, "4.5");
    check(
        &text,
        &format!("03_guard.toml:{line}: `test[0].scalars.size`: expected i32, found 4.5"),
    );
    let text = toml.replace("{ len = 4, output = true }", "{ len = 4.5, output = true }");
    let line = line_of(&text, "4.5");
    check(
        &text,
        &format!(
            "03_guard.toml:{line}: `test[0].buffers.out.len`: expected a whole number (0 or more), found the number `4.5`"
        ),
    );
}

#[test]
fn the_no_gpu_line_is_said_only_with_verbose_and_never_before_a_usage_error() {
    let (_dir, ws) = workspace();
    let auto = || {
        let mut c = in_ws(&ws);
        c.env_remove("GPUZZLE_BACKEND");
        c
    };
    for args in [
        &["run", "nosuch"][..],
        &["-v", "check", "nosuch"],
        &["-v", "run", "nosuch"],
    ] {
        let r = run(auto(), args);
        assert_eq!(r.code, Some(2), "{args:?}");
        assert!(r.stderr.contains("no puzzle `nosuch`"), "{}", r.stderr);
        assert!(!r.stderr.contains("GPU"), "{args:?}: {}", r.stderr);
    }
    let r = run(auto(), &["run", "1"]);
    assert_eq!(r.code, Some(1));
    assert!(!r.stderr.contains("no GPU"), "{}", r.stderr);
    let r = run(auto(), &["-v", "run", "1"]);
    assert_eq!(r.code, Some(1));
    // Which one depends on the machine; one of them is said, once.
    let said = r.stderr.matches("no GPU").count() + r.stderr.matches("running on the GPU").count();
    assert_eq!(said, 1, "{}", r.stderr);
    // doctor says it in its own words.
    let r = run(auto(), &["doctor"]);
    assert!(
        r.stdout.contains("no GPU") || r.stdout.contains("GPU "),
        "{}",
        r.stdout
    );
}

#[test]
fn help_groups_the_global_options_and_describes_every_value() {
    let r = run(gpuzzle(), &["run", "--help"]);
    assert_eq!(r.code, Some(0));
    let own = r.stdout.find("Options:").expect("own options");
    let global = r.stdout.find("Global options:").expect("a global group");
    assert!(own < global, "{}", r.stdout);
    for flag in ["--color", "--quiet", "--verbose", "--puzzles"] {
        let at = r.stdout.find(flag).unwrap_or_else(|| panic!("{flag}"));
        assert!(
            at > global,
            "{flag} is not under Global options:\n{}",
            r.stdout
        );
    }
    let r = run(gpuzzle(), &["check", "--help"]);
    for value in ["- text:", "- json:", "- junit:", "- github:"] {
        assert!(r.stdout.contains(value), "{value}:\n{}", r.stdout);
    }
    let r = run(gpuzzle(), &["completions", "--help"]);
    assert!(
        r.stdout.contains("The shell to complete in"),
        "{}",
        r.stdout
    );
}

#[test]
fn completions_offer_puzzle_numbers_and_names() {
    let r = run(gpuzzle(), &["completions", "bash"]);
    assert_eq!(r.code, Some(0));
    let fish = run(gpuzzle(), &["completions", "fish"]).stdout;
    assert!(fish.contains("-a 'pooling' -d '9 · Pooling'"), "{fish}");
    let zsh = run(gpuzzle(), &["completions", "zsh"]).stdout;
    assert!(zsh.contains("pooling"), "zsh script has no puzzle names");
    // Drive the bash function as bash's completion would.
    let dir = tempfile::tempdir().unwrap();
    let script = dir.path().join("gpuzzle.bash");
    std::fs::write(&script, &r.stdout).unwrap();
    let complete = |line: &[&str]| -> Option<String> {
        let words = line.join(" ");
        let probe = format!(
            "source '{}'; COMP_WORDS=({words}); COMP_CWORD={}; COMP_LINE='{words}'; COMP_POINT=${{#COMP_LINE}}; _gpuzzle gpuzzle '{}' '{}'; echo \"${{COMPREPLY[*]}}\"",
            script.display(),
            line.len() - 1,
            line[line.len() - 1],
            line[line.len() - 2],
        );
        let out = std::process::Command::new("bash")
            .args(["-c", &probe])
            .output()
            .ok()?;
        Some(String::from_utf8_lossy(&out.stdout).trim().to_string())
    };
    let Some(pool) = complete(&["gpuzzle", "run", "pool"]) else {
        eprintln!("skipped the bash check: no bash on this machine");
        return;
    };
    assert_eq!(pool, "pooling");
    let hints = complete(&["gpuzzle", "hint", "1"]).unwrap();
    assert!(hints.split(' ').any(|w| w == "12"), "{hints}");
    let checks = complete(&["gpuzzle", "check", "9", "dot-p"]).unwrap();
    assert_eq!(checks, "dot-product");
}
