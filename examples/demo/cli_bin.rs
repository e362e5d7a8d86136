//! `demo-cli`: the demo app's command line, built as a binary of the root
//! package so that the demo suite can run it (`CARGO_BIN_EXE_demo-cli`).

fn main() -> std::process::ExitCode {
    demo_app::cli::main()
}
