//! The `casebook` command: parses arguments, calls the library, prints the outcome once and
//! maps it to an exit code (0 success, 1 content or build errors, 2 usage errors).

use std::io::IsTerminal;
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::{Arc, Mutex};
use std::time::Instant;

use clap::{Args, Parser, Subcommand};

use casebook::{BuildOptions, Error};

// Rendering allocates many short-lived strings on every thread; mimalloc handles that
// pattern far better than the system allocator.
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

#[derive(Parser)]
#[command(
    name = "casebook",
    version,
    about = "Static archive site generator for evidence archives"
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Build the site into DIR/public (or --output).
    Build {
        #[command(flatten)]
        site: SiteArgs,
        /// Write the site here instead of <root>/public.
        #[arg(long, short, value_name = "DIR")]
        output: Option<PathBuf>,
        /// Override base_url from casebook.toml (e.g. for a staging host).
        #[arg(long, value_name = "URL")]
        base_url: Option<String>,
        /// Links name index.html so the site works opened straight from disk.
        #[arg(long)]
        portable: bool,
    },
    /// Validate everything, check internal links and audit images and the built output; writes nothing.
    Check {
        #[command(flatten)]
        site: SiteArgs,
    },
    /// Re-hash a built or downloaded site against its manifest.json; report every mismatch.
    Verify {
        /// The built site (the folder holding manifest.json).
        #[arg(default_value = "public")]
        dir: PathBuf,
    },
    /// Build the site in memory, serve it on this machine and rebuild and reload on every change.
    Serve {
        /// The site folder (holding casebook.toml).
        #[arg(long, default_value = ".", value_name = "DIR")]
        root: PathBuf,
        /// The port to listen on (0: any free port).
        #[arg(long, short, default_value_t = 1111)]
        port: u16,
        /// The address to listen on. Anything but loopback shows unpublished content to the network.
        #[arg(long, default_value = "127.0.0.1", value_name = "ADDRESS")]
        bind: std::net::IpAddr,
        /// Open the site in the default browser.
        #[arg(long)]
        open: bool,
        /// Include pages marked draft = true.
        #[arg(long)]
        drafts: bool,
        /// Print how long each step of every rebuild took.
        #[arg(long)]
        timings: bool,
    },
    /// Create a minimal working site in DIR.
    Init {
        /// The folder to create the site in.
        dir: PathBuf,
    },
}

#[derive(Args)]
struct SiteArgs {
    /// The site folder (holding casebook.toml).
    #[arg(long, default_value = ".", value_name = "DIR")]
    root: PathBuf,
    /// Include pages marked draft = true.
    #[arg(long)]
    drafts: bool,
    /// Print how long each stage took.
    #[arg(long)]
    timings: bool,
}

/// A failed preview build: the problems, and that the browser shows them too.
fn print_failure(diagnostics: &[casebook::Diagnostic]) {
    let them = if diagnostics.len() == 1 { "it" } else { "them" };
    eprintln!(
        "{}",
        casebook::report(
            diagnostics,
            &format!("the browser shows {them} until the next good build")
        )
    );
}

/// `1 case`, `2 cases`.
fn count(n: usize, one: &str, many: &str) -> String {
    if n == 1 {
        format!("1 {one}")
    } else {
        format!("{n} {many}")
    }
}

fn files_changed(n: usize) -> String {
    format!("{} changed", count(n, "file", "files"))
}

/// Progress of long image runs on stderr: a bar on a terminal, a line per tenth otherwise.
fn image_progress() -> casebook::Progress {
    let terminal = std::io::stderr().is_terminal();
    let bar: Mutex<Option<indicatif::ProgressBar>> = Mutex::new(None);
    casebook::Progress(Arc::new(move |done, total| {
        if total < 20 || done == 0 {
            return;
        }
        if !terminal {
            if done * 10 / total != (done - 1) * 10 / total {
                eprintln!("images: {done}/{total}");
            }
            return;
        }
        let mut bar = bar.lock().unwrap_or_else(|e| e.into_inner());
        let bar = bar.get_or_insert_with(|| {
            let bar = indicatif::ProgressBar::new(total as u64);
            if let Ok(style) = indicatif::ProgressStyle::with_template(
                "images {bar:30} {pos}/{len} ({per_sec}, {eta} left)",
            ) {
                bar.set_style(style);
            }
            bar
        });
        bar.set_position(done as u64);
        if done == total {
            bar.finish_and_clear();
        }
    }))
}

