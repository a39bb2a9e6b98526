//! The guide, as `cargo xtask test` checks it: the mdBook under `docs/book` built into
//! `target/book`, and no broken link in it nor in the repository's other Markdown.
//!
//! mdBook checks little of a book's links itself (a chapter missing from `SUMMARY.md` is
//! simply not built, and a link to a missing page or anchor is written as it stands), so
//! the check here reads what a reader would follow: every `href` and `src` of the built
//! HTML against the built files and their `id`s, and every link of the Markdown that GitHub
//! renders (the README, `docs/`, ...) against the checkout and its headings. Links to this
//! repository on GitHub (`REPOSITORY/blob/main/PATH`) are checked against the checkout too.
//!
//! mdBook comes as the project's other tools do: the one on `PATH`, or one `cargo install`s
//! into `.bsuite/tools` once (without its `serve`, `watch` and search features).

use std::collections::{BTreeMap, BTreeSet};
use std::fs;
use std::path::{Component, Path, PathBuf};
use std::process::Command;
use std::time::Instant;

use anyhow::{bail, Context, Result};

use crate::libtorch::{run_status, workspace_root};

/// The mdBook that `.bsuite/tools` gets when none is on `PATH`.
pub const MDBOOK_VERSION: &str = "0.5.4";

/// The repository's address, as the workspace's `Cargo.toml` gives it: links that start
/// with it are links into this checkout.
pub const REPOSITORY: &str = "https://github.com/bsuite-rs/bsuite-rs";

/// Folders of the checkout whose Markdown is not the project's documentation (builds,
/// provisioned tools, git's own).
const NOT_DOCUMENTATION: [&str; 4] = [".git", "target", ".bsuite", "node_modules"];

/// Builds the guide into `target/book` and fails, listing them, on broken links in the
/// built book or in the checkout's Markdown, and on a page of `docs/book/src` that
/// `SUMMARY.md` leaves out (mdBook would not build it).
pub fn test() -> Result<()> {
    let root = workspace_root();
    let book = root.join("docs").join("book");
    let out = root.join("target").join("book");
    let mdbook = provision(&root)?;
    bsuite_baselines::errln!("xtask: mdbook build docs/book into {}", out.display());
    let mut build = Command::new(&mdbook);
    build.arg("build").arg(&book).arg("--dest-dir").arg(&out);
    run_status(build, "mdbook build")?;

    let mut problems = pages_left_out_of_the_summary(&book.join("src"))?;
    problems.extend(broken_links_in_html(&out, &root)?);
    problems.extend(broken_links_in_markdown(&root)?);
    if !problems.is_empty() {
        bail!(
            "the guide has {} broken link(s) or missing page(s):\n  {}",
            problems.len(),
            problems.join("\n  ")
        );
    }
    bsuite_baselines::errln!("xtask: the guide's links and the Markdown's all resolve");
    Ok(())
}

/// The `mdbook` to run: the one on `PATH`, else `.bsuite/tools/bin/mdbook`, installed there
/// by `cargo install` when missing or of another version.
fn provision(root: &Path) -> Result<PathBuf> {
    if let Some(version) = mdbook_version(Path::new("mdbook")) {
        bsuite_baselines::errln!("xtask: {version} from PATH");
        return Ok("mdbook".into());
    }
    let tools = root.join(".bsuite").join("tools");
    let local = tools.join("bin").join("mdbook");
    if mdbook_version(&local).is_some_and(|v| v.ends_with(&format!("v{MDBOOK_VERSION}"))) {
        return Ok(local);
    }
    bsuite_baselines::errln!(
        "xtask: installing mdbook {MDBOOK_VERSION} into {} (once; a few minutes on two cores)",
        tools.display()
    );
    let started = Instant::now();
    let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    let mut install = Command::new(cargo);
    install
        .args(["install", "mdbook", "--version", MDBOOK_VERSION])
        .args(["--no-default-features", "--locked", "--root"])
        .arg(&tools);
    run_status(install, "cargo install mdbook")?;
    bsuite_baselines::errln!(
        "xtask: mdbook installed in {:.0} s",
        started.elapsed().as_secs_f64()
    );
    Ok(local)
}

/// `mdbook --version` of `program` (`mdbook v0.5.4`), or `None` where it does not run.
fn mdbook_version(program: &Path) -> Option<String> {
    let output = Command::new(program).arg("--version").output().ok()?;
    output
        .status
        .success()
        .then(|| String::from_utf8_lossy(&output.stdout).trim().to_string())
}

