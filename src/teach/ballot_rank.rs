//! A lane's rank among a ballot's lanes counted the wrong way: `__popc(kept >> lane)` counts
//! the lane itself and the lanes above it, so a compaction stores the kept values in reverse
//! lane order. Said where the shifted mask comes from `__ballot_sync` and the output holds
//! the right values at the wrong places (moved in any order, or by a constant shift).

use super::source::{closing, find_word};
use super::wrong::Seen;
use crate::judge::pattern::OutputPattern;

pub fn explain(w: &Seen) -> Option<String> {
    if !matches!(
        w.pattern,
        Some(OutputPattern::Permuted | OutputPattern::Shifted { .. })
    ) {
        return None;
    }
    for l in 1..=w.src.lines() {
        let code = w.src.line(l);
        let Some(at) = code.find("__popc(") else {
            continue;
        };
        // The argument, up to the `)` that closes the call.
        let open = at + "__popc".len();
        let Some(close) = closing(code, open) else {
            continue;
        };
        let Some((mask, lane)) = code[open + 1..close].split_once(">>") else {
            continue;
        };
        let (mask, lane) = (mask.trim(), lane.trim());
        // The mask is a ballot's.
        let from_ballot = (1..=l).any(|p| {
            let t = w.src.line(p);
            find_word(t, mask).is_some_and(|m| t[m..].contains("__ballot_sync"))
        });
        // The rank places this output's elements: on the line, or through the local it sets.
        let slot = code[..at]
            .split('=')
            .next()
            .and_then(|lhs| lhs.split_whitespace().last())
            .unwrap_or("");
        let places = find_word(code, w.name).is_some()
            || (!slot.is_empty() && super::wrong::reaches(w.src, w.name, slot));
        // A shift by the lane itself (`lane`, `threadIdx.x & 31`): `lane + 1` counts another
        // set of lanes, whose fix is not this one.
        let own_lane = !lane.contains(['+', '-']);
        if !from_ballot || !places || !own_lane || mask.is_empty() || lane.is_empty() {
            continue;
        }
        let after = &code[close + 1..];
        let minus = if super::eval::canonical(after).starts_with("-1") {
            " (no `- 1` after it: the count of the lanes below is already the place)"
        } else {
            ""
        };
        return Some(format!(
            "`__popc({mask} >> {lane})` on line {l} counts this lane and the lanes above it, so the first kept lane gets the last place: the kept values come out in reverse lane order. A lane's place in lane order is the number of kept lanes below it, the mask of the lower lanes: `__popc({mask} & ((1u << {lane}) - 1))`{minus}."
        ));
    }
    None
}

#[cfg(test)]
mod tests {
    use super::super::wrong::tests::{said, scene};
    use super::*;

    const SRC: &str = "__global__ void pick(int* dst, const int* src, int n) {\n    int me = threadIdx.x & 31;\n    int x = src[threadIdx.x];\n    unsigned hits = __ballot_sync(0xffffffffu, x % 2 == 0);\n    if (x % 2 == 0) dst[__popc(hits >> me) - 1] = x;\n}\n";

    #[test]
    fn a_rank_counting_the_lanes_above_is_named() {
        let sc = scene(SRC, [1, 1, 1], [32, 1, 1]);
        let h = said(explain, &sc, "dst", &[2.0, 4.0, 6.0], &[6.0, 4.0, 2.0]).unwrap_or_default();
        assert!(
            h.contains("`__popc(hits >> me)` on line 5")
                && h.contains("`__popc(hits & ((1u << me) - 1))`")
                && h.contains("no `- 1`"),
            "{h}"
        );
    }

    #[test]
    fn a_right_rank_or_values_that_are_not_moved_stay_silent() {
        let sc = scene(SRC, [1, 1, 1], [32, 1, 1]);
        // Wrong values, not the right ones moved.
        assert_eq!(
            said(explain, &sc, "dst", &[2.0, 4.0, 6.0], &[1.0, 4.0, 2.0]),
            None
        );
        // A shift past the lane itself: another count, not this fix.
        let past = SRC.replace("hits >> me", "hits >> (me + 1)");
        let sc = scene(&past, [1, 1, 1], [32, 1, 1]);
        assert_eq!(
            said(explain, &sc, "dst", &[2.0, 4.0, 6.0], &[6.0, 4.0, 2.0]),
            None
        );
        let right = SRC.replace("__popc(hits >> me) - 1", "__popc(hits & ((1u << me) - 1))");
        let sc = scene(&right, [1, 1, 1], [32, 1, 1]);
        assert_eq!(
            said(explain, &sc, "dst", &[2.0, 4.0, 6.0], &[6.0, 4.0, 2.0]),
            None
        );
    }
}