/// Runs the preview server until Ctrl-C.
fn serve(
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
                "built {} in {:.0} ms",
                count(u.pages, "page", "pages"),
                u.took.as_secs_f64() * 1000.0
            )
        }
        Err(diagnostics) => print_failure(diagnostics),
    }
    println!("serving {} (Ctrl-C stops)", server.url);
    if open {
        if let Err(e) = opener::open(&server.url) {
            eprintln!("warning: could not open a browser: {e}");
        }
    }
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(|source| Error::Io {
            path: "runtime".into(),
            source,
        })?;
    let _ = runtime.block_on(tokio::signal::ctrl_c());
    let url = server.url.clone();
    server.stop();
    Ok(format!("stopped serving {url}"))
}

fn main() -> ExitCode {
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(e) => {
            let _ = e.print();
            return if e.use_stderr() {
                ExitCode::from(2)
            } else {
                ExitCode::SUCCESS
            };
        }
    };
    let started = Instant::now();
    let show_timings = match &cli.command {
        Command::Build { site, .. } | Command::Check { site } => site.timings,
        Command::Init { .. } | Command::Verify { .. } | Command::Serve { .. } => false,
    };
    let print_timings = |r: &casebook::BuildReport| {
        if show_timings {
            for (stage, took) in &r.timings {
                eprintln!("  {stage:<14} {:>9.1} ms", took.as_secs_f64() * 1000.0);
            }
        }
    };
    let result = match cli.command {
        Command::Build {
            site,
            output,
            base_url,
            portable,
        } => casebook::build(&BuildOptions {
            root: site.root,
            output,
            base_url,
            drafts: site.drafts,
            portable,
            progress: Some(image_progress()),
        })
        .map(|r| {
            print_timings(&r);
            format!(
                "built {} ({}, {}) into {} in {:.2?}",
                count(r.pages, "page", "pages"),
                count(r.cases, "case", "cases"),
                count(r.files, "file", "files"),
                r.output.display(),
                started.elapsed()
            )
        }),
        Command::Check { site } => casebook::check(&BuildOptions {
            root: site.root,
            drafts: site.drafts,
            ..Default::default()
        })
        .map(|r| {
            print_timings(&r);
            format!(
                "ok: {} ({}) checked, no problems found",
                count(r.pages, "page", "pages"),
                count(r.cases, "case", "cases")
            )
        }),
        Command::Verify { dir } => casebook::verify(&dir).map(|v| {
            format!(
                "ok: {} ({} bytes) in {} match manifest.json",
                count(v.files, "file", "files"),
                v.bytes,
                dir.display()
            )
        }),
        Command::Serve {
            root,
            port,
            bind,
            open,
            drafts,
            timings,
        } => serve(
            &casebook::serve::ServeOptions {
                root,
                bind,
                port,
                drafts,
            },
            open,
            timings,
        ),
        Command::Init { dir } => casebook::init(&dir).map(|files| {
            format!(
                "created a site in {} ({}); build it with: casebook build --root {}",
                dir.display(),
                count(files.len(), "file", "files"),
                dir.display()
            )
        }),
    };
    match result {
        Ok(summary) => {
            println!("{summary}");
            ExitCode::SUCCESS
        }
        Err(e) => {
            match &e {
                Error::Diagnostics(_) => eprintln!("{e}"),
                Error::Io { .. } => eprintln!("error: {e}"),
            }
            ExitCode::from(1)
        }
    }
}