/// The pages of `src` (a book's source folder) that its `SUMMARY.md` does not link.
fn pages_left_out_of_the_summary(src: &Path) -> Result<Vec<String>> {
    let summary_path = src.join("SUMMARY.md");
    let summary = read(&summary_path)?;
    let linked: BTreeSet<PathBuf> = markdown_links(&summary)
        .into_iter()
        .map(|link| normalise(&src.join(split_fragment(&link.target).0)))
        .collect();
    let mut left_out = Vec::new();
    for page in markdown_files(src)? {
        if page != summary_path && !linked.contains(&normalise(&page)) {
            left_out.push(format!(
                "{}: not in SUMMARY.md, so mdBook does not build it",
                page.display()
            ));
        }
    }
    Ok(left_out)
}

/// Broken links of a built book: every `href` and `src` of its HTML pages that points into
/// the book at a missing file or at an `id` its page lacks, or into this repository at a
/// missing path or heading. Links elsewhere on the web are not followed.
pub fn broken_links_in_html(book: &Path, root: &Path) -> Result<Vec<String>> {
    let mut pages = Vec::new();
    collect_files(book, &mut pages, &|p| {
        p.extension().is_some_and(|e| e == "html")
    })?;
    let mut ids: BTreeMap<PathBuf, BTreeSet<String>> = BTreeMap::new();
    let mut texts = Vec::new();
    for page in pages {
        let text = read(&page)?;
        ids.insert(
            normalise(&page),
            attribute_values(&text, "id").into_iter().collect(),
        );
        texts.push((page, text));
    }
    let mut broken = Vec::new();
    for (page, text) in &texts {
        let shown = page.strip_prefix(book).unwrap_or(page).display();
        for attribute in ["href", "src"] {
            for link in attribute_values(text, attribute) {
                let problem = if let Some(path) = link.strip_prefix(REPOSITORY) {
                    repository_link(root, path)
                } else if is_external(&link) {
                    None
                } else {
                    let (path, fragment) = split_fragment(&link);
                    let target = if path.is_empty() {
                        normalise(page)
                    } else if let Some(absolute) = path.strip_prefix('/') {
                        normalise(&book.join(absolute))
                    } else {
                        normalise(&page.parent().unwrap_or(book).join(path))
                    };
                    let target = if target.is_dir() {
                        target.join("index.html")
                    } else {
                        target
                    };
                    if !target.starts_with(normalise(book)) || !target.is_file() {
                        Some("no such file in the book".to_string())
                    } else {
                        match (fragment, ids.get(&target)) {
                            (Some(id), Some(ids)) if !id.is_empty() && !ids.contains(id) => {
                                Some(format!("no id \"{id}\" in {}", target.display()))
                            }
                            _ => None,
                        }
                    }
                };
                if let Some(problem) = problem {
                    broken.push(format!("{shown}: {link}: {problem}"));
                }
            }
        }
    }
    Ok(broken)
}

/// Broken links of the checkout's Markdown (outside builds and tools): relative links to a
/// missing file, or to a heading (`#anchor`, GitHub's slug) that the page lacks, and links
/// into this repository on GitHub that the checkout does not hold.
pub fn broken_links_in_markdown(root: &Path) -> Result<Vec<String>> {
    let mut broken = Vec::new();
    for page in markdown_files(root)? {
        let text = read(&page)?;
        let shown = page
            .strip_prefix(root)
            .unwrap_or(&page)
            .display()
            .to_string();
        for link in markdown_links(&text) {
            let target = &link.target;
            let problem = if let Some(path) = target.strip_prefix(REPOSITORY) {
                repository_link(root, path)
            } else if is_external(target) {
                None
            } else {
                let (path, fragment) = split_fragment(target);
                let file = if path.is_empty() {
                    page.clone()
                } else {
                    normalise(&page.parent().unwrap_or(root).join(path))
                };
                missing_target(&file, fragment)
            };
            if let Some(problem) = problem {
                broken.push(format!("{shown}:{}: {target}: {problem}", link.line));
            }
        }
    }
    Ok(broken)
}

/// What is wrong with a link to `REPOSITORY` + `path` (`/blob/main/docs/x.md#heading`),
/// checked against the checkout at `root`; `None` when it resolves.
fn repository_link(root: &Path, path: &str) -> Option<String> {
    let (path, fragment) = split_fragment(path);
    let path = path.trim_end_matches('/');
    if path.is_empty() {
        return None;
    }
    let in_checkout = ["/blob/main/", "/tree/main/", "/edit/main/", "/raw/main/"]
        .iter()
        .find_map(|prefix| path.strip_prefix(prefix));
    match in_checkout {
        Some(relative) => missing_target(&normalise(&root.join(relative)), fragment),
        None => Some("a repository link that names no file of the main branch".to_string()),
    }
}

