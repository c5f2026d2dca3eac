//! `bench N --svg FILE`: the roofline, drawn with plotters' SVG backend. Bandwidth and compute
//! ceilings of the device (on the emulator: of a stated reference GPU), the ridge point, and the
//! learner's kernel and the reference solution as points at their arithmetic intensity.
//!
//! On a GPU a point is a timing: intensity = FLOPs / bytes that must move, height = achieved
//! GFLOP/s. On the emulator nothing is timed: intensity = FLOPs / bytes the kernel moved in
//! 32-byte sectors (measured), and the point sits on the reference GPU's roof at that intensity:
//! how fast it could go at best, which the picture says in words.

use crate::gpu::bench::{BenchOutcome, DeviceSpecs, Measured};
use plotters::prelude::*;

/// The GPU whose ceilings an emulator roofline uses: an H100 SXM (80 GB HBM3) as its driver
/// reports it (3.35 TB/s, 66.9 TFLOP/s FP32 without tensor cores).
pub fn reference_device() -> DeviceSpecs {
    DeviceSpecs {
        name: "NVIDIA H100 SXM (reference)".into(),
        compute_capability: (9, 0),
        driver_version: (0, 0),
        sm_count: 132,
        sm_clock_khz: Some(1_980_000),
        memory_clock_khz: Some(2_619_000),
        memory_bus_bits: Some(5120),
        fp32_lanes_per_sm: 128,
    }
}

#[derive(Debug, thiserror::Error)]
pub enum RooflineError {
    #[error("puzzle {id}'s [bench] states no `flops`, so its kernels have no arithmetic intensity to place on a roofline")]
    NoFlops { id: u32 },
    #[error("the device did not report its clocks and bus width, so its ceilings are unknown")]
    NoPeaks,
    #[error("{what} moves no bytes, so its intensity is undefined")]
    NoBytes { what: &'static str },
    #[error("drawing the roofline failed: {0}")]
    Plot(String),
}

/// One point: name, intensity (FLOP/byte), GFLOP/s.
#[derive(Clone, Debug, PartialEq)]
pub struct Point {
    pub label: String,
    pub intensity: f64,
    pub gflops: f64,
}

/// What the picture shows, computed before drawing (tested on its own).
#[derive(Clone, Debug, PartialEq)]
pub struct Plan {
    pub device: String,
    pub peak_gbps: f64,
    pub peak_gflops: f64,
    pub points: Vec<Point>,
    /// Lines under the plot saying what the figures are.
    pub notes: Vec<String>,
}

impl Plan {
    /// FLOP/byte where the bandwidth ceiling meets the compute ceiling.
    pub fn ridge(&self) -> f64 {
        self.peak_gflops / self.peak_gbps
    }

