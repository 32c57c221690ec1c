//! `casebook serve` on the command line: starts the preview, reports each rebuild.

use casebook::Error;

use super::{count, files_changed, print_failure};

/// Runs the preview server until Ctrl-C.
pub(super) fn serve(
    options: &casebook::serve::ServeOptions,
    open: bool,
    timings: bool,
) -> Result<String, Error> {
    use casebook::serve::Report;
    if !options.bind.is_loopback() {
        eprintln!(
            "warning: listening on {}: anyone who can reach this machine can see the site, \
             including drafts and unpublished (possibly unredacted) content",
            options.bind
        );
    }
    let print_timings = move |u: &casebook::serve::Update| {
        if timings {
            for (step, took) in &u.timings {
                eprintln!("  {step:<14} {:>9.1} ms", took.as_secs_f64() * 1000.0);
            }
        }
    };
    let server = casebook::serve::start(options, move |report| match report {
        Report::Rebuilt(u) => {
            print_timings(&u);
            eprintln!(
                "rebuilt in {:.0} ms: {} of {} pages rendered, {}{}",
                u.took.as_secs_f64() * 1000.0,
                u.rendered,
                u.pages,
                files_changed(u.changed.len()),
                if u.full { " (full rebuild)" } else { "" }
            )
        }
        Report::Rendered(u) => {
            print_timings(&u);
            eprintln!(
                "  then the other {} in {:.0} ms",
                count(u.rendered, "page", "pages"),
                u.took.as_secs_f64() * 1000.0
            )
        }
        Report::Finished(u) => {
            print_timings(&u);
            eprintln!(
                "  then search index, feeds, data export and manifest in {:.0} ms ({})",
                u.took.as_secs_f64() * 1000.0,
                files_changed(u.changed.len())
            )
        }
        Report::Failed(diagnostics) => print_failure(&diagnostics),
    })?;
    match &server.first {
        Ok(u) => {
            print_timings(u);
            eprintln!(
                "built {} in {:.0} ms ({} rendered first)",
                count(u.pages, "page", "pages"),
                u.took.as_secs_f64() * 1000.0,
                u.rendered
            )
        }
        Err(diagnostics) => print_failure(diagnostics),
    }
    // Ctrl-C is caught before the address is printed: whoever reads it may press it at once.
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(|source| Error::Io {
            path: "runtime".into(),
            source,
        })?;
    let stopped = {
        let _entered = runtime.enter();
        interrupted()
    };
    println!("serving {} (Ctrl-C stops)", server.url);
    if options.bind.is_loopback() {
        println!("redaction workbench: {}__casebook/photos/", server.url);
    } else {
        eprintln!(
            "the redaction workbench and the source photographs are off: they are served only \
             when listening on this machine alone (--bind 127.0.0.1)"
        );
    }
    if open {
        if let Err(e) = opener::open(&server.url) {
            eprintln!("warning: could not open a browser: {e}");
        }
    }
    runtime.block_on(stopped);
    let url = server.url.clone();
    server.stop();
    Ok(format!("stopped serving {url}"))
}

/// Resolves at Ctrl-C, with the handler registered now (`tokio::signal::ctrl_c` registers
/// it only when first polled). Called within a runtime.
fn interrupted() -> std::pin::Pin<Box<dyn std::future::Future<Output = ()>>> {
    #[cfg(unix)]
    {
        use tokio::signal::unix::{SignalKind, signal};
        if let Ok(mut interrupt) = signal(SignalKind::interrupt()) {
            return Box::pin(async move {
                interrupt.recv().await;
            });
        }
    }
    Box::pin(async {
        let _ = tokio::signal::ctrl_c().await;
    })
}