/// What is missing for a link to `file` and its `fragment`: the file, or, in a Markdown
/// file, the heading; `None` when both are there.
fn missing_target(file: &Path, fragment: Option<&str>) -> Option<String> {
    if !file.exists() {
        return Some(format!("{} does not exist", file.display()));
    }
    let fragment = fragment.filter(|f| !f.is_empty())?;
    if file.extension().is_none_or(|e| e != "md") {
        return None;
    }
    let text = fs::read_to_string(file).ok()?;
    if heading_slugs(&text).contains(fragment)
        || attribute_values(&text, "id")
            .iter()
            .any(|id| id == fragment)
    {
        None
    } else {
        Some(format!("no heading #{fragment} in {}", file.display()))
    }
}

/// Whether a link leaves the book and the checkout: a scheme (`https:`, `mailto:`, ...).
fn is_external(link: &str) -> bool {
    let before_path = link.split(['/', '#', '?']).next().unwrap_or("");
    before_path.contains(':')
}

/// `path#fragment` split in two; the query (`?...`) dropped from the path.
fn split_fragment(link: &str) -> (&str, Option<&str>) {
    let (path, fragment) = match link.split_once('#') {
        Some((path, fragment)) => (path, Some(fragment)),
        None => (link, None),
    };
    (path.split('?').next().unwrap_or(path), fragment)
}

/// `path` with `.` and `..` resolved lexically (links are resolved as a browser does, not
/// through links on disk).
fn normalise(path: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for component in path.components() {
        match component {
            Component::CurDir => {}
            Component::ParentDir => {
                out.pop();
            }
            other => out.push(other),
        }
    }
    out
}

/// The values of `name="..."` attributes in HTML text, entities and `%XX` decoded.
fn attribute_values(html: &str, name: &str) -> Vec<String> {
    let needle = format!(" {name}=\"");
    html.match_indices(&needle)
        .filter_map(|(at, _)| {
            let start = at + needle.len();
            let end = start + html[start..].find('"')?;
            Some(percent_decode(&decode_entities(&html[start..end])))
        })
        .collect()
}

/// HTML's character references that mdBook writes in attributes.
fn decode_entities(text: &str) -> String {
    text.replace("&quot;", "\"")
        .replace("&#39;", "'")
        .replace("&lt;", "<")
        .replace("&gt;", ">")
        .replace("&amp;", "&")
}

/// `%XX` escapes decoded (mdBook escapes non-ASCII ids and paths so).
fn percent_decode(text: &str) -> String {
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        let hex = bytes
            .get(i + 1..i + 3)
            .and_then(|h| std::str::from_utf8(h).ok())
            .and_then(|h| u8::from_str_radix(h, 16).ok());
        match (bytes[i], hex) {
            (b'%', Some(byte)) => {
                out.push(byte);
                i += 3;
            }
            (byte, _) => {
                out.push(byte);
                i += 1;
            }
        }
    }
    String::from_utf8_lossy(&out).into_owned()
}

/// A link of a Markdown page and the line it is on.
#[derive(Debug, PartialEq, Eq)]
struct MarkdownLink {
    line: usize,
    target: String,
}

/// The targets of a Markdown page's inline links and images (`[text](target "title")`)
/// and of its link definitions (`[name]: target`), outside code blocks and code spans.
fn markdown_links(text: &str) -> Vec<MarkdownLink> {
    let mut links = Vec::new();
    let mut fence: Option<String> = None;
    for (index, line) in text.lines().enumerate() {
        let trimmed = line.trim_start();
        if let Some(open) = &fence {
            if trimmed.starts_with(open.as_str()) {
                fence = None;
            }
            continue;
        }
        if trimmed.starts_with("```") || trimmed.starts_with("~~~") {
            let marker: String = trimmed
                .chars()
                .take_while(|&c| c == '`' || c == '~')
                .collect();
            fence = Some(marker);
            continue;
        }
        let line_number = index + 1;
        if let Some(definition) = trimmed.strip_prefix('[') {
            if let Some((_, rest)) = definition.split_once("]:") {
                if let Some(target) = rest.split_whitespace().next() {
                    links.push(MarkdownLink {
                        line: line_number,
                        target: target.trim_matches(['<', '>']).to_string(),
                    });
                    continue;
                }
            }
        }
        let outside_code: String = line
            .split('`')
            .enumerate()
            .map(|(i, part)| if i % 2 == 0 { part } else { "" })
            .collect::<Vec<_>>()
            .join("``");
        let mut rest = outside_code.as_str();
        while let Some(at) = rest.find("](") {
            let after = &rest[at + 2..];
            let Some(end) = closing_parenthesis(after) else {
                break;
            };
            let inside = after[..end].trim();
            let target = inside.split_whitespace().next().unwrap_or("");
            if !target.is_empty() {
                links.push(MarkdownLink {
                    line: line_number,
                    target: target.trim_matches(['<', '>']).to_string(),
                });
            }
            rest = &after[end..];
        }
    }
    links
}

