// Temporary dev harness: run a PTX file's kernel with float buffers.
use gpuzzle::emu::{self, value::*, EmuOptions, LaunchConfig};
fn main() {
    let a: Vec<String> = std::env::args().collect();
    let ptx = std::fs::read_to_string(&a[1]).unwrap();
    let m = gpuzzle::ptx::parse(&ptx).unwrap();
    let n: usize = a[3].parse().unwrap();
    let args = vec![
        KernelArg::Buffer(Buffer::zeros("out", ElemType::F32, n)),
        KernelArg::Buffer(Buffer::from_values(
            "a",
            ElemType::F32,
            &(0..n).map(|i| i as f64).collect::<Vec<_>>(),
        )),
        KernelArg::Scalar(Scalar::from_f64(ElemType::I32, n as f64)),
    ];
    let cfg = LaunchConfig {
        grid: [1, 1, 1],
        block: [a[4].parse().unwrap(), 1, 1],
        dynamic_shared: 0,
    };
    let r = emu::run(&m, &a[2], &cfg, args, &EmuOptions::default());
    match r {
        Ok(r) => {
            println!("{:?}", r.buffers[0].values());
            print!("{}", r.stdout);
            for d in &r.diagnostics {
                println!(
                    "{:?} line {:?} {} | {:?}",
                    d.kind, d.line, d.message, d.help
                );
            }
            println!("{:?}", r.counters);
        }
        Err(e) => println!("ERR {e}"),
    }
}
