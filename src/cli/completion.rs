//! What `gpuzzle completions SHELL` completes beyond commands and options: the puzzle of every
//! command that takes one, as a number (`9`, `09`) or a slug (`pooling`), from the embedded
//! pack. Only the command given to the script generator gets these values: parsing still
//! accepts any name, so puzzles from `--puzzles DIR` keep working (they just do not complete).

use clap::builder::{PossibleValue, PossibleValuesParser};
use clap::{Arg, Command};

/// `cmd` with every puzzle argument (`[PUZZLE]`) offering the pack's numbers and slugs.
pub fn with_puzzle_names(cmd: Command) -> Command {
    match crate::puzzle::embedded_puzzles() {
        Ok(pack) => {
            let values = candidates(
                pack.iter()
                    .map(|p| (p.id, p.slug.as_str(), p.title.as_str())),
            );
            attach(cmd, &values)
        }
        // The pack is compiled in and checked by the test suite; without it there is just
        // nothing to offer, which is no reason to fail the script.
        Err(_) => cmd,
    }
}

/// fish lines completing the puzzle argument of each command that takes one (clap's fish
/// script completes options and commands, not positional values).
pub fn fish_puzzle_lines(cmd: &Command) -> String {
    let Ok(pack) = crate::puzzle::embedded_puzzles() else {
        return String::new();
    };
    let commands: Vec<&str> = cmd
        .get_subcommands()
        .filter(|s| s.get_arguments().any(is_puzzle_arg))
        .map(|s| s.get_name())
        .collect();
    if commands.is_empty() {
        return String::new();
    }
    let when = format!("__fish_seen_subcommand_from {}", commands.join(" "));
    let mut out = String::from("# Puzzle numbers and names, from gpuzzle's own pack.\n");
    for p in &pack {
        let title = p.title.replace('\'', "\\'");
        for value in [p.id.to_string(), p.slug.clone()] {
            out += &format!(
                "complete -c gpuzzle -n \"{when}\" -f -a '{value}' -d '{} · {title}'\n",
                p.id
            );
        }
    }
    out
}

/// Each puzzle as `9`, `09` and its slug, with its title as the description (zsh and fish
/// show it).
fn candidates<'a>(puzzles: impl Iterator<Item = (u32, &'a str, &'a str)>) -> Vec<PossibleValue> {
    // clap's names are `&'static str` (without its `string` feature): this runs once, in a
    // process that prints the script and exits, so the few names are leaked, not kept around.
    let name = |s: String| -> &'static str { Box::leak(s.into_boxed_str()) };
    let mut values = Vec::new();
    for (id, slug, title) in puzzles {
        let help = format!("{id} · {title}");
        values.push(PossibleValue::new(name(id.to_string())).help(help.clone()));
        if id < 10 {
            values.push(
                PossibleValue::new(name(format!("{id:02}")))
                    .help(help.clone())
                    .hide(true),
            );
        }
        values.push(PossibleValue::new(name(slug.to_string())).help(help));
    }
    values
}

fn attach(cmd: Command, values: &[PossibleValue]) -> Command {
    let cmd = cmd.mut_args(|a| {
        if is_puzzle_arg(&a) {
            a.value_parser(PossibleValuesParser::new(values.to_vec()))
        } else {
            a
        }
    });
    cmd.mut_subcommands(|sub| attach(sub, values))
}

/// A positional argument whose value is a puzzle (named `PUZZLE` in `--help`).
fn is_puzzle_arg(a: &Arg) -> bool {
    a.is_positional()
        && a.get_value_names()
            .is_some_and(|names| names.iter().any(|n| n.as_str() == "PUZZLE"))
        || a.get_id().as_str() == "puzzle"
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::CommandFactory;

    fn script(shell: clap_complete::Shell) -> String {
        let mut out = Vec::new();
        let mut cmd = with_puzzle_names(crate::cli::Cli::command());
        clap_complete::generate(shell, &mut cmd, "gpuzzle", &mut out);
        String::from_utf8(out).unwrap()
    }

    #[test]
    fn every_puzzle_command_completes_numbers_and_slugs() {
        let pack = crate::puzzle::embedded_puzzles().unwrap();
        let cmd = with_puzzle_names(crate::cli::Cli::command());
        let mut with_values = Vec::new();
        for sub in cmd.get_subcommands() {
            for a in sub.get_arguments().filter(|a| is_puzzle_arg(a)) {
                let offered: Vec<String> = a
                    .get_possible_values()
                    .iter()
                    .map(|v| v.get_name().to_string())
                    .collect();
                for p in &pack {
                    assert!(
                        offered.contains(&p.id.to_string()),
                        "{}: {}",
                        sub.get_name(),
                        p.id
                    );
                    assert!(offered.contains(&p.slug), "{}: {}", sub.get_name(), p.slug);
                }
                with_values.push(sub.get_name().to_string());
            }
        }
        for name in ["run", "check", "hint", "show", "reset", "watch", "bench"] {
            assert!(
                with_values.iter().any(|n| n == name),
                "{name}: {with_values:?}"
            );
        }
    }

    #[test]
    fn scripts_hold_the_slugs() {
        let pack = crate::puzzle::embedded_puzzles().unwrap();
        let slug = &pack[0].slug;
        for shell in [
            clap_complete::Shell::Bash,
            clap_complete::Shell::Zsh,
            clap_complete::Shell::Fish,
        ] {
            let mut s = script(shell);
            if shell == clap_complete::Shell::Fish {
                s += &fish_puzzle_lines(&crate::cli::Cli::command());
            }
            assert!(s.contains(slug.as_str()), "{shell}: no {slug}");
        }
        let fish = fish_puzzle_lines(&crate::cli::Cli::command());
        assert!(fish.contains(&format!("-f -a '{slug}' -d '1 · ")), "{fish}");
        assert!(fish.contains("__fish_seen_subcommand_from run "), "{fish}");
    }
}
