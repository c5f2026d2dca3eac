//! Warp-synchronous operations whose mask names lanes that are not there: the `if` around the
//! call that the named lanes skip, the early `return` they took, or the other operation they
//! wait at; a shuffle reading a lane that is gone.

use super::Case;
use crate::emu::facts::{Facts, LaneState, WarpSyncFacts};

pub fn help(c: &Case) -> String {
    let Facts::WarpSync(f) = &c.d.facts else {
        return "every lane named in the mask must execute the same __shfl_sync/__ballot_sync/__syncwarp".into();
    };
    let other =
        c.d.other_line
            .filter(|&l| l > 0)
            .map_or(String::new(), |l| format!(" (line {l})"));
    match f {
        WarpSyncFacts::MaskWithoutSelf { mask } => format!("the mask {mask:#010x} must include the calling lane: use 0xffffffff when the whole warp makes the call, or a mask of the lanes that really take this path (from `__ballot_sync(0xffffffff, condition)` before the branch)"),
        WarpSyncFacts::LaneMissing {
            mask,
            lane,
            lane_state,
            ..
        } => {
            let guard = c
                .line
                .and_then(|l| c.src.guards(l).into_iter().find(|g| !g.returns));
            if let Some(op) = c.line.and_then(|l| aligned_op_at(c, l)) {
                let place = match &guard {
                    Some(g) => format!("the call is inside `if ({})` (line {}), which lane {lane} does not enter", g.cond, g.line),
                    None => format!("lane {lane} never reaches it{other}"),
                };
                return format!("`{op}` is `.aligned`: all 32 lanes of the warp must execute it together, and it takes no mask; {place}. Let every lane of the warp make the call (a lane with nothing to contribute passes zeros) and put the `if` around the loads and stores instead");
            }
            if let (Some(g), LaneState::Exited | LaneState::Elsewhere | LaneState::AtOtherWarpOp | LaneState::AtBarrier) = (&guard, lane_state) {
                let neutral = neutral_value(c.line.map_or("", |l| c.src.line(l)));
                return format!("the call is inside `if ({})` (line {}), which lane {lane} does not enter, but the mask {mask:#010x} names it. Make the call outside the if (before it), with every lane of the mask ({neutral}), or give it only the lanes that enter: `unsigned m = __ballot_sync(0xffffffff, {});` before the if", g.cond, g.line, g.cond);
            }
            match lane_state {
                LaneState::Exited => format!("lane {lane} has already finished{other} (it took another path past the call, or returned early), but the mask {mask:#010x} names it: do not return before a warp operation, nor put it in a branch some lanes of the mask skip; guard the work instead and let every lane of the mask reach the call"),
                LaneState::AtBarrier => format!("lane {lane} waits at a __syncthreads(){other} instead: every lane of the mask must reach this same call; check the branches that lead to it"),
                LaneState::AtOtherWarpOp => format!("lane {lane} waits at a different warp operation{other}: the lanes of a mask must make the same __shfl_sync/__ballot_sync/__syncwarp call together; do not place it in different branches"),
                LaneState::Elsewhere => format!("lane {lane} is elsewhere in the code{other}, not at this call: every lane named in the mask must reach it; compute the mask from the lanes that take this path, or move the call out of the branch"),
            }
        }
        WarpSyncFacts::ShuffleFromAbsent {
            src_lane,
            exited,
            exists,
        } => {
            if !exists {
                format!("there is no lane {src_lane} in this block: check the source lane of the shuffle (e.g. `lane + offset < width`) and the block size")
            } else if *exited {
                format!("lane {src_lane} finished before the shuffle (it took another path past it, or returned early): keep every lane alive and on the shuffle's path until the shuffles are done (give out-of-range lanes 0 instead of returning or skipping)")
            } else {
                format!("lane {src_lane} does not take part in this shuffle (not in the mask, or elsewhere in the code): every lane read from must make the same __shfl_*_sync call and be in its mask")
            }
        }
    }
}

/// The tensor-core instruction (`mma.sync`, `ldmatrix`, `stmatrix`, `movmatrix`) written as
/// inline PTX in the statement ending at `line`, if that is one (NVRTC puts a multi-line `asm`
/// statement's location on its last line).
fn aligned_op_at(c: &Case, line: u32) -> Option<&'static str> {
    for l in (line.saturating_sub(4).max(1)..=line).rev() {
        let code = c.src.line(l);
        for op in ["mma.sync", "ldmatrix", "stmatrix", "movmatrix"] {
            if code.contains(op) {
                return Some(op);
            }
        }
        if l != line && code.trim_end().ends_with(';') {
            return None;
        }
    }
    None
}

/// What a lane with nothing of its own passes to the collective on `code`, by what the
/// collective does: a key no real one equals for a match (0 may be a real key), the vote's
/// neutral for a vote, the identity of the fold for a shuffle (0 for a sum, -INFINITY for a
/// max).
fn neutral_value(code: &str) -> &'static str {
    if code.contains("__match_any_sync") || code.contains("__match_all_sync") {
        "a lane with no key of its own passes a value no real key takes and ignores what it gets back; 0 is no such value where 0 can be a key"
    } else if code.contains("__all_sync") {
        "a lane with nothing to vote passes true, which leaves the vote as it is"
    } else if code.contains("__ballot_sync") || code.contains("__any_sync") {
        "a lane with nothing to vote passes false"
    } else if code.contains("fmaxf") || code.contains("max(") {
        "a lane with nothing to compare passes -INFINITY, which no maximum keeps"
    } else if code.contains("fminf") || code.contains("min(") {
        "a lane with nothing to compare passes INFINITY, which no minimum keeps"
    } else if code.contains('*') && !code.contains('+') {
        "a lane with nothing to multiply passes 1"
    } else {
        "a lane with nothing to add passes 0"
    }
}

#[cfg(test)]
mod tests {
    use super::neutral_value;

    #[test]
    fn the_neutral_value_follows_the_collective() {
        let m = neutral_value("peers = __match_any_sync(0xffffffff, key);");
        assert!(m.contains("no real key") && !m.ends_with("passes 0"), "{m}");
        let m = neutral_value("unsigned same = __match_all_sync(mask, bin, &pred);");
        assert!(m.contains("0 is no such value"), "{m}");
        assert!(neutral_value("v += __shfl_down_sync(0xffffffff, v, o);").ends_with("passes 0"));
        assert!(
            neutral_value("m = fmaxf(m, __shfl_xor_sync(0xffffffff, m, o));").contains("-INFINITY")
        );
        assert!(neutral_value("ok = __all_sync(0xffffffff, x > 0);").contains("passes true"));
        assert!(neutral_value("b = __ballot_sync(0xffffffff, keep);").contains("passes false"));
    }
}
