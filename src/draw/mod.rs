//! Pictures as SVG: the data flow of one block (`flow`: cells, threads, lines from what each
//! thread read to what it wrote), warps against sectors and banks (`warps`), and the roofline
//! (`roofline`, drawn with plotters). `svg` is the small writer the hand-laid ones share; `html` wraps a picture in a page that
//! shows a cell's readers and writers on hover; `marks` finds the accesses a run's diagnostics are
//! about, which `flow` draws in red.

pub mod flow;
pub mod fragments;
pub mod html;
pub mod marks;
pub mod roofline;
pub mod svg;
pub mod warps;
