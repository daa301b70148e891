//! Captures the build's git revision for failure reports (`sim::build_info::REVISION`). A checkout
//! without `.git` (a source tarball) or a machine without `git` reports "unknown".

use std::process::Command;

fn git(args: &[&str]) -> Option<String> {
    let out = Command::new("git").args(args).output().ok()?;
    if !out.status.success() {
        return None;
    }
    let text = String::from_utf8(out.stdout).ok()?.trim().to_string();
    (!text.is_empty()).then_some(text)
}

fn main() {
    let revision = git(&["rev-parse", "--short=12", "HEAD"]).unwrap_or_else(|| "unknown".into());
    println!("cargo:rustc-env=REGROUP_GIT_REVISION={revision}");
    // Rebuild when HEAD or the branch it points to moves. Worktrees keep HEAD and refs in
    // different directories, so ask git for both paths.
    let mut watched = Vec::new();
    if let Some(head) = git(&["rev-parse", "--git-path", "HEAD"]) {
        watched.push(head);
    }
    if let Some(branch) = git(&["symbolic-ref", "-q", "HEAD"])
        && let Some(path) = git(&["rev-parse", "--git-path", &branch])
    {
        watched.push(path);
    }
    if watched.is_empty() {
        println!("cargo:rerun-if-changed=build.rs");
    }
    for path in watched {
        println!("cargo:rerun-if-changed={path}");
    }
}