/// Where the `)` that closes a link's destination is, nested parentheses counted.
fn closing_parenthesis(text: &str) -> Option<usize> {
    let mut depth = 0usize;
    for (at, c) in text.char_indices() {
        match c {
            '(' => depth += 1,
            ')' if depth == 0 => return Some(at),
            ')' => depth -= 1,
            _ => {}
        }
    }
    None
}

/// The anchors GitHub (and mdBook) give a page's headings: the heading's text without its
/// markup, lower-cased, punctuation but `-` and `_` dropped, spaces as `-`, and `-1`, `-2`,
/// ... after a repeated one.
fn heading_slugs(text: &str) -> BTreeSet<String> {
    let mut seen: BTreeMap<String, usize> = BTreeMap::new();
    let mut slugs = BTreeSet::new();
    let mut in_fence = false;
    for line in text.lines() {
        let trimmed = line.trim_start();
        if trimmed.starts_with("```") || trimmed.starts_with("~~~") {
            in_fence = !in_fence;
            continue;
        }
        if in_fence || !trimmed.starts_with('#') {
            continue;
        }
        let heading = trimmed.trim_start_matches('#');
        if !heading.starts_with(' ') {
            continue;
        }
        let slug = slug(&strip_inline_links(heading.trim()));
        let count = seen.entry(slug.clone()).or_insert(0);
        slugs.insert(if *count == 0 {
            slug.clone()
        } else {
            format!("{slug}-{count}")
        });
        *count += 1;
    }
    slugs
}

/// A heading's text with `[text](target)` links reduced to their text.
fn strip_inline_links(text: &str) -> String {
    let mut out = String::new();
    let mut rest = text;
    while let Some(at) = rest.find("](") {
        let Some(end) = closing_parenthesis(&rest[at + 2..]) else {
            break;
        };
        out.push_str(&rest[..at]);
        rest = &rest[at + 2 + end + 1..];
    }
    out.push_str(rest);
    out.replace('[', "")
}

/// GitHub's anchor for a heading's text.
fn slug(text: &str) -> String {
    text.chars()
        .filter_map(|c| {
            if c.is_alphanumeric() || c == '-' || c == '_' {
                Some(c.to_lowercase().collect::<String>())
            } else if c == ' ' {
                Some("-".to_string())
            } else {
                None
            }
        })
        .collect()
}

/// The Markdown files under `dir`, outside builds, tools and git's folder, sorted.
fn markdown_files(dir: &Path) -> Result<Vec<PathBuf>> {
    let mut files = Vec::new();
    collect_files(dir, &mut files, &|p| {
        p.extension().is_some_and(|e| e == "md")
    })?;
    files.sort();
    Ok(files)
}

/// Adds the files under `dir` that `keep` accepts to `files`, skipping builds and tools
/// (`NOT_DOCUMENTATION`, and `target-*` folders).
fn collect_files(dir: &Path, files: &mut Vec<PathBuf>, keep: &dyn Fn(&Path) -> bool) -> Result<()> {
    let entries = fs::read_dir(dir).with_context(|| format!("reading {}", dir.display()))?;
    for entry in entries {
        let entry = entry.with_context(|| format!("reading {}", dir.display()))?;
        let path = entry.path();
        let name = entry.file_name().to_string_lossy().into_owned();
        let kind = entry.file_type()?;
        if kind.is_dir() {
            if !NOT_DOCUMENTATION.contains(&name.as_str()) && !name.starts_with("target-") {
                collect_files(&path, files, keep)?;
            }
        } else if keep(&path) {
            files.push(path);
        }
    }
    Ok(())
}

