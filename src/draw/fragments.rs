//! The fragment layout of an `mma.sync` shape (`gpuzzle draw N --fragments`): the A, B and C/D
//! matrices as grids, each cell naming the lane that holds it and the element index in that
//! lane's fragment (`T5 a3`), coloured by lane. Drawn from `emu::tensor::layout`, the emulator's
//! own table of the PTX ISA's layouts, so the picture and the execution cannot disagree.

use super::svg::{thread_colour, Svg};
use crate::emu::tensor::layout::{Family, Frag};
use crate::ptx::tensor::{MmaShape, MmaType};

const CELL_W: f64 = 46.0;
const CELL_H: f64 = 30.0;
const GAP: f64 = 40.0;
const TOP: f64 = 70.0;
const LEFT: f64 = 30.0;

/// The shape and input type of the first `mma.sync.aligned...` written in `source` (inline
/// PTX), or m16n8k16 on halves when there is none.
pub fn shape_of(source: &str) -> (MmaShape, MmaType) {
    let Some(at) = source.find("mma.sync.aligned.") else {
        return (MmaShape::M16N8K16, MmaType::F16);
    };
    let opcode: String = source[at..]
        .chars()
        .take_while(|c| c.is_ascii_alphanumeric() || *c == '.' || *c == '_')
        .collect();
    let words: Vec<&str> = opcode.split('.').collect();
    let shape = match () {
        _ if words.contains(&"m16n8k8") => MmaShape::M16N8K8,
        _ if words.contains(&"m16n8k32") => MmaShape::M16N8K32,
        _ if words.contains(&"m8n8k4") => MmaShape::M8N8K4,
        _ => MmaShape::M16N8K16,
    };
    // The second type suffix is A's (`.dtype.atype.btype.ctype`).
    let a = words
        .iter()
        .filter_map(|w| MmaType::parse(w))
        .nth(1)
        .unwrap_or(MmaType::F16);
    (shape, a)
}

/// The picture for `shape` with inputs of type `a`.
pub fn draw(shape: MmaShape, a: MmaType, title: &str) -> String {
    let fam = Family::of(shape, a);
    let (m, n, k) = shape.mnk();
    let mut svg = Svg::new();
    let mats = [
        (Frag::A, "A", m, k, "a"),
        (Frag::B, "B", k, n, "b"),
        (Frag::C, "C, D", m, n, "c"),
    ];
    let mut x = LEFT;
    let mut height: f64 = 0.0;
    svg.text(
        LEFT,
        26.0,
        &format!(
            "{title}: which lane holds which element (T = lane, then its fragment index; g = lane / 4, t = lane % 4)"
        ),
        r#"font-size="15""#,
    );
    for (frag, name, rows, cols, letter) in mats {
        // Who holds (r, c): lane and index.
        let mut owner = vec![None; (rows * cols) as usize];
        for lane in 0..32 {
            for i in 0..fam.len(frag) {
                let (r, c) = fam.coord(frag, lane, i);
                if let Some(slot) = owner.get_mut((r * cols + c) as usize) {
                    *slot = Some((lane, i));
                }
            }
        }
        svg.text(
            x,
            TOP - 14.0,
            &format!("{name} ({rows} x {cols})"),
            r#"font-size="14" font-weight="bold""#,
        );
        for r in 0..rows {
            for c in 0..cols {
                let (cx, cy) = (x + c as f64 * CELL_W, TOP + r as f64 * CELL_H);
                let Some((lane, i)) = owner[(r * cols + c) as usize] else {
                    continue;
                };
                let colour = thread_colour(lane as usize);
                let tip = format!(
                    "{name}[{r}][{c}]: lane {lane} (g {}, t {}), {letter}{i}",
                    lane / 4,
                    lane % 4
                );
                svg.rect(
                    cx,
                    cy,
                    CELL_W - 2.0,
                    CELL_H - 2.0,
                    &format!(r#"fill="{colour}" fill-opacity="0.25" stroke="{colour}""#),
                    Some(&tip),
                );
                svg.text(
                    cx + 3.0,
                    cy + 13.0,
                    &format!("T{lane}"),
                    r#"font-size="11""#,
                );
                svg.text(
                    cx + 3.0,
                    cy + 25.0,
                    &format!("{letter}{i}"),
                    r##"font-size="10" fill="#555555""##,
                );
            }
        }
        x += cols as f64 * CELL_W + GAP;
        height = height.max(TOP + rows as f64 * CELL_H);
    }
    svg.text(
        LEFT,
        height + 24.0,
        &if a == MmaType::F64 {
            "Registers: one f64 element per 64-bit register.".to_string()
        } else {
            format!(
                "Registers: a lane's {} elements of A and {} of B, {} per 32-bit register (the lower index in the lower bits); its {} of C and D one float per register (two halves per register with f16 accumulators).",
                fam.len(Frag::A),
                fam.len(Frag::B),
                a.per_reg(),
                fam.len(Frag::C)
            )
        },
        r#"font-size="12""#,
    );
    svg.finish(x, height + 40.0, &format!("{title}: fragments"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cells_name_their_lane_and_element() {
        let s = draw(MmaShape::M16N8K16, MmaType::F16, "mma");
        // A[9][11] is lane 5's a7; B[11][1] is lane 5's b3; C[15][6] is lane 31's c2.
        assert!(s.contains("A[9][11]: lane 5 (g 1, t 1), a7"), "{s}");
        assert!(s.contains("B[11][1]: lane 5 (g 1, t 1), b3"));
        assert!(s.contains("C, D[15][6]: lane 31 (g 7, t 3), c2"));
        assert_eq!(s.matches("<rect").count(), 1 + 16 * 16 + 16 * 8 + 16 * 8);
    }

    #[test]
    fn the_shape_comes_from_the_inline_ptx() {
        let src = r#"asm volatile("mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32 {%0}");"#;
        assert_eq!(shape_of(src), (MmaShape::M16N8K8, MmaType::TF32));
        assert_eq!(shape_of("no mma here"), (MmaShape::M16N8K16, MmaType::F16));
        let s8 = "mma.sync.aligned.m16n8k32.row.col.s32.s8.s8.s32";
        assert_eq!(shape_of(s8), (MmaShape::M16N8K32, MmaType::S8));
    }
}
