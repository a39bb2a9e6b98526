//! What the report's test files share.

use bsuite_report::check;

/// Whether pdflatex is here for a LaTeX compile test. Under `CI` its absence fails the test
/// (`.ci/run` installs TeX Live); elsewhere the test is skipped, loudly.
pub fn pdflatex_or_skip(test: &str) -> bool {
    if check::pdflatex_available() {
        return true;
    }
    assert!(
        std::env::var_os("CI").is_none(),
        "CI must install pdflatex (texlive-latex-base, -recommended, -extra)"
    );
    // Straight to stderr: `eprintln!` would be captured and never shown for a pass.
    use std::io::Write as _;
    let _ = writeln!(
        std::io::stderr(),
        "\n*** SKIPPED {test}: pdflatex is not installed (with CI set this test fails \
         instead) ***\n"
    );
    false
}
