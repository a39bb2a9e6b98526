//! The README's and the guide's examples: every ```sh block of `README.md` and of
//! `docs/book/src/*.md` runs here as a reader would run it, page by page in a scratch
//! directory, with `cargo xtask` as this build's xtask and `bsuite` as the workspace's
//! binary (built here), so that a renamed command or flag fails these tests. The Python
//! blocks run in the Python tests (`crates/bsuite-py/tests/python/test_guide_examples.py`)
//! and the Rust ones as doctests of bsuite-baselines (its `guide` module), which the last
//! tests here keep complete. Long commands are written in ```text blocks, which nothing
//! runs.

mod common;

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// The checkout.
fn workspace() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .unwrap()
        .to_path_buf()
}

/// Commands that run on less than they say, with what is added to them: the landing
/// page's whole sweep, which takes minutes in a debug build, runs on one id. The command
/// line is otherwise the reader's, parsed and run by the same code.
const NARROWED: &[(&str, &str)] = &[(
    "cargo xtask bench-all random",
    "--ids catch/0 --num-episodes 20",
)];

/// Commands that do not run, and why; `COMMAND --help` runs instead, so that a renamed
/// command still fails.
const NOT_RUN: &[(&str, &str)] = &[("cargo xtask test", "it runs these tests")];

/// Programs that some blocks need and that a machine may lack, by a word of the block that
/// needs them; such a block is skipped, loudly, where one is missing (CI has them all).
const NEEDS: &[(&str, &[&str])] = &[
    ("report-check", &["pdflatex", "bibtex"]),
    ("--png", &["pdftoppm"]),
];

/// The checkout's folders that examples read by relative path (study files, the pinned
/// reference results), linked into each page's scratch directory as in a checkout.
const CHECKOUT_INPUTS: &[&str] = &["studies", "tests"];

/// The longest a block may run.
const BLOCK_LIMIT: Duration = Duration::from_secs(600);

/// The pages whose examples are tested: the README and the guide's chapters.
fn pages() -> Vec<PathBuf> {
    let src = workspace().join("docs/book/src");
    let mut pages: Vec<PathBuf> = std::fs::read_dir(&src)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "md"))
        .collect();
    pages.sort();
    pages.insert(0, workspace().join("README.md"));
    pages
}

/// A fenced code block: its language (the info string's first word, `rust` of
/// `rust,no_run`), the line its fence opens on, and its text.
#[derive(Debug)]
struct Block {
    language: String,
    line: usize,
    code: String,
}

/// The fenced code blocks of a Markdown page, indented ones (in list items) included.
fn blocks(text: &str) -> Vec<Block> {
    let mut blocks = Vec::new();
    let mut open: Option<(String, usize, usize, String)> = None; // language, line, indent, code
    for (index, line) in text.lines().enumerate() {
        let trimmed = line.trim_start();
        let indent = line.len() - trimmed.len();
        match &mut open {
            Some((language, start, _, code)) if trimmed.starts_with("```") => {
                blocks.push(Block {
                    language: std::mem::take(language),
                    line: *start,
                    code: std::mem::take(code),
                });
                open = None;
            }
            Some((_, _, fence_indent, code)) => {
                // A block in a list item is indented as its fence is: that indent is not code.
                code.push_str(&line[indent.min(*fence_indent)..]);
                code.push('\n');
            }
            None if trimmed.starts_with("```") => {
                let info = trimmed.trim_start_matches('`');
                let language = info.split([',', ' ']).next().unwrap_or("").to_string();
                open = Some((language, index + 1, indent, String::new()));
            }
            None => {}
        }
    }
    assert!(open.is_none(), "a code block is never closed");
    blocks
}

/// The commands of a shell line: its text before a comment, split at `&&`, `||`, `;` and
/// `|`.
fn commands(line: &str) -> Vec<String> {
    let code = match line.find(" #") {
        Some(at) => &line[..at],
        None if line.trim_start().starts_with('#') => "",
        None => line,
    };
    code.split("&&")
        .flat_map(|c| c.split("||"))
        .flat_map(|c| c.split([';', '|']))
        .map(|c| c.trim().to_string())
        .filter(|c| !c.is_empty())
        .collect()
}

