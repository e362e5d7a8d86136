//! The `demo-app` command line: serve the demo web app, or run one of its tiny
//! commands. (The root package ships the same CLI as `demo-cli`, so that the
//! example suites can run it as a real process.)

use std::io::Write;
use std::process::ExitCode;

const USAGE: &str = "\
demo-app - the small web app the harshjudge example suites test

Usage:
  demo-app serve [--port N]   serve on http://127.0.0.1:N until Ctrl-C (default: a free port)
  demo-app greet NAME         print \"Hello, NAME!\"
  demo-app count FILE         print the number of lines in FILE
  demo-app --help             print this help
  demo-app --version          print the version

Exit codes: 0 success, 1 failure (e.g. unreadable file), 2 usage error.
";

/// A usage error: printed to stderr as `error: ...`, exit code 2.
fn usage_error(message: &str) -> ExitCode {
    eprintln!("error: {message}");
    eprintln!("run `demo-app --help` for usage");
    ExitCode::from(2)
}

/// Runs the CLI with the process arguments.
pub fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let Some(command) = args.first() else {
        eprint!("{USAGE}");
        return ExitCode::from(2);
    };
    let rest = &args[1..];
    match command.as_str() {
        "-h" | "--help" | "help" => {
            print!("{USAGE}");
            ExitCode::SUCCESS
        }
        "-V" | "--version" => {
            println!("demo-app {}", env!("CARGO_PKG_VERSION"));
            ExitCode::SUCCESS
        }
        "greet" => greet(rest),
        "count" => count(rest),
        "serve" => serve(rest),
        other => usage_error(&format!("unknown command '{other}'")),
    }
}

/// `greet NAME...`: the words are joined with spaces.
fn greet(args: &[String]) -> ExitCode {
    if args.is_empty() {
        eprintln!("error: greet needs a NAME");
        return ExitCode::from(2);
    }
    println!("Hello, {}!", args.join(" "));
    ExitCode::SUCCESS
}

/// `count FILE`: lines as `str::lines` counts them (a last line without a newline counts).
fn count(args: &[String]) -> ExitCode {
    let [file] = args else {
        return usage_error("count needs exactly one FILE");
    };
    match std::fs::read(file) {
        Ok(bytes) => {
            let newlines = bytes.iter().filter(|&&b| b == b'\n').count();
            let unterminated = usize::from(bytes.last().is_some_and(|&b| b != b'\n'));
            println!("{}", newlines + unterminated);
            ExitCode::SUCCESS
        }
        Err(err) => {
            eprintln!("error: cannot read {file}: {err}");
            ExitCode::from(1)
        }
    }
}

/// `serve [--port N]`.
fn serve(args: &[String]) -> ExitCode {
    let mut port: u16 = 0;
    let mut i = 0;
    while i < args.len() {
        let arg = args[i].as_str();
        let value = if arg == "--port" || arg == "-p" {
            i += 1;
            match args.get(i) {
                Some(value) => value.as_str(),
                None => return usage_error("--port needs a value"),
            }
        } else if let Some(value) = arg.strip_prefix("--port=") {
            value
        } else {
            return usage_error(&format!("unexpected argument '{arg}' for serve"));
        };
        port = match value.parse() {
            Ok(port) => port,
            Err(_) => return usage_error(&format!("invalid port '{value}'")),
        };
        i += 1;
    }

    if let Err(err) = crate::Variant::from_env() {
        return usage_error(&err.to_string());
    }
    let runtime = match tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
    {
        Ok(runtime) => runtime,
        Err(err) => {
            eprintln!("error: cannot start the runtime: {err}");
            return ExitCode::from(1);
        }
    };
    runtime.block_on(async move {
        let app = match crate::DemoApp::start_on(port).await {
            Ok(app) => app,
            Err(err) => {
                eprintln!("error: cannot listen on 127.0.0.1:{port}: {err}");
                return ExitCode::from(1);
            }
        };
        // The handlers before the line that says it is ready: a SIGTERM sent
        // as soon as the line is read must reach them, not kill the process.
        let shutdown = shutdown_signal();
        {
            let mut stdout = std::io::stdout().lock();
            let _ = writeln!(stdout, "listening on {}", app.base_url());
            let _ = stdout.flush();
        }
        shutdown.await;
        eprintln!("shutting down");
        app.stop().await;
        ExitCode::SUCCESS
    })
}

/// Resolves on Ctrl-C (SIGINT) or, on Unix, SIGTERM. On Unix both handlers
/// are installed when this is called, not when the future is first polled.
fn shutdown_signal() -> std::pin::Pin<Box<dyn std::future::Future<Output = ()> + Send>> {
    #[cfg(unix)]
    {
        use tokio::signal::unix::{SignalKind, signal};
        if let (Ok(mut term), Ok(mut int)) = (
            signal(SignalKind::terminate()),
            signal(SignalKind::interrupt()),
        ) {
            return Box::pin(async move {
                tokio::select! {
                    _ = int.recv() => {}
                    _ = term.recv() => {}
                }
            });
        }
    }
    Box::pin(async {
        let _ = tokio::signal::ctrl_c().await;
    })
}
