//! Slots counted inside a warp from a ballot (`__popc(kept & ((1u << lane) - 1))`, the number
//! of kept lanes below this one): the two ways such a slot sends threads to one element.
//!
//! - `own_bit`: `__popc(kept & (1u << lane))` keeps the lane's own bit only, so every kept
//!   lane counts 1 and gets the same slot: the lanes below are `(1u << lane) - 1`.
//! - `rank_without_offset`: the count alone (0 to 31) is the same in every warp, so the warps
//!   write the same elements: add the start of the warp's own part of the output.
//!
//! - `whole_ballot`: `__popc(kept)` counts every kept lane of the warp, the same number for
//!   all of them, so lanes of one warp write one element: count the lanes below only.
//!
//! All read the index as written and the locals it is made of, never a value.

use super::eval::split_top;
use super::source::{closing, find_word};
use super::Case;

/// The index as written on the line, then the definitions of the locals it is made of (and
/// theirs, a few levels down): (line, text).
fn pieces(c: &Case, expr: &str) -> Vec<(u32, String)> {
    let Some(l) = c.line else {
        return Vec::new();
    };
    let mut out = vec![(l, expr.to_string())];
    let mut at = 0;
    while at < out.len() && out.len() < 8 {
        let (line, text) = out[at].clone();
        for n in super::eval::names(&text) {
            if n.contains('.') {
                continue;
            }
            if let Some(d) = c.src.definition(line, &n) {
                if !out.contains(&d) {
                    out.push(d);
                }
            }
        }
        at += 1;
    }
    out
}

/// The arguments of every `__popc(...)` in `text`, as written.
fn popc_args(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut from = 0;
    while let Some(rel) = find_word(&text[from..], "__popc") {
        let start = from + rel + "__popc".len();
        let rest = &text[start..];
        let Some(open) = rest.find('(').filter(|&o| rest[..o].trim().is_empty()) else {
            from = start;
            continue;
        };
        let Some(close) = closing(rest, open) else {
            break;
        };
        out.push(rest[open + 1..close].trim().to_string());
        from = start + close;
    }
    out
}

/// `t` without parentheses that wrap all of it.
fn unwrap(t: &str) -> &str {
    let mut t = t.trim();
    while t.starts_with('(') && closing(t, 0) == Some(t.len() - 1) {
        t = t[1..t.len() - 1].trim();
    }
    t
}

/// `1u << lane` (a one shifted by the lane: the lane's own bit): (the one as written, the lane).
fn own_lane_bit(t: &str) -> Option<(String, String)> {
    let (one, lane) = unwrap(t).split_once("<<")?;
    let (one, lane) = (one.trim(), lane.trim());
    let is_one = one.trim_end_matches(['u', 'U', 'l', 'L']) == "1";
    let plain = !lane.is_empty()
        && lane
            .chars()
            .all(|ch| ch.is_alphanumeric() || ch == '_' || ch == '.' || ch == ' ' || ch == '%');
    (is_one && plain).then(|| (one.to_string(), lane.to_string()))
}

pub fn own_bit(c: &Case, expr: &str) -> Option<String> {
    for (line, text) in pieces(c, expr) {
        for arg in popc_args(&text) {
            let terms = split_top(&arg, '&');
            if terms.len() != 2 {
                continue;
            }
            // The bit may be written in place or held in a local (`unsigned bit = 1u << lane;`).
            let bit = terms.iter().enumerate().find_map(|(k, t)| {
                let t = unwrap(t);
                own_lane_bit(t)
                    .or_else(|| {
                        let word = t.chars().all(|ch| ch.is_alphanumeric() || ch == '_');
                        let (_, v) = c.src.definition(line, t).filter(|_| word)?;
                        own_lane_bit(&v)
                    })
                    .map(|b| (k, b))
            });
            let Some((k, (one, lane))) = bit else {
                continue;
            };
            let mask = unwrap(&terms[1 - k]).to_string();
            let below = format!("(({one} << {lane}) - 1)");
            let fixed = if k == 0 {
                format!("{below} & {mask}")
            } else {
                format!("{mask} & {below}")
            };
            return Some(format!("`__popc({arg})` (line {line}) keeps only this lane's own bit of `{mask}`, so it is only 0 or 1, and the lanes that keep a value all get the same slot. A lane's slot is the number of kept lanes below it: keep the bits of the lanes below `{lane}`, `__popc({fixed})`"));
        }
    }
    None
}