/// A block as it runs: NARROWED commands with their additions, NOT_RUN ones as `--help`.
fn as_run(code: &str) -> String {
    let mut out = String::new();
    for line in code.lines() {
        let mut line = line.to_string();
        for command in commands(&line) {
            let replacement = if let Some((_, added)) = NARROWED.iter().find(|(c, _)| *c == command)
            {
                format!("{command} {added}")
            } else if NOT_RUN.iter().any(|(c, _)| *c == command) {
                format!("{command} --help >/dev/null")
            } else {
                continue;
            };
            line = replace_command(&line, &command, &replacement);
        }
        out.push_str(&line);
        out.push('\n');
    }
    out
}

/// `line` with the command `command` (whole: followed by the end, a space or an
/// operator, not more words) replaced.
fn replace_command(line: &str, command: &str, replacement: &str) -> String {
    let mut from = 0;
    while let Some(at) = line[from..].find(command).map(|a| a + from) {
        let after = &line[at + command.len()..];
        let rest = after.trim_start();
        let whole = rest.is_empty() || rest.starts_with(['&', '|', ';', '#']);
        if whole {
            return format!("{}{replacement}{after}", &line[..at]);
        }
        from = at + command.len();
    }
    line.to_string()
}

/// Whether a block runs the `bsuite` command.
fn uses_bsuite(code: &str) -> bool {
    code.lines().flat_map(commands).any(|c| {
        let program = c.split_whitespace().next().unwrap_or("");
        program == "bsuite" || program.ends_with("/bsuite")
    })
}

/// The `bsuite` command to run the examples with: `BSUITE_BIN`, else the workspace's own,
/// built here (debug, beside this build's xtask) where the workspace has the crate;
/// `None` where it has not.
fn bsuite_binary() -> Option<PathBuf> {
    static BINARY: std::sync::OnceLock<Option<PathBuf>> = std::sync::OnceLock::new();
    BINARY
        .get_or_init(|| {
            if let Some(path) = std::env::var_os("BSUITE_BIN") {
                return Some(PathBuf::from(path));
            }
            if !workspace().join("crates/bsuite-cli/Cargo.toml").is_file() {
                return None;
            }
            let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
            let built = Command::new(cargo)
                .args(["build", "--quiet", "-p", "bsuite-cli", "--bin", "bsuite"])
                .arg("--manifest-path")
                .arg(workspace().join("Cargo.toml"))
                .stdin(Stdio::null())
                .status()
                .expect("cargo runs");
            assert!(
                built.success(),
                "cargo build -p bsuite-cli --bin bsuite failed"
            );
            let binary = Path::new(env!("CARGO_BIN_EXE_xtask")).with_file_name("bsuite");
            assert!(binary.is_file(), "{} was not built", binary.display());
            Some(binary)
        })
        .clone()
}

/// Says something that the tests' capture of their output must not hide.
fn shout(message: &str) {
    use std::io::Write as _;
    let _ = writeln!(std::io::stderr(), "\n!!! {message}\n");
}

/// Whether `program` is on `PATH`.
fn on_path(program: &str) -> bool {
    std::env::var_os("PATH")
        .is_some_and(|path| std::env::split_paths(&path).any(|dir| dir.join(program).is_file()))
}

/// Where a page's examples run: a scratch directory with the checkout's inputs linked in,
/// and a `cargo` on `PATH` that runs `cargo xtask ...` with this build's xtask.
struct Scratch {
    dir: PathBuf,
    bin: PathBuf,
}

