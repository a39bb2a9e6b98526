//! The HTML page in a real browser (headless Chromium): every figure renders (the gzipped
//! ones inflated by the page's script), the agents' toggles hide every element of an agent
//! and nothing else, and the page never scrolls sideways, at a desktop's width and a
//! narrow one. A harness page beside the report loads it in a frame and writes what it
//! found into its own DOM, which `chromium --dump-dom` prints.
//!
//! Needs Debian's `chromium` (CI installs it); elsewhere the test is skipped, loudly.

use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;

use bsuite_analysis::seeds::{SeedResults, SeededAgent};
use bsuite_analysis::AgentResults;
use bsuite_report::Options;

fn fixtures() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/fixtures/random_results")
}

fn chromium() -> Option<PathBuf> {
    let path = PathBuf::from(std::env::var_os("BSUITE_CHROMIUM").unwrap_or("chromium".into()));
    let works = Command::new(&path)
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success());
    if works {
        return Some(path);
    }
    assert!(
        std::env::var_os("CI").is_none(),
        "CI must install chromium (Debian's package)"
    );
    use std::io::Write as _;
    let _ = writeln!(
        std::io::stderr(),
        "\n*** SKIPPED the browser test: chromium is not installed (with CI set it fails) ***\n"
    );
    None
}

/// An agent over `seeds` seeds, each the fixtures without one of their ids.
fn agent(name: &str, seeds: usize) -> SeededAgent {
    SeededAgent {
        name: name.into(),
        seeds: (0..seeds)
            .map(|k| {
                let mut results = AgentResults::load(name, &fixtures()).unwrap();
                let mut position = 0;
                results.runs.retain(|_| {
                    position += 1;
                    (position - 1) % 5 != k
                });
                SeedResults {
                    seed: Some(42 + k as u32),
                    results,
                }
            })
            .collect(),
        skipped: Vec::new(),
    }
}

/// What the harness does in the page it frames: wait for every figure, then toggle each
/// agent off and on, checking what hides, and measure the page's width.
const HARNESS: &str = r##"<!DOCTYPE html>
<html><body>
<iframe id="page" src="index.html" style="width: WIDTHpx; height: 900px; border: 0"></iframe>
<pre id="result">pending</pre>
<script>
function visible(el, win) { return win.getComputedStyle(el).display !== "none"; }
function check() {
  var win = document.getElementById("page").contentWindow;
  var doc = win.document;
  if (!doc || doc.readyState !== "complete" || doc.querySelector("figure[data-svg]")) {
    return setTimeout(check, 50);
  }
  var out = {
    figures: doc.querySelectorAll("figure").length,
    svgs: doc.querySelectorAll("figure svg").length,
    overflow: doc.documentElement.scrollWidth - doc.documentElement.clientWidth,
    agents: {}
  };
  var boxes = doc.querySelectorAll("#agents input[type=checkbox]");
  boxes.forEach(function (box) {
    var name = box.value;
    var mine = doc.querySelectorAll('[data-agent="' + name + '"]');
    box.checked = false;
    box.dispatchEvent(new win.Event("change"));
    var hidden = Array.prototype.filter.call(mine, function (e) { return !visible(e, win); });
    var others = Array.prototype.filter.call(
      doc.querySelectorAll("[data-agent]"),
      function (e) { return e.getAttribute("data-agent") !== name && !visible(e, win); });
    var inFigures = Array.prototype.filter.call(mine, function (e) { return e.closest("svg"); });
    box.checked = true;
    box.dispatchEvent(new win.Event("change"));
    var back = Array.prototype.filter.call(mine, function (e) { return visible(e, win); });
    out.agents[name] = {
      elements: mine.length, in_figures: inFigures.length, hidden: hidden.length,
      others_hidden: others.length, shown_again: back.length
    };
  });
  document.getElementById("result").textContent = "RESULT " + JSON.stringify(out);
}
window.onload = check;
</script>
</body></html>
"##;

/// Runs the harness at `width` pixels and returns its JSON.
fn run_harness(chromium: &Path, dir: &Path, width: u32) -> serde_json::Value {
    let harness = dir.join(format!("harness-{width}.html"));
    fs::write(&harness, HARNESS.replace("WIDTH", &width.to_string())).unwrap();
    let profile = dir.join(format!("chromium-profile-{width}"));
    let output = Command::new(chromium)
        .args([
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--disable-quic",
            "--no-first-run",
            "--disable-background-networking",
            "--disable-component-update",
            "--disable-sync",
            // The harness reads the framed page: both are files.
            "--allow-file-access-from-files",
            "--virtual-time-budget=30000",
            "--dump-dom",
        ])
        .arg(format!("--user-data-dir={}", profile.display()))
        .arg(format!("file://{}", harness.display()))
        .output()
        .unwrap();
    let dom = String::from_utf8_lossy(&output.stdout);
    let at = dom.find("RESULT ").unwrap_or_else(|| {
        panic!(
            "the harness found nothing; chromium said: {}",
            String::from_utf8_lossy(&output.stderr)
        )
    });
    let json = &dom[at + "RESULT ".len()..];
    let json = &json[..json.find("</pre>").unwrap()];
    serde_json::from_str(&json.replace("&quot;", "\"")).unwrap()
}

#[test]
fn the_page_renders_toggles_agents_and_never_scrolls_sideways() {
    let Some(chromium) = chromium() else {
        return;
    };
    let out = std::env::temp_dir().join(format!("bsuite-report-browser-{}", std::process::id()));
    let _ = fs::remove_dir_all(&out);
    let agents = vec![
        agent("dqn", 3),
        agent("boot_dqn_with_a_long_name", 2),
        agent("random", 1),
    ];
    let written = bsuite_report::write_seeded(&agents, &out, &Options::default()).unwrap();
    for width in [1280, 700] {
        let result = run_harness(&chromium, &out, width);
        assert_eq!(
            result["figures"], result["svgs"],
            "{width} px: a figure did not render: {result}"
        );
        assert_eq!(result["figures"].as_u64(), Some(written.figures as u64));
        assert!(
            result["overflow"].as_i64().is_some_and(|o| o <= 0),
            "{width} px: the page scrolls sideways: {result}"
        );
        for agent in ["dqn", "boot_dqn_with_a_long_name", "random"] {
            let a = &result["agents"][agent];
            let elements = a["elements"].as_u64().unwrap();
            // Its tables' columns, its entry and its facets in every figure.
            assert!(elements > 23, "{agent}: {a}");
            assert!(a["in_figures"].as_u64().unwrap() > 23, "{agent}: {a}");
            assert_eq!(a["hidden"].as_u64(), Some(elements), "{agent}: {a}");
            assert_eq!(a["others_hidden"].as_u64(), Some(0), "{agent}: {a}");
            assert_eq!(a["shown_again"].as_u64(), Some(elements), "{agent}: {a}");
        }
    }
    fs::remove_dir_all(&out).unwrap();
}