fn read(path: &Path) -> Result<String> {
    fs::read_to_string(path).with_context(|| format!("reading {}", path.display()))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn scratch(name: &str) -> PathBuf {
        let dir = std::env::temp_dir().join(format!("bsuite-book-{name}-{}", std::process::id()));
        let _ = fs::remove_dir_all(&dir);
        fs::create_dir_all(&dir).unwrap();
        dir
    }

    /// The repository address the links are checked against is the workspace's own.
    #[test]
    fn the_repository_is_the_workspaces() {
        let manifest = read(&workspace_root().join("Cargo.toml")).unwrap();
        let line = format!("repository = \"{REPOSITORY}\"");
        assert!(
            manifest.lines().any(|l| l.trim() == line),
            "{line} is not in the workspace's Cargo.toml"
        );
    }

    /// A built page's links: to a missing page, to a missing id, to a file the checkout
    /// lacks on GitHub, each found; the good ones and the web's left alone.
    #[test]
    fn broken_links_of_a_built_book_are_found() {
        let book = scratch("html");
        let root = workspace_root();
        fs::create_dir_all(book.join("sub")).unwrap();
        fs::write(book.join("sub/other.html"), r#"<h2 id="there">There</h2>"#).unwrap();
        let page = format!(
            r##"<h1 id="top">Top</h1>
            <a href="sub/other.html#there">good</a> <a href="#top">good</a>
            <a href="https://example.org/x">the web</a>
            <a href="{REPOSITORY}/blob/main/README.md#shipped-baselines">good</a>
            <a href="sub/missing.html">bad page</a> <a href="sub/other.html#nowhere">bad id</a>
            <a href="#nowhere">bad id here</a> <img src="images/missing.png">
            <a href="{REPOSITORY}/blob/main/no-such-file.md">bad repository file</a>
            <a href="{REPOSITORY}/blob/main/README.md#no-such-heading">bad heading</a>"##
        );
        fs::write(book.join("index.html"), page).unwrap();
        let broken = broken_links_in_html(&book, &root).unwrap();
        let found = |what: &str| broken.iter().any(|b| b.contains(what));
        assert_eq!(broken.len(), 6, "{broken:#?}");
        for what in [
            "sub/missing.html",
            "sub/other.html#nowhere",
            "index.html: #nowhere",
            "images/missing.png",
            "no-such-file.md",
            "#no-such-heading",
        ] {
            assert!(found(what), "{what} not found in {broken:#?}");
        }
        fs::remove_dir_all(&book).unwrap();
    }

    /// Markdown's links: relative files and headings, by GitHub's slugs, outside code.
    #[test]
    fn broken_links_of_markdown_are_found() {
        let root = scratch("markdown");
        fs::create_dir_all(root.join("docs")).unwrap();
        fs::write(
            root.join("docs/page.md"),
            "# A page\n\n## The `code` heading: one, two\n\n## Again\n\n## Again\n",
        )
        .unwrap();
        fs::write(
            root.join("README.md"),
            "# Read me\n\n[good](docs/page.md#the-code-heading-one-two) [good](#read-me)\n\
             [good](docs/page.md#again-1) ![good](docs/page.md) [web](https://example.org)\n\
             [bad](docs/missing.md) [bad](docs/page.md#nowhere) [bad](#nowhere)\n\
             `[not a link](nowhere.md)`\n\n```sh\necho '[not a link](nowhere.md)'\n```\n\
             [defined]: docs/also-missing.md\n",
        )
        .unwrap();
        let broken = broken_links_in_markdown(&root).unwrap();
        assert_eq!(broken.len(), 4, "{broken:#?}");
        for what in [
            "README.md:5: docs/missing.md",
            "README.md:5: docs/page.md#nowhere",
            "README.md:5: #nowhere",
            "README.md:11: docs/also-missing.md",
        ] {
            assert!(
                broken.iter().any(|b| b.contains(what)),
                "{what}: {broken:#?}"
            );
        }
        fs::remove_dir_all(&root).unwrap();
    }

    /// A page of the book that `SUMMARY.md` does not link is named.
    #[test]
    fn a_page_left_out_of_the_summary_is_named() {
        let src = scratch("summary");
        fs::write(src.join("SUMMARY.md"), "# Summary\n\n- [One](one.md)\n").unwrap();
        fs::write(src.join("one.md"), "# One\n").unwrap();
        fs::write(src.join("two.md"), "# Two\n").unwrap();
        let left_out = pages_left_out_of_the_summary(&src).unwrap();
        assert_eq!(left_out.len(), 1, "{left_out:#?}");
        assert!(left_out[0].contains("two.md"));
        fs::remove_dir_all(&src).unwrap();
    }
}