impl Scratch {
    fn new(name: &str) -> Self {
        let base = common::scratch(&format!("guide-{name}"));
        let dir = base.join("work");
        let bin = base.join("bin");
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::create_dir_all(&bin).unwrap();
        for input in CHECKOUT_INPUTS {
            std::os::unix::fs::symlink(workspace().join(input), dir.join(input)).unwrap();
        }
        let cargo = bin.join("cargo");
        std::fs::write(
            &cargo,
            "#!/bin/sh\n\
             # `cargo xtask ...` as a reader in the checkout runs it, with this build's xtask.\n\
             if [ \"$1\" = xtask ]; then shift; exec \"$BSUITE_GUIDE_XTASK\" \"$@\"; fi\n\
             echo \"the guide's shell examples run 'cargo xtask ...' only, not: cargo $*\" >&2\n\
             exit 2\n",
        )
        .unwrap();
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&cargo, std::fs::Permissions::from_mode(0o755)).unwrap();
        Scratch { dir, bin }
    }

    /// Runs one block with bash (`-e -o pipefail`): `Err` with what it printed if it fails.
    fn run(&self, script: &str, bsuite: Option<&Path>) -> Result<(), String> {
        let mut path = vec![self.bin.clone()];
        path.extend(bsuite.and_then(Path::parent).map(Path::to_path_buf));
        path.extend(std::env::split_paths(
            &std::env::var_os("PATH").unwrap_or_default(),
        ));
        let script_file = self.bin.join("block.sh");
        std::fs::write(&script_file, script).unwrap();
        let out = self.bin.join("output.txt");
        let mut child = Command::new("bash")
            .args(["-e", "-o", "pipefail"])
            .arg(&script_file)
            .current_dir(&self.dir)
            .env("PATH", std::env::join_paths(path).unwrap())
            .env("BSUITE_GUIDE_XTASK", env!("CARGO_BIN_EXE_xtask"))
            .env("XTASK_NO_REEXEC", "1")
            // `bsuite` unpacks its baselines into the user's cache: here, the scratch's.
            .env("XDG_CACHE_HOME", self.dir.parent().unwrap().join("cache"))
            .stdin(Stdio::null())
            .stdout(std::fs::File::create(&out).unwrap())
            .stderr(std::fs::File::options().append(true).open(&out).unwrap())
            .spawn()
            .expect("bash runs");
        let started = Instant::now();
        let status = loop {
            if let Some(status) = child.try_wait().unwrap() {
                break Some(status);
            }
            if started.elapsed() > BLOCK_LIMIT {
                let _ = child.kill();
                let _ = child.wait();
                break None;
            }
            std::thread::sleep(Duration::from_millis(50));
        };
        let printed = std::fs::read_to_string(&out).unwrap_or_default();
        match status {
            Some(status) if status.success() => Ok(()),
            Some(status) => Err(format!("{status}\n{}", tail(&printed, 40))),
            None => Err(format!(
                "still running after {BLOCK_LIMIT:?}\n{}",
                tail(&printed, 40)
            )),
        }
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(self.dir.parent().unwrap());
    }
}

fn tail(text: &str, lines: usize) -> String {
    let all: Vec<&str> = text.lines().collect();
    all[all.len().saturating_sub(lines)..].join("\n")
}

/// Runs a page's shell blocks in order in one scratch directory, as a reader going down
/// the page; returns the failures, each with its page and line, and prints what it skips.
fn run_page(page: &Path, text: &str) -> Vec<String> {
    let name = page.file_stem().unwrap().to_string_lossy().into_owned();
    let shown = page
        .strip_prefix(workspace())
        .unwrap_or(page)
        .display()
        .to_string();
    let scratch = Scratch::new(&name);
    let bsuite = bsuite_binary();
    let mut failures = Vec::new();
    for block in blocks(text).into_iter().filter(|b| b.language == "sh") {
        let at = format!("{shown}:{}", block.line);
        if uses_bsuite(&block.code) && bsuite.is_none() {
            shout(&format!(
                "{at}: SKIPPED: the block runs `bsuite`, and this workspace has no \
                 crates/bsuite-cli to build it from (BSUITE_BIN names one)"
            ));
            continue;
        }
        let missing: Vec<&str> = NEEDS
            .iter()
            .filter(|(word, _)| block.code.contains(word))
            .flat_map(|(_, programs)| programs.iter().copied())
            .filter(|program| !on_path(program))
            .collect();
        if !missing.is_empty() {
            shout(&format!(
                "{at}: SKIPPED: it needs {} (CI installs them)",
                missing.join(", ")
            ));
            continue;
        }
        let started = Instant::now();
        let result = scratch.run(&as_run(&block.code), bsuite.as_deref());
        eprintln!("{at}: {:.1} s", started.elapsed().as_secs_f64());
        if let Err(error) = result {
            failures.push(format!(
                "{at}: the example failed:\n{}\n--- it printed: {error}",
                block.code
            ));
        }
    }
    failures
}

/// Every shell example of the README and the guide runs, each page in its own scratch
/// directory, the pages side by side.
#[test]
fn every_shell_example_in_the_readme_and_the_guide_runs() {
    let pages: Vec<(PathBuf, String)> = pages()
        .into_iter()
        .map(|p| {
            let text = std::fs::read_to_string(&p).unwrap();
            (p, text)
        })
        .collect();
    let failures: Vec<String> = std::thread::scope(|scope| {
        let runs: Vec<_> = pages
            .iter()
            .map(|(page, text)| scope.spawn(move || run_page(page, text)))
            .collect();
        runs.into_iter().flat_map(|r| r.join().unwrap()).collect()
    });
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}