    /// The roof at intensity `x`, in GFLOP/s.
    pub fn roof(&self, x: f64) -> f64 {
        (x * self.peak_gbps).min(self.peak_gflops)
    }
}

pub fn plan(o: &BenchOutcome) -> Result<Plan, RooflineError> {
    let flops = o.work.flops.ok_or(RooflineError::NoFlops { id: o.id })?;
    match &o.measured {
        Measured::Emulator { kernel, reference } => {
            let dev = reference_device();
            let (bw, fl) = peaks(&dev)?;
            let mut plan = Plan {
                device: dev.name.clone(),
                peak_gbps: bw,
                peak_gflops: fl,
                points: Vec::new(),
                notes: vec![
                    "Emulator: nothing was timed. Each kernel's intensity is measured (declared FLOPs / bytes it moved in 32-byte sectors);".into(),
                    format!("the ceilings are a stated {}'s ({:.0} GB/s, {:.0} GFLOP/s FP32), and each point sits on that roof: the best the kernel could do there.", dev.name, bw, fl),
                ],
            };
            let sides = [
                ("your kernel", Some(kernel)),
                ("reference solution", reference.as_ref()),
            ];
            for (what, side) in sides {
                let Some(side) = side else { continue };
                let bytes = side.figures.bytes_moved;
                if bytes == 0 {
                    plan.notes.push(format!(
                        "{what} moved no global memory: no intensity, no point."
                    ));
                    continue;
                }
                let x = flops / bytes as f64;
                plan.points.push(Point {
                    label: format!("{what}: {x:.3} FLOP/byte"),
                    intensity: x,
                    gflops: plan.roof(x),
                });
            }
            Ok(plan)
        }
        Measured::Gpu {
            device,
            kernel,
            reference,
            ..
        } => {
            let (bw, fl) = peaks(device)?;
            if o.work.compulsory_bytes == 0 {
                return Err(RooflineError::NoBytes { what: "the bench" });
            }
            let x = flops / o.work.compulsory_bytes as f64;
            let mut plan = Plan {
                device: device.name.clone(),
                peak_gbps: bw,
                peak_gflops: fl,
                points: Vec::new(),
                notes: vec![
                    format!("{}: median of CUDA-event timings; intensity = declared FLOPs / bytes that must move ({x:.3} FLOP/byte);", device.name),
                    "peaks are estimates from the reported clocks, SM count and bus width.".into(),
                ],
            };
            let sides = [
                ("your kernel", Some(kernel)),
                ("reference solution", reference.as_ref()),
            ];
            for (what, side) in sides {
                if let Some(t) = side.and_then(|s| s.timing.as_ref()) {
                    let g = t.gflops.unwrap_or(0.0);
                    plan.points.push(Point {
                        label: format!("{what}: {g:.1} GFLOP/s"),
                        intensity: x,
                        gflops: g,
                    });
                }
            }
            Ok(plan)
        }
    }
}

fn peaks(d: &DeviceSpecs) -> Result<(f64, f64), RooflineError> {
    let bw = d.peak_bytes_per_s().ok_or(RooflineError::NoPeaks)? / 1e9;
    let fl = d.peak_flops().ok_or(RooflineError::NoPeaks)? / 1e9;
    Ok((bw, fl))
}

/// An axis label: `0.1`, `10`, `1000`, without a trailing `.0`.
fn tick(v: f64) -> String {
    if v >= 1.0 {
        format!("{v:.0}")
    } else {
        let s = format!("{v:.4}");
        s.trim_end_matches('0').trim_end_matches('.').to_string()
    }
}

fn plot_err<E: std::fmt::Display>(e: E) -> RooflineError {
    RooflineError::Plot(e.to_string())
}

/// The SVG of `o`'s roofline.
pub fn draw(o: &BenchOutcome) -> Result<String, RooflineError> {
    let p = plan(o)?;
    render(
        &p,
        &format!(
            "Puzzle {} · {}: roofline of the [bench] launch",
            o.id, o.title
        ),
    )
}

pub fn render(p: &Plan, title: &str) -> Result<String, RooflineError> {
    let ridge = p.ridge();
    let xs = p.points.iter().map(|q| q.intensity).chain([ridge]);
    let (lo, hi) = xs.fold((f64::MAX, f64::MIN), |(a, b), x| (a.min(x), b.max(x)));
    let x_range = (lo / 8.0).max(1e-6)..hi * 8.0;
    let y_lo = p
        .points
        .iter()
        .map(|q| q.gflops)
        .filter(|g| *g > 0.0)
        .fold(p.roof(x_range.start), f64::min)
        / 4.0;
    let y_range = y_lo.max(1e-6)..p.peak_gflops * 3.0;
    let mut out = String::new();
    {
        let root = SVGBackend::with_string(&mut out, (900, 560)).into_drawing_area();
        root.fill(&WHITE).map_err(plot_err)?;
        let (upper, lower) = root.split_vertically(490);
        let mut chart = ChartBuilder::on(&upper)
            .caption(title, ("sans-serif", 18))
            .margin(16)
            .x_label_area_size(44)
            .y_label_area_size(70)
            .build_cartesian_2d(x_range.clone().log_scale(), y_range.clone().log_scale())
            .map_err(plot_err)?;
        chart
            .configure_mesh()
            .x_desc("arithmetic intensity (FLOP per byte)")
            .y_desc("GFLOP/s")
            .light_line_style(WHITE.mix(0.0))
            .x_label_formatter(&|v| tick(*v))
            .y_label_formatter(&|v| tick(*v))
            .draw()
            .map_err(plot_err)?;
        let roof_colour = RGBColor(40, 40, 40);
        let steps = 64;
        let (a, b) = (x_range.start.ln(), x_range.end.ln());
        let roof: Vec<(f64, f64)> = (0..=steps)
            .map(|i| (a + (b - a) * i as f64 / steps as f64).exp())
            .chain([ridge])
            .map(|x| (x, p.roof(x)))
            .collect::<Vec<_>>();
        let mut roof = roof;
        roof.sort_by(|u, v| u.0.total_cmp(&v.0));
        chart
            .draw_series(LineSeries::new(roof, roof_colour.stroke_width(3)))
            .map_err(plot_err)?
            .label(format!(
                "{}: {:.0} GB/s, {:.0} GFLOP/s",
                p.device, p.peak_gbps, p.peak_gflops
            ))
            .legend(move |(x, y)| {
                PathElement::new(vec![(x, y), (x + 20, y)], roof_colour.stroke_width(3))
            });
        // The ridge point: below it memory bound, above it compute bound.
        let ridge_colour = RGBColor(120, 120, 120);
        chart
            .draw_series(LineSeries::new(
                vec![(ridge, y_range.start), (ridge, p.peak_gflops)],
                ridge_colour.stroke_width(1),
            ))
            .map_err(plot_err)?
            .label(format!(
                "ridge point: {ridge:.1} FLOP/byte (left: memory bound)"
            ))
            .legend(move |(x, y)| PathElement::new(vec![(x, y), (x + 20, y)], ridge_colour));
        for q in &p.points {
            // The learner's kernel in red, the reference in blue, whichever is present.
            let c = if q.label.starts_with("your") {
                RGBColor(200, 30, 30)
            } else {
                RGBColor(30, 110, 200)
            };
            let shape = move |(x, y): (i32, i32)| Circle::new((x, y), 7, c.filled());
            chart
                .draw_series(std::iter::once(Circle::new(
                    (q.intensity, q.gflops.max(y_range.start)),
                    7,
                    c.filled(),
                )))
                .map_err(plot_err)?
                .label(q.label.clone())
                .legend(move |(x, y)| shape((x + 10, y)));
        }
        chart
            .configure_series_labels()
            .position(SeriesLabelPosition::LowerRight)
            .background_style(WHITE.mix(0.9))
            .border_style(BLACK)
            .label_font(("sans-serif", 13))
            .draw()
            .map_err(plot_err)?;
        for (i, n) in p.notes.iter().enumerate() {
            lower
                .draw_text(
                    n,
                    &("sans-serif", 12).into_font().color(&BLACK),
                    (16, 4 + 18 * i as i32),
                )
                .map_err(plot_err)?;
        }
        root.present().map_err(plot_err)?;
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn plan_with(points: &[(f64, f64)]) -> Plan {
        let d = reference_device();
        let (bw, fl) = peaks(&d).unwrap();
        Plan {
            device: d.name,
            peak_gbps: bw,
            peak_gflops: fl,
            points: points
                .iter()
                .enumerate()
                .map(|(i, &(x, g))| Point {
                    label: format!("p{i}"),
                    intensity: x,
                    gflops: g,
                })
                .collect(),
            notes: vec!["a note".into()],
        }
    }

    #[test]
    fn the_ridge_is_where_the_ceilings_meet() {
        let p = plan_with(&[]);
        let r = p.ridge();
        assert!((r - 66_908.0 / 3352.0).abs() < 0.1, "{r}");
        assert!((p.roof(r) - p.peak_gflops).abs() < 1e-6);
        assert!((p.roof(r / 2.0) - p.peak_gflops / 2.0).abs() < 1e-6);
        assert_eq!(p.roof(r * 10.0), p.peak_gflops);
    }

    #[test]
    fn the_svg_has_the_ceilings_points_and_notes() {
        let svg = render(&plan_with(&[(0.125, 419.0), (0.25, 838.0)]), "t").unwrap();
        assert!(svg.starts_with("<svg"), "{}", &svg[..80]);
        assert!(svg.contains("ridge point: 20.0 FLOP/byte"));
        assert!(svg.contains("p0") && svg.contains("p1") && svg.contains("a note"));
        assert_eq!(
            svg.matches("<circle").count(),
            4,
            "two points and their legend marks"
        );
    }
}