/// Lanes of one warp writing one element through `__popc(B)` of a whole ballot `B` (a local
/// set from `__ballot_sync`, or the call itself): every lane gets the same count. The slot is
/// the count of the kept lanes below the lane.
pub fn whole_ballot(c: &Case, expr: &str) -> Option<String> {
    for (line, text) in pieces(c, expr) {
        for arg in popc_args(&text) {
            let a = unwrap(&arg);
            let from_ballot = a.contains("__ballot_sync")
                || (a.chars().all(|ch| ch.is_alphanumeric() || ch == '_')
                    && c.src
                        .definition(line, a)
                        .is_some_and(|(_, v)| v.contains("__ballot_sync")));
            if !from_ballot || split_top(a, '&').len() > 1 {
                continue;
            }
            // The learner's name of the lane, else the lane written out.
            let mut lane = [
                "threadIdx.x % 32",
                "threadIdx.x & 31",
                "threadIdx.x % warpSize",
            ]
            .iter()
            .find_map(|v| c.src.locals_named_for(line, v).into_iter().next());
            if lane.is_none() && c.scene.block[0] == 32 {
                lane = c
                    .src
                    .locals_named_for(line, "threadIdx.x")
                    .into_iter()
                    .next();
            }
            let lane = lane.unwrap_or_else(|| "threadIdx.x % 32".into());
            return Some(format!("`__popc({arg})` (line {line}) counts every kept lane of the warp: it is the same number for all of them, so the kept lanes all write one element. A lane's slot is the number of kept lanes below it: `__popc({a} & ((1u << {lane}) - 1))`"));
        }
    }
    None
}

/// The index is a count of lanes (`__popc(...)`, or a local holding one) and nothing else: it
/// runs from 0 to 31 in every warp alike. `other` names the thread that wrote the element too.
pub fn rank_without_offset(
    c: &Case,
    short: &str,
    expr: &str,
    other: &str,
    idx: i128,
) -> Option<String> {
    let whole_count = |t: &str| {
        let t = unwrap(t);
        t.starts_with("__popc")
            && t.find('(')
                .and_then(|o| closing(t, o))
                .is_some_and(|cl| cl == t.len() - 1)
    };
    let e = unwrap(expr);
    let counted = whole_count(e)
        || (e.chars().all(|ch| ch.is_alphanumeric() || ch == '_')
            && c.line
                .and_then(|l| c.src.definition(l, e))
                .is_some_and(|(_, v)| whole_count(&v)));
    let b = c.scene.block;
    if !counted || b[1] > 1 || b[2] > 1 || !b[0].is_multiple_of(32) {
        return None;
    }
    let offset = if b[0] == 32 {
        "blockIdx.x * 32".to_string()
    } else {
        // The warp's first element: the learner's global index rounded down to 32.
        let global = c.line.and_then(|l| {
            [
                "blockIdx.x * blockDim.x + threadIdx.x",
                "threadIdx.x + blockIdx.x * blockDim.x",
                "blockDim.x * blockIdx.x + threadIdx.x",
            ]
            .iter()
            .find_map(|v| c.src.locals_named_for(l, v).into_iter().next())
        });
        match global {
            Some(i) => format!("{i} / 32 * 32"),
            None => "(blockIdx.x * blockDim.x + threadIdx.x) / 32 * 32".into(),
        }
    };
    let one_warp = if b[0] == 32 {
        " (a block is one warp here, so that is the block's start)"
    } else {
        ""
    };
    Some(format!("the index `{expr}` of `{short}[{expr}]` counts lanes inside the warp, 0 to 31, the same numbers in every warp, so every warp packs its values into the front of {short} and the warps overwrite each other ({other} wrote {short}[{idx}] too). Each warp's values belong in its own part of {short}: add the start of that part, `{short}[{offset} + {e}]`{one_warp}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn popc_arguments_and_lane_bits_are_read_as_written() {
        assert_eq!(
            popc_args("int s = __popc(m & ((1u << l) - 1)) + __popc (x);"),
            ["m & ((1u << l) - 1)", "x"]
        );
        assert_eq!(
            own_lane_bit("(1u << lane)"),
            Some(("1u".into(), "lane".into()))
        );
        assert_eq!(
            own_lane_bit("1 << threadIdx.x % 32"),
            Some(("1".into(), "threadIdx.x % 32".into()))
        );
        assert_eq!(own_lane_bit("(1u << lane) - 1"), None);
        assert_eq!(own_lane_bit("2u << lane"), None);
        assert_eq!(unwrap("((a) & (b))"), "(a) & (b)");
    }
}
