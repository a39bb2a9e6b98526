//! Writes the summary figures of results directories to a directory, for looking at them.
//!
//! `cargo run -p bsuite-report --example demo_figures -- OUT DIR[=NAME]...`
use bsuite_analysis::figures::{bar_chart, radar_chart};
use bsuite_analysis::{compare, Agent};
use bsuite_report::convert::Converter;
use bsuite_report::render::render_svg;
use bsuite_report::summary::*;

fn main() {
    let mut args = std::env::args().skip(1);
    let out = std::path::PathBuf::from(args.next().expect("out dir"));
    let agents: Vec<Agent> = args
        .map(|a| {
            let (dir, name) = a.split_once('=').unwrap_or((&a, "agent"));
            Agent::load(name, dir.as_ref()).unwrap()
        })
        .collect();
    let summaries = compare(&agents);
    std::fs::create_dir_all(&out).unwrap();
    let conv = Converter::new();
    let bars = bar_chart(&summaries);
    let figs = [
        ("radar", radar_svg(&radar_chart(&summaries)).unwrap()),
        ("bar", render_svg(&bar_figure(&bars)).unwrap()),
        ("compare", render_svg(&compare_figure(&bars)).unwrap()),
    ];
    for (name, svg) in figs {
        std::fs::write(out.join(format!("{name}.svg")), &svg).unwrap();
        std::fs::write(out.join(format!("{name}.pdf")), conv.to_pdf(&svg).unwrap()).unwrap();
    }
}