/// The harness fails a page whose example names a flag that does not exist, and runs one
/// whose flags do: the test above can fail.
#[test]
fn an_example_with_a_renamed_flag_fails() {
    let page = workspace().join("docs/book/src/harness-check.md");
    let good = "```sh\ncargo xtask bench-all random --ids catch/0 --num-episodes 2 # works\n```\n";
    assert_eq!(run_page(&page, good), Vec::<String>::new());
    let renamed = "```sh\ncargo xtask bench-all random --ids catch/0 --episodes 2\n```\n";
    let failures = run_page(&page, renamed);
    assert_eq!(failures.len(), 1, "{failures:#?}");
    assert!(
        failures[0].contains("harness-check.md:1"),
        "{}",
        failures[0]
    );
    assert!(failures[0].contains("--episodes"), "{}", failures[0]);
}

/// The narrowed and not-run commands are found on the pages, whole, and rewritten: a stale
/// entry, or an entry that no longer matches, fails here.
#[test]
fn narrowed_and_skipped_commands_are_on_the_pages() {
    let all: String = pages()
        .iter()
        .flat_map(|p| blocks(&std::fs::read_to_string(p).unwrap()))
        .filter(|b| b.language == "sh")
        .map(|b| b.code)
        .collect();
    for (command, _) in NARROWED.iter().chain(NOT_RUN) {
        let used = all.lines().flat_map(commands).any(|c| c == *command);
        assert!(used, "`{command}` is in NARROWED or NOT_RUN but on no page");
    }
    assert_eq!(
        as_run("cargo xtask bench-all random && cargo xtask report    # main job\ncargo xtask test  # all\n"),
        "cargo xtask bench-all random --ids catch/0 --num-episodes 20 && cargo xtask report    \
         # main job\ncargo xtask test --help >/dev/null  # all\n"
    );
    assert_eq!(
        as_run("cargo xtask bench-all random --ids catch\n"),
        "cargo xtask bench-all random --ids catch\n"
    );
}

/// Every code block says what it is, in a language whose blocks a test runs (`sh`,
/// `python`, `rust`) or that nothing runs (`text`, `toml`): an unmarked or `bash` block
/// would escape the tests (and rustdoc would take an unmarked one for Rust).
#[test]
fn every_code_block_names_a_language_the_tests_know() {
    let known = ["sh", "python", "rust", "text", "toml"];
    let mut unknown = Vec::new();
    for page in pages() {
        for block in blocks(&std::fs::read_to_string(&page).unwrap()) {
            if !known.contains(&block.language.as_str()) {
                unknown.push(format!(
                    "{}:{}: ```{}",
                    page.display(),
                    block.line,
                    block.language
                ));
            }
        }
    }
    assert!(
        unknown.is_empty(),
        "blocks in no known language ({known:?}):\n{}",
        unknown.join("\n")
    );
}

/// Every page is a doctest of bsuite-baselines' `guide` module, so its Rust blocks run.
#[test]
fn every_page_is_a_doctest() {
    let lib =
        std::fs::read_to_string(workspace().join("crates/bsuite-baselines/src/lib.rs")).unwrap();
    for page in pages() {
        let relative = page
            .strip_prefix(workspace())
            .unwrap()
            .display()
            .to_string();
        if relative.ends_with("SUMMARY.md") {
            continue;
        }
        let include = format!("include_str!(\"../../../{relative}\")");
        assert!(
            lib.contains(&include),
            "crates/bsuite-baselines/src/lib.rs lacks {include}"
        );
    }
}

/// The README is a landing page: under 150 lines, and its first commands are the two that
/// CI and users rely on.
#[test]
fn the_readme_is_a_landing_page() {
    let readme = std::fs::read_to_string(workspace().join("README.md")).unwrap();
    let lines = readme.lines().count();
    assert!(lines < 150, "README.md has {lines} lines");
    let first = blocks(&readme)
        .into_iter()
        .find(|b| b.language == "sh")
        .unwrap();
    let commands: Vec<String> = first.code.lines().flat_map(commands).collect();
    assert_eq!(
        commands[..3],
        [
            "cargo xtask bench-all random",
            "cargo xtask report",
            "cargo xtask test"
        ]
    );
    assert!(first
        .code
        .starts_with("cargo xtask bench-all random && cargo xtask report"));
}
