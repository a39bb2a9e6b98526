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
    // Nothing references libtorch_cuda directly, so the linker's --as-needed drops it and
    // CUDA stays unregistered. `cargo xtask ... --device cuda` asks to keep it (a CPU-only
    // install has the library but not the CUDA libraries it needs).
    println!("cargo:rerun-if-env-changed=BSUITE_TORCH_CUDA");
    let cuda = std::env::var("BSUITE_TORCH_CUDA").is_ok_and(|v| v == "1");
    if cuda && std::path::Path::new(&lib).join("libtorch_cuda.so").exists() {
        println!("cargo:rustc-link-arg=-Wl,--no-as-needed,-ltorch_cuda,--as-needed");
    }
}
