//! Thin binary: all logic lives in the library so it can be tested.
fn main() {
    std::process::exit(gpuzzle::cli::main());
}
