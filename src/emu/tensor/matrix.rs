//! `ldmatrix`, `stmatrix` and `movmatrix`: 8x8 matrices of 16-bit values between rows in
//! memory and the warp's registers (PTX ISA, "Warp-level matrix load instruction: ldmatrix",
//! "... store instruction: stmatrix", "Warp-level matrix transpose instruction: movmatrix").
//!
//! Each 8x8 matrix is one 32-bit register per lane: lane `l` holds row `l / 4`, columns
//! `2 * (l % 4)` (low half) and `+ 1` (high half). For matrix `i`, lanes `8i..8i+7` give the
//! addresses of its rows 0..7, 16 bytes each. With `.trans`, lane `l` holds the transposed
//! matrix's row: column `l / 4` of memory rows `2 * (l % 4)` and `+ 1`.

/// One memory row: 8 values of 16 bits.
pub type Row = [u16; 8];

/// The (row, column) in memory of lane `lane`'s half `h` (0 low, 1 high) of a matrix.
pub fn position(lane: u32, h: u32, trans: bool) -> (usize, usize) {
    let (r, c) = ((lane / 4) as usize, (2 * (lane % 4) + h) as usize);
    if trans {
        (c, r)
    } else {
        (r, c)
    }
}

/// `ldmatrix`: the register each lane gets for a matrix whose memory rows are `rows`.
pub fn load(rows: &[Row; 8], lane: u32, trans: bool) -> u32 {
    let half = |h: u32| {
        let (r, c) = position(lane, h, trans);
        rows[r][c] as u32
    };
    half(0) | half(1) << 16
}

/// `stmatrix`: the memory rows of a matrix whose registers, by lane, are `regs`.
pub fn store(regs: &[u32; 32], trans: bool) -> [Row; 8] {
    let mut rows = [[0u16; 8]; 8];
    for (lane, &v) in regs.iter().enumerate() {
        for h in 0..2 {
            let (r, c) = position(lane as u32, h, trans);
            rows[r][c] = (v >> (16 * h)) as u16;
        }
    }
    rows
}

/// `movmatrix.trans`: the register lane `lane` gets when the matrix held in `regs` is
/// transposed.
pub fn transpose(regs: &[u32; 32], lane: u32) -> u32 {
    let rows = store(regs, false);
    load(&rows, lane, true)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Row r, column c holds 10 * r + c.
    fn numbered() -> [Row; 8] {
        let mut rows = [[0u16; 8]; 8];
        for (r, row) in rows.iter_mut().enumerate() {
            for (c, v) in row.iter_mut().enumerate() {
                *v = (10 * r + c) as u16;
            }
        }
        rows
    }

    #[test]
    fn ldmatrix_gives_each_lane_a_pair_of_its_row() {
        let rows = numbered();
        // Lane 0: row 0, columns 0 and 1; lane 5: row 1, columns 2, 3; lane 31: row 7, 6 and 7.
        assert_eq!(load(&rows, 0, false), 1 << 16);
        assert_eq!(load(&rows, 5, false), 12 | 13 << 16);
        assert_eq!(load(&rows, 31, false), 76 | 77 << 16);
        // Transposed: lane 5 holds column 1 of rows 2 and 3.
        assert_eq!(load(&rows, 5, true), 21 | 31 << 16);
    }

    #[test]
    fn stmatrix_undoes_ldmatrix_and_movmatrix_transposes() {
        let rows = numbered();
        for trans in [false, true] {
            let regs: [u32; 32] = std::array::from_fn(|l| load(&rows, l as u32, trans));
            assert_eq!(store(&regs, trans), rows);
        }
        let regs: [u32; 32] = std::array::from_fn(|l| load(&rows, l as u32, false));
        let t: [u32; 32] = std::array::from_fn(|l| transpose(&regs, l as u32));
        let want: [u32; 32] = std::array::from_fn(|l| load(&rows, l as u32, true));
        assert_eq!(t, want);
    }
}
