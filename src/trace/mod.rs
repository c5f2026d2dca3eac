//! Who read and wrote what: a puzzle test run on the emulator with access traces
//! (`emu::run_traced`), resolved to `buffer[index]` and `shared[index]` per thread, and its
//! text form (`run N --trace`). The pictures (`crate::draw`) are drawn from the same capture.

pub mod capture;
pub mod events;
pub mod lines;
pub mod text;

pub use capture::{capture, Capture, CaptureError, LaunchCapture};
pub use events::{Cell, Event, EventKind, LaunchTrace, Space, ThreadEvents};
