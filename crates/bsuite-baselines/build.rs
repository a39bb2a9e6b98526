//! With the `tch` feature, bakes LibTorch's library directory into this crate's binaries,
//! tests and examples as an rpath, so they run without `LD_LIBRARY_PATH`.

fn main() {
    println!("cargo:rerun-if-changed=build.rs");
    if std::env::var_os("CARGO_FEATURE_TCH").is_none() {
        return;
    }
    // torch-sys (`links = "tch"`) publishes the directory it linked against.
    let Ok(lib) = std::env::var("DEP_TCH_LIBTORCH_LIB") else {
        return;
    };
    match std::env::var("CARGO_CFG_TARGET_OS").as_deref() {
        Ok("linux") | Ok("macos") => println!("cargo:rustc-link-arg=-Wl,-rpath,{lib}"),
        _ => {}
    }
}
