//! `demo-app`: serve the demo web app, or run one of its tiny CLI commands.

fn main() -> std::process::ExitCode {
    demo_app::cli::main()
}
