// The puzzle pack is embedded with include_dir; rebuild when a puzzle or solution file is added.
fn main() {
    println!("cargo:rerun-if-changed=puzzles");
    println!("cargo:rerun-if-changed=solutions");
}
